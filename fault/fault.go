package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Kind classifies a failure. The set is closed: use only the constants below.
type Kind string

// The kinds, in the order docs/design.md lists them.
const (
	Code        Kind = "code"        // the code raised an error (panic, exception, compile error)
	Logic       Kind = "logic"       // the code ran but its answer is wrong or missing
	Format      Kind = "format"      // a model's output was not in the required shape
	Schema      Kind = "schema"      // a value did not match its schema
	Timeout     Kind = "timeout"     // a deadline passed
	EarlyAbort  Kind = "early_abort" // the generation monitor stopped a degenerate generation
	Rejected    Kind = "rejected"    // the validator refused the code
	Denied      Kind = "denied"      // the sandbox or the OS refused an operation
	Crashed     Kind = "crashed"     // the worker died (out of memory, stack overflow, fatal error)
	Limit       Kind = "limit"       // a cap or budget was hit
	Canceled    Kind = "canceled"    // the caller stopped the work: a signal, rlm abort, a cancelled context
	Unavailable Kind = "unavailable" // the model service could not be reached, or kept failing
)

// Kinds lists every kind.
var Kinds = []Kind{Code, Logic, Format, Schema, Timeout, EarlyAbort, Rejected, Denied, Crashed, Limit, Canceled, Unavailable}

// Error makes a Kind usable as an error and as an errors.Is target.
func (k Kind) Error() string { return string(k) }

// Position is where in a source an error is. Line and Column are 1-based, Column counts bytes,
// Offset is the byte offset. The zero Position is unknown.
type Position struct {
	Filename string `json:"file"`
	Offset   int    `json:"offset"`
	Line     int    `json:"line"`
	Column   int    `json:"col"`
}

// IsValid reports whether p is known (has a line).
func (p Position) IsValid() bool { return p.Line > 0 }

// String is FILE:LINE:COL; FILE alone when the line is unknown, "-" when nothing is, as
// go/token writes positions.
func (p Position) String() string {
	switch {
	case p.IsValid():
		return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
	case p.Filename != "":
		return p.Filename
	}
	return "-"
}

// Error is the one error type of every rlm layer: a kind, where (Pos, zero when unknown), the
// whole message for its reader (Msg: what happened and what to do instead) and the cause (Err,
// for errors.Is and errors.As; its text is already in Msg when it belongs there).
type Error struct {
	Kind Kind
	Pos  Position
	Msg  string
	Err  error
}

// New returns an *Error of kind k with a formatted message.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error of kind k whose cause is err and whose message is "msg: " and err's
// message (msg alone when err is nil, err's message alone when msg is "").
func Wrap(k Kind, err error, msg string) *Error {
	switch {
	case err == nil:
	case msg == "":
		msg = err.Error()
	default:
		msg += ": " + err.Error()
	}
	return &Error{Kind: k, Msg: msg, Err: err}
}

// Error is "FILE:LINE:COL: message" when the position is known, else the message. An Error
// with no message says its cause's.
func (e *Error) Error() string {
	msg := e.Msg
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	if e.Pos.IsValid() {
		return e.Pos.String() + ": " + msg
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// KindOf returns the kind of err, or "" if err carries none. An error that wraps another of a
// different kind has its own kind: the outermost one in the chain, in the order errors.Is
// walks it.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	if k, ok := err.(Kind); ok && slices.Contains(Kinds, k) {
		return k
	}
	if x, ok := err.(interface{ Is(error) bool }); ok {
		for _, k := range Kinds {
			if x.Is(k) {
				return k
			}
		}
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return KindOf(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if k := KindOf(e); k != "" {
				return k
			}
		}
	}
	return ""
}

// Classify is the kind of a failed cell's or call's error: KindOf(err), or Code when err carries
// none (the code failed in a way nothing classified). A nil err has no kind (""). This is the
// one place where "no kind" is taken for Code.
func Classify(err error) Kind {
	if err == nil {
		return ""
	}
	if k := KindOf(err); k != "" {
		return k
	}
	return Code
}

// Parse is the kind named s, as another process wrote it; a name outside the closed set is Code.
func Parse(s string) Kind {
	if k := Kind(s); slices.Contains(Kinds, k) {
		return k
	}
	return Code
}

// Stopped is the error of work that ended because ctx did: a Timeout when ctx's deadline passed,
// else Canceled (its caller stopped it), with context.Cause(ctx) as the cause and msg before
// it. This is the one place that tells a deadline from a cancellation.
func Stopped(ctx context.Context, msg string) *Error {
	k := Canceled
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		k = Timeout
	}
	return Wrap(k, context.Cause(ctx), msg)
}
