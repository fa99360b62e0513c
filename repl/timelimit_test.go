package repl

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// A cell stopped by its time limit says which limit, in both engines, not "context deadline
// exceeded".
func TestTimeLimitIsNamed(t *testing.T) {
	loops := map[string]string{
		"go": "n := 0\nfor i := 0; i < 1<<40; i++ {\n\tn += i\n}\nprint(n)",
		"js": "let n = 0; for (let i = 0; i < 2 ** 40; i++) n += i; print(n)",
	}
	for lang, loop := range loops {
		t.Run(lang, func(t *testing.T) {
			o := realOptions(t, lang)
			o.CellTimeout, o.KillGrace = 300*time.Millisecond, 2*time.Second
			s := open(t, o)
			r := run(t, s, loop)
			want := "the cell ran past its time limit (300ms) and was stopped; make it do less work per cell"
			if !errors.Is(r.Err, fault.Timeout) || !strings.Contains(r.Err.Error(), want) || strings.Contains(r.Err.Error(), "context deadline") {
				t.Errorf("got %v, want a timeout saying %q", r.Err, want)
			}
		})
	}
}
