package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

// positioned is an error that knows where it is, as the engines' errors do.
type positioned struct{ error }

func (positioned) Position() string { return "cell.js:3:7" }

func (p positioned) Unwrap() error { return p.error }

// TestErrorRoundTrip: an error crosses the protocol with its kind, message and position, and
// a kind outside the closed set (a hostile worker's) arrives as code.
func TestErrorRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sent     error
		wantKind fault.Kind
		wantPos  string
	}{
		{"kinded", fault.New(fault.Limit, "llm_query: 32 sub-calls used"), fault.Limit, ""},
		{"no kind", errors.New("boom"), fault.Code, ""},
		{"position", positioned{fault.New(fault.Timeout, "late")}, fault.Timeout, "cell.js:3:7"},
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
		var pe interface{ Position() string }
		pos := ""
		if errors.As(got, &pe) {
			pos = pe.Position()
		}
		if !errors.Is(got, tc.wantKind) || got.Error() != tc.sent.Error() || pos != tc.wantPos {
			t.Errorf("%s: received %v (kind %q, pos %q); want kind %q, message %q, pos %q",
				tc.name, got, fault.KindOf(got), pos, tc.wantKind, tc.sent.Error(), tc.wantPos)
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
