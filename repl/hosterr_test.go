package repl

import (
	"context"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

// kindHost fails every call with an error of one kind.
type kindHost struct{ kind fault.Kind }

func (h kindHost) Call(ctx context.Context, name string, args []any) (any, error) {
	return nil, fault.New(h.kind, "%s refused by the host (%s)", name, h.kind)
}

// TestHostCallErrorKeepsItsKind: an error a Host returns crosses to the worker with its kind, so
// a cell that does not catch it ends with that kind (it used to cross as bare text and end as
// code), in Go and in JS, and the message is the host's.
func TestHostCallErrorKeepsItsKind(t *testing.T) {
	cells := map[string]string{"js": `llm_query("hello")`, "go": `print(llm_query("hello"))`}
	for _, lang := range []string{"js", "go"} {
		for _, kind := range []fault.Kind{fault.Limit, fault.Denied, fault.Timeout} {
			o := realOptions(t, lang)
			o.Host = kindHost{kind}
			s := open(t, o)
			r := run(t, s, cells[lang])
			if got := fault.KindOf(r.Err); got != kind || !strings.Contains(r.Err.Error(), "refused by the host") {
				t.Errorf("%s, host error of kind %s: the cell ended with kind %q: %v", lang, kind, got, r.Err)
			}
		}
	}
}
