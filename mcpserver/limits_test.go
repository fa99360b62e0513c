package mcpserver_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestClientNumbers: every number a client sends is range-checked before it is converted. A
// number of seconds so large that it would wrap around to a negative duration (1e10, 1e308),
// zero, a negative one, one that rounds to nothing, and one above the server's cap are refused
// with the allowed range; so are counts of 0, below 0 and above the cap. Before the check, a
// sandbox opened with cell_timeout_seconds 1e10 had no cell deadline at all.
func TestClientNumbers(t *testing.T) {
	_, cs := start(t, mcpserver.Options{CellTimeout: 3 * time.Second, Timeout: 6 * time.Second, MaxIterations: 10,
		Replay: filepath.Join(demoDir, "model.json")})
	tests := []struct {
		tool string
		args map[string]any
		want string // a substring of the refusal
	}{
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 1e10}, "cell_timeout_seconds 1e+10 is above this server's cap of 3 seconds; ask for 0.001 to 3"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 1e308}, "above this server's cap of 3 seconds"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 9.3e9}, "above this server's cap of 3 seconds"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 3.5}, "above this server's cap of 3 seconds"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 0}, "must be a number of seconds from 0.001 to 3 (this server's cap), got 0; leave it out for 3"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": -1}, "from 0.001 to 3"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": -1e308}, "from 0.001 to 3"},
		{"sandbox_open", map[string]any{"lang": "js", "cell_timeout_seconds": 1e-12}, "from 0.001 to 3"},
		{"rlm_ask", ask(map[string]any{"timeout_seconds": 1e10}), "limits.timeout_seconds 1e+10 is above this server's cap of 6 seconds"},
		{"rlm_ask", ask(map[string]any{"timeout_seconds": 0}), "limits.timeout_seconds must be a number of seconds from 0.001 to 6"},
		{"rlm_ask", ask(map[string]any{"cell_timeout_seconds": 1e308}), "limits.cell_timeout_seconds 1e+308 is above this server's cap of 3 seconds"},
		{"rlm_ask", ask(map[string]any{"cell_timeout_seconds": 1e-300}), "from 0.001 to 3"},
		{"rlm_ask", ask(map[string]any{"max_iterations": 0}), "limits.max_iterations must be from 1 to 10 (this server's cap), got 0"},
		{"rlm_ask", ask(map[string]any{"max_iterations": 11}), "limits.max_iterations 11 is above this server's cap of 10; ask for 1 to 10 (the user sets the cap with rlm mcp --max-iterations)"},
		{"rlm_ask", ask(map[string]any{"max_sub_calls": -5}), "limits.max_sub_calls must be from 1 to 32"},
		{"rlm_ask", ask(map[string]any{"max_calls": 1 << 40}), "limits.max_calls 1099511627776 is above this server's cap of 80"},
		{"rlm_ask", ask(map[string]any{"max_tokens": 0}), "limits.max_tokens must be from 1 to 200000"},
	}
	for _, tt := range tests {
		var o openOut
		res := call(t, cs, tt.tool, tt.args, &o)
		if !res.IsError || !strings.Contains(text(res), tt.want) {
			t.Errorf("%s %v: %.300q; want refused with %q", tt.tool, tt.args, text(res), tt.want)
		}
		if o.Session != "" { // it opened: how long does a busy cell run?
			start := time.Now()
			call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 8000) {}"}, nil)
			t.Errorf("%s %v opened a session, and a busy cell ran %v under a 3 s cap", tt.tool, tt.args, time.Since(start).Round(100*time.Millisecond))
			call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
		}
	}
	// In range, and absent: the session opens, and its cells stop at the asked deadline.
	for _, secs := range []any{nil, 3, 0.5} {
		args := map[string]any{"lang": "js"}
		want := 3 * time.Second
		if secs != nil {
			args["cell_timeout_seconds"] = secs
			want = time.Duration(float64(time.Second) * float64(toFloat(secs)))
		}
		o := open(t, cs, args)
		var r execOut
		start := time.Now()
		call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 8000) {}"}, &r)
		took := time.Since(start)
		if r.Error == nil || r.Error.Kind != "timeout" || took < want || took > want+3*time.Second {
			t.Errorf("cell_timeout_seconds %v: a busy cell ended after %v with %+v; want a timeout at %v", secs, took, r.Error, want)
		}
		call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
	}
}

func ask(limits map[string]any) map[string]any {
	return map[string]any{"question": "q", "files": []string{"app.log"}, "limits": limits}
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}
