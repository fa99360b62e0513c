package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestKindOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want fault.Kind
	}{
		{"nil", nil, ""},
		{"plain", io.EOF, ""},
		{"kind itself", fault.Timeout, fault.Timeout},
		{"error", fault.New(fault.Limit, "peek length %d exceeds %d", 9, 8), fault.Limit},
		{"wrapped twice", fmt.Errorf("cell 3: %w", fault.Wrap(fault.Denied, io.EOF, "open")), fault.Denied},
		// The outer kind wins, wherever the inner one comes in the list of kinds.
		{"crash of a code error", fault.Wrap(fault.Crashed, fault.New(fault.Code, "undefined: x"), "lost"), fault.Crashed},
		{"code error of a limit", fmt.Errorf("x: %w", fault.Wrap(fault.Code, fault.New(fault.Limit, "cap"), "")), fault.Code},
		{"joined", errors.Join(io.EOF, fault.New(fault.Timeout, "late"), fault.New(fault.Code, "bad")), fault.Timeout},
	}
	for _, tt := range tests {
		if got := fault.KindOf(tt.err); got != tt.want {
			t.Errorf("%s: KindOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestErrorMessageAndCause(t *testing.T) {
	err := fault.Wrap(fault.Denied, io.EOF, "read /etc/shadow")
	if got, want := err.Error(), "read /etc/shadow: EOF"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Error("errors.Is(err, io.EOF) = false, want the cause to be reachable")
	}
	if errors.Is(err, fault.Crashed) {
		t.Error("errors.Is(err, Crashed) = true for a Denied error")
	}
}

// TestClassifyAndParse: no kind means code, and a kind another process wrote is taken only from
// the closed set (anything else is code, never a new kind).
func TestClassifyAndParse(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want fault.Kind
	}{
		{nil, ""},
		{errors.New("plain"), fault.Code},
		{fault.New(fault.Limit, "cap"), fault.Limit},
		{fmt.Errorf("wrapped: %w", fault.New(fault.Denied, "no")), fault.Denied},
	} {
		if got := fault.Classify(tc.err); got != tc.want {
			t.Errorf("Classify(%v) = %q; want %q", tc.err, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want fault.Kind
	}{{"limit", fault.Limit}, {"timeout", fault.Timeout}, {"", fault.Code}, {"LIMIT", fault.Code}, {"root", fault.Code}} {
		if got := fault.Parse(tc.in); got != tc.want {
			t.Errorf("Parse(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestErrorText: the one error type reads "FILE:LINE:COL: message" when it knows where, its
// message otherwise, its cause's when it has no message; Wrap puts the cause's text in the
// message once.
func TestErrorText(t *testing.T) {
	at := fault.Position{Filename: "cell.go", Offset: 12, Line: 2, Column: 5}
	tests := []struct {
		name string
		err  *fault.Error
		want string
	}{
		{"message", fault.New(fault.Code, "x is %d", 1), "x is 1"},
		{"position", &fault.Error{Kind: fault.Code, Pos: at, Msg: "undefined: y"}, "cell.go:2:5: undefined: y"},
		{"cause only", &fault.Error{Kind: fault.Code, Err: io.EOF}, "EOF"},
		{"cause kept out of a whole message", &fault.Error{Kind: fault.Code, Msg: "read failed (EOF)", Err: io.EOF}, "read failed (EOF)"},
		{"wrap", fault.Wrap(fault.Denied, io.EOF, "read"), "read: EOF"},
		{"wrap, no message", fault.Wrap(fault.Denied, io.EOF, ""), "EOF"},
		{"wrap, no cause", fault.Wrap(fault.Denied, nil, "read"), "read"},
		{"unknown position", &fault.Error{Kind: fault.Code, Pos: fault.Position{Filename: "cell.go"}, Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
	}
	for _, tc := range []struct {
		p    fault.Position
		want string
	}{{at, "cell.go:2:5"}, {fault.Position{Filename: "cell.go"}, "cell.go"}, {fault.Position{}, "-"}} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestStopped: work whose context ended is a timeout when the deadline passed, canceled when its
// caller stopped it, with the cause kept.
func TestStopped(t *testing.T) {
	dl, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-dl.Done()
	if err := fault.Stopped(dl, "the cell"); err.Kind != fault.Timeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the deadline: %v (%s); want a timeout", err, err.Kind)
	}
	why := errors.New("stopped by SIGINT")
	cc, stop := context.WithCancelCause(context.Background())
	stop(why)
	if err := fault.Stopped(cc, "the cell"); err.Kind != fault.Canceled || !errors.Is(err, why) || err.Error() != "the cell: stopped by SIGINT" {
		t.Errorf("cancelled: %v (%s); want canceled with the cause", err, err.Kind)
	}
	if fault.Parse("canceled") != fault.Canceled || fault.Parse("unavailable") != fault.Unavailable {
		t.Error("the new kinds are not in the closed set")
	}
}
