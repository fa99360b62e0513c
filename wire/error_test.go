package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

var at = fault.Position{Filename: "cell.js", Line: 3, Column: 7}

// TestErrorRoundTrip: an error crosses the protocol with its kind, message and position, and
// a kind outside the closed set (a hostile worker's) arrives as code.
func TestErrorRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sent     error
		wantKind fault.Kind
		wantPos  fault.Position
	}{
		{"kinded", fault.New(fault.Limit, "llm_query: 32 sub-calls used"), fault.Limit, fault.Position{}},
		{"no kind", errors.New("boom"), fault.Code, fault.Position{}},
		{"position", &fault.Error{Kind: fault.Timeout, Pos: at, Msg: "late"}, fault.Timeout, at},
		// Wrapped, the text no longer starts with the position: it travels inside the message.
		{"wrapped", fmt.Errorf("cell 3: %w", &fault.Error{Kind: fault.Code, Pos: at, Msg: "x"}), fault.Code, fault.Position{}},
		{"cause", fault.Wrap(fault.Denied, errors.New("EACCES"), "open /etc"), fault.Denied, fault.Position{}},
	} {
		b, err := json.Marshal(Call{Seq: 1, Err: ErrorOf(tc.sent)})
		if err != nil {
			t.Fatal(err)
		}
		var c Call
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		got := c.Err.Err()
		var fe *fault.Error
		if !errors.As(got, &fe) {
			t.Fatalf("%s: received %T, want a *fault.Error", tc.name, got)
		}
		pos := fe.Pos
		if !errors.Is(got, tc.wantKind) || got.Error() != tc.sent.Error() || pos != tc.wantPos {
			t.Errorf("%s: received %v (kind %q, pos %v); want kind %q, message %q, pos %v",
				tc.name, got, fault.KindOf(got), pos, tc.wantKind, tc.sent.Error(), tc.wantPos)
		}
	}
	for _, k := range fault.Kinds { // every kind of the closed set crosses as itself
		if got := fault.KindOf(ErrorOf(fault.New(k, "x")).Err()); got != k {
			t.Errorf("kind %q arrived as %q", k, got)
		}
	}
	forged := (&Error{Kind: "root", Message: "trust me"}).Err()
	if fault.KindOf(forged) != fault.Code {
		t.Errorf("a kind outside the closed set arrived as %q; want code", fault.KindOf(forged))
	}
	if (*Error)(nil).Err() != nil || ErrorOf(nil) != nil {
		t.Error("nil must stay nil both ways")
	}
}
