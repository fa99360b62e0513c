// Package fault defines the one error type of rlm and the closed set of error kinds that every
// layer uses: the parser and validator, the engines, the worker and the wire between it and
// the parent, the tools, the model client and the controller.
//
// An *Error carries a Kind, a Position in the cell when it refers to one (resolved when the
// error is made, as go/scanner resolves its positions), the whole message for its reader and
// the cause. A Kind is itself an error, so callers test with errors.Is:
//
//	if errors.Is(err, fault.Timeout) { ... }
//
// An error with no kind is a code error (Classify); a kind another process named is read with
// Parse, so a name outside the closed set is a code error too. Only cmd/rlm maps kinds to exit
// codes.
package fault
