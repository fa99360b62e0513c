package mcpserver_test

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/mcpserver"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/source"
)

// hostile are sources that once cost the server's own process: after a keyword used as a
// property name (x.in) the JS pre-scan took "/" for the start of a regex and missed what came
// next, so the parser met 130,000 open brackets (about 0.8 GB per call, most of it kept) or
// 42,000 arrows (15 to 60 s of CPU per call).
var hostile = map[string]string{
	"brackets": "x.in / " + strings.Repeat("(", 130000) + "1 / g",
	"arrows":   "x.in / " + strings.Repeat("a=>", 42000) + "1 / g",
}

// peakRSS is this process's peak resident memory, in bytes (VmHWM).
func peakRSS(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// cpu is the CPU time this process has used (not its children).
func cpu(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestValidateConfined: the validate tool parses a client's code in a confined worker, never in
// the server: four hostile calls at once leave the server's peak memory and CPU time where they
// were, and each answers within its deadline (findings, or a limit or timeout error that says
// what to do).
func TestValidateConfined(t *testing.T) {
	_, cs := start(t, mcpserver.Options{})
	rss, used := peakRSS(t), cpu(t)
	start := time.Now()
	var wg sync.WaitGroup
	for _, name := range []string{"brackets", "arrows", "brackets", "arrows"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "validate", Arguments: map[string]any{"lang": "js", "code": hostile[name]}})
			took := time.Since(start)
			switch {
			case err != nil:
				t.Errorf("%s: protocol error %v", name, err)
			case took > 15*time.Second:
				t.Errorf("%s: answered after %v; want within the deadline", name, took)
			case res.IsError && !strings.Contains(text(res), "validat"):
				t.Errorf("%s: %q; want findings or a refusal about the validation", name, text(res))
			}
			if err == nil {
				t.Logf("%s after %v: %.200s", name, took.Round(100*time.Millisecond), text(res))
			}
		}()
	}
	wg.Wait()
	grew, spent := peakRSS(t)-rss, cpu(t)-used
	if grew > 200<<20 || spent > 5*time.Second {
		t.Errorf("four hostile validations: the server's peak memory grew by %d MiB and it spent %v of CPU; want the parsing out of its process", grew>>20, spent.Round(100*time.Millisecond))
	}
	t.Logf("the server's peak memory grew by %d MiB, its CPU time by %v", grew>>20, spent.Round(10*time.Millisecond))
}

// TestValidateBound: at most two validations run at once; a third waits briefly for its turn,
// then is refused with a message that says to call again, and the two answer as usual. (The two
// are held in front of the real validation by a FIFO whose open blocks.)
func TestValidateBound(t *testing.T) {
	path, unblock := fifo(t, t.TempDir())
	defer unblock()
	defer mcpserver.SetValidate(func(ctx context.Context, o repl.Options, name string, src []byte) (source.List, error) {
		if f, err := os.Open(path); err == nil {
			f.Close()
		}
		return repl.Validate(ctx, o, name, src)
	})()
	_, cs := start(t, mcpserver.Options{})
	var wg sync.WaitGroup
	results := make([]*mcp.CallToolResult, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = call(t, cs, "validate", map[string]any{"lang": "js", "code": "eval('1')"}, nil)
		}()
	}
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	res := call(t, cs, "validate", map[string]any{"lang": "js", "code": "print(1)"}, nil)
	if took := time.Since(start); !res.IsError || !strings.Contains(text(res), "already validating 2 sources, the most it does at once; call validate again in a moment") || took < time.Second || took > 5*time.Second {
		t.Errorf("a third validation at once: %q after %v; want refused after a brief wait", text(res), took)
	}
	unblock()
	wg.Wait()
	for i, r := range results {
		if r.IsError || !strings.Contains(text(r), "evaluator") {
			t.Errorf("validation %d: %q; want the finding", i, text(r))
		}
	}
	if res := call(t, cs, "validate", map[string]any{"lang": "go", "code": "x := 1\n_ = x"}, nil); res.IsError || !strings.HasPrefix(text(res), "ok") {
		t.Errorf("after: %q; want ok", text(res))
	}
}
