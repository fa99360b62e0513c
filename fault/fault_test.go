package fault_test

import (
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
