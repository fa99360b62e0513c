package controller

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// lastFeedback is the feedback message of root call i (0-based).
func lastFeedback(m *scripted, i int) string {
	msgs := m.seen[i]
	return msgs[len(msgs)-1].Content
}

// TestTimeoutStreakNamesCellTimeout: blocks that keep running past the block time limit stop
// the run with that limit and its flag named, and the feedback names the limit each time.
func TestTimeoutStreakNamesCellTimeout(t *testing.T) {
	spin := fenced("js", `let n = 0; for (let i = 0; i < 1e15; i++) { n += i % 7 }`)
	m := &scripted{replies: []string{spin, spin, spin}}
	cfg := cfgFor(t, "js", m)
	cfg.Session.CellTimeout = 300 * time.Millisecond
	out := Run(context.Background(), cfg)
	if !errors.Is(out.Err, fault.Timeout) || !strings.Contains(out.Err.Error(), "block time limit (300ms): raise --cell-timeout") {
		t.Fatalf("got %v; want a timeout naming the block time limit and --cell-timeout", out.Err)
	}
	if fb := lastFeedback(m, 1); !strings.Contains(fb, "The block time limit is 300ms") || strings.Count(fb, "ran past") != 1 {
		t.Errorf("feedback after a timed-out block = %q; want the limit named", fb)
	}
}

// TestFailedBlockVariables: names only a failed block introduced are not listed among the
// variables (it may have stopped before assigning them), but
// on a line of their own, with what they hold, until a block that works uses them.
func TestFailedBlockVariables(t *testing.T) {
	m := &scripted{replies: []string{
		fenced("js", `let kept = 1; print(kept)`),
		fenced("js", `let ghost = undefinedThing(); let later = 2`),
		fenced("js", `print(kept)`),
		fenced("js", `later = 3; print(later)`),
		fenced("js", `FINAL(kept)`),
	}}
	if out := Run(context.Background(), cfgFor(t, "js", m)); out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	const partial = "Variables a failed block introduced (they hold what it set before it stopped, if anything): "
	line := func(fb, prefix string) string {
		i := strings.Index(fb, prefix)
		if i < 0 {
			return ""
		}
		return strings.SplitN(fb[i+len(prefix):], "\n", 2)[0]
	}
	for _, tc := range []struct {
		call         int
		vars, failed string
	}{
		{1, "kept number", ""},
		{2, "kept number", "ghost undefined, later undefined"},
		{3, "kept number", "ghost undefined, later undefined"},
		{4, "kept number, later number", "ghost undefined"},
	} {
		fb := lastFeedback(m, tc.call)
		if got := line(fb, "Variables: "); got != tc.vars {
			t.Errorf("after reply %d: variables %q; want %q", tc.call, got, tc.vars)
		}
		if got := line(fb, partial); got != tc.failed {
			t.Errorf("after reply %d: a failed block's variables %q; want %q", tc.call, got, tc.failed)
		}
	}
}

// TestTimedOutBlockVariables: the variables of a block the time limit stopped are listed apart
// with the warning that a restart loses them (that block is not replayed); those of a block that
// failed by itself come back after a restart, and get no such warning.
func TestTimedOutBlockVariables(t *testing.T) {
	m := &scripted{replies: []string{
		fenced("js", `let thrown = 1; throw new Error("boom")`),
		fenced("js", `let slow = 1; for (let i = 0; i < 1e15; i++) { slow += i % 7 }`),
		fenced("js", `FINAL("done")`),
	}}
	cfg := cfgFor(t, "js", m)
	cfg.Session.CellTimeout = 300 * time.Millisecond
	if out := Run(context.Background(), cfg); out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	const warn = "; those of a block stopped by a limit are lost if the REPL restarts"
	if fb := lastFeedback(m, 1); !strings.Contains(fb, "Variables a failed block introduced (they hold what it set before it stopped, if anything): thrown") {
		t.Errorf("after a block that threw: %q; want its variable listed apart, without the warning", fb)
	}
	if fb := lastFeedback(m, 2); !strings.Contains(fb, "if anything"+warn+"): ") || !strings.Contains(fb, "slow") {
		t.Errorf("after a timed-out block: %q; want the warning", fb)
	}
}

// TestRunScript: a script's llm_query goes to the model under the run's caps, its cell and
// sub-calls reach the Observer, and its errors name the script's file.
func TestRunScript(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(log, []byte("INFO a\nERROR b\nERROR c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sess := repl.Options{Lang: "js", Contexts: []string{log}, Worker: testWorker, CellTimeout: 20 * time.Second}
	m := &scripted{sub: func(p string) (string, error) { return "seen: " + p, nil }}
	obs := &recording{}
	so := RunScript(context.Background(), Config{Model: m, Session: sess, Observer: obs}, "tally.js",
		`const n = count(context, "ERROR"); print(llm_query("how bad is " + n + "?")); FINAL(n)`)
	if so.Err != nil || so.Stdout != "seen: how bad is 2?\n" || so.Final == nil || *so.Final != "2" || so.SubCalls != 1 {
		t.Fatalf("got %+v; want the sub-call's answer printed and FINAL 2", so)
	}
	if len(obs.cells) != 1 || len(obs.subs) != 1 || len(obs.its) != 1 || obs.its[0].Final == nil {
		t.Errorf("observer saw %d cells, %d sub-calls, %d iterations; want 1 each, with the answer", len(obs.cells), len(obs.subs), len(obs.its))
	}
	if got := strings.Join(obs.busy, "|"); got != "running tally.js|" {
		t.Errorf("Busy calls = %q; want the script while it runs, then nothing", got)
	}

	// The run's caps hold: a fourth sub-call past --max-subcalls 3 fails the run, even if caught.
	so = RunScript(context.Background(), Config{Model: m, Session: sess, MaxSubCalls: 3}, "many.js",
		`for (let i = 0; i < 4; i++) { try { llm_query("q" + i) } catch (e) { print("caught") } }`)
	if !errors.Is(so.Err, fault.Limit) || !strings.Contains(so.Err.Error(), "--max-subcalls") {
		t.Errorf("got %v; want the sub-call cap", so.Err)
	}

	// Without a model, llm_query says what to configure.
	so = RunScript(context.Background(), Config{Session: sess}, "ask.js", `llm_query("hi")`)
	if so.Err == nil || !strings.Contains(so.Err.Error(), "set RLM_MODEL") {
		t.Errorf("got %v; want an error that says how to configure a model", so.Err)
	}

	// Errors name the file, for runtime errors and rejections alike.
	for _, src := range []string{"let x = 1;\nnull.x", "eval('1')"} {
		so = RunScript(context.Background(), Config{Session: sess}, "dir/solve.js", src)
		if so.Err == nil || !strings.Contains(so.Err.Error(), "dir/solve.js:") || strings.Contains(so.Err.Error(), "cell.js") {
			t.Errorf("%q: error %v; want it to name dir/solve.js, not cell.js", src, so.Err)
		}
	}
}

// recording is an Observer that keeps what it is told.
type recording struct {
	nopObserver
	cells    []Cell
	subs     []SubCall
	its      []Iteration
	busy     []string
	progress []string
}

func (r *recording) Cell(c Cell)            { r.cells = append(r.cells, c) }
func (r *recording) SubCall(sc SubCall)     { r.subs = append(r.subs, sc) }
func (r *recording) Iteration(it Iteration) { r.its = append(r.its, it) }
func (r *recording) Busy(what string)       { r.busy = append(r.busy, what) }
func (r *recording) Progress(msg string)    { r.progress = append(r.progress, msg) }

// TestFeedbackVariablesHaveTypes: the variables line gives each variable's type, and its
// length when it has one, as the session language writes them.
func TestFeedbackVariablesHaveTypes(t *testing.T) {
	for _, tc := range []struct {
		lang, code string
		want       string
	}{
		{"go", "lines := strings.Split(text(context), \"\\n\")\ncounts := map[string]int{\"a\": 1}\nn := len(lines)\nprint(n)",
			"Variables: counts map[string]int(1), lines []string(1177), n int\n"},
		{"js", "const lines = text(context).split(\"\\n\"); const counts = new Map([[\"a\", 1]]); const n = lines.length; print(n)",
			"Variables: counts Map(1), lines Array(1177), n number\n"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			m := &scripted{replies: []string{fenced(tc.lang, tc.code), fenced(tc.lang, "FINAL(n)")}}
			if out := Run(context.Background(), cfgFor(t, tc.lang, m)); out.Err != nil {
				t.Fatalf("Run: %v", out.Err)
			}
			if fb := lastFeedback(m, 1); !strings.Contains(fb, tc.want) {
				t.Errorf("feedback:\n%s\nwant it to hold %q", fb, tc.want)
			}
		})
	}
}

// leftover is a scripted model that also states what is left of its budget, as llm.Client does.
type leftover struct{ *scripted }

func (leftover) Remaining() llm.Spent { return llm.Spent{Calls: 75, Tokens: 178_412} }

// TestFeedbackSaysWhatIsLeft: each feedback ends with what is left of the run's caps after the
// reply's blocks: replies, sub-calls and batches, and the model budget when the model knows it.
func TestFeedbackSaysWhatIsLeft(t *testing.T) {
	code := `const a = llm_query_batched(["one", "two"]); const b = llm_query("three"); print(a.length + 1)`
	m := &scripted{replies: []string{fenced("js", code), fenced("js", "FINAL(a[0])")},
		sub: func(p string) (string, error) { return "ok " + p, nil }}
	cfg := cfgFor(t, "js", leftover{m})
	cfg.MaxIterations = 10
	if out := Run(context.Background(), cfg); out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	want := "Left: 9 replies, 29 sub-calls in at most 7 batches, 178,412 tokens and 75 API calls (replies and sub-calls together).\n"
	if fb := lastFeedback(m, 1); !strings.HasSuffix(fb, want) {
		t.Errorf("feedback:\n%s\nwant it to end with %q", fb, want)
	}

	// Under a dollar budget, the dollars left too.
	m = &scripted{replies: []string{fenced("js", code), fenced("js", "FINAL(a[0])")},
		sub: func(p string) (string, error) { return "ok " + p, nil }}
	cfg = cfgFor(t, "js", costly{leftover{m}})
	if out := Run(context.Background(), cfg); out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	want = ", 178,412 tokens, $1.24 and 75 API calls (replies and sub-calls together).\n"
	if fb := lastFeedback(m, 1); !strings.HasSuffix(fb, want) {
		t.Errorf("feedback:\n%s\nwant it to end with %q", fb, want)
	}
}

// costly is a model under a $2 budget with $1.236 left.
type costly struct{ leftover }

func (costly) MaxCost() float64 { return 2 }
func (costly) Remaining() llm.Spent {
	return llm.Spent{Calls: 75, Tokens: 178_412, Cost: llm.Cost{USD: 1.236}}
}

// TestFailedSlotText: a failed slot of llm_query_batched holds "error: " and the reason, as the
// prompt says, and the other slots their answers.
func TestFailedSlotText(t *testing.T) {
	code := `const a = llm_query_batched(["good", "bad"]); FINAL(a.join(" | "))`
	m := &scripted{replies: []string{fenced("js", code)}, sub: func(p string) (string, error) {
		if p == "bad" {
			return "", errors.New("the server refused it")
		}
		return "fine", nil
	}}
	out := Run(context.Background(), cfgFor(t, "js", m))
	if out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	if got := out.Answer; !strings.HasPrefix(got, "fine | error: ") || !strings.Contains(got, "the server refused it") {
		t.Errorf("answer = %q; want the good slot's answer and the failed one as \"error: \" and the reason", got)
	}
}

// TestCappedOutputShownOnce: an output the engine cut at its cap is shown as its head and one
// line with the true length, never as head and tail of the kept part with two markers.
func TestCappedOutputShownOnce(t *testing.T) {
	m := &scripted{replies: []string{
		fenced("js", `for (let i = 0; i < 30000; i++) print("row " + i)`),
		fenced("js", `FINAL("done")`),
	}}
	if out := Run(context.Background(), cfgFor(t, "js", m)); out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	fb := lastFeedback(m, 1)
	if strings.Contains(fb, "omitted") || strings.Contains(fb, "output truncated") {
		t.Errorf("feedback has a second marker:\n%s", fb[max(0, len(fb)-400):])
	}
	if !strings.HasPrefix(fb, "row 0\nrow 1\n") || !strings.Contains(fb, "\n[output cut: the block printed 288,890 characters; the first 20,000 are shown]\n") {
		t.Errorf("feedback head %q … tail %q; want the head and one line with the true length", fb[:20], fb[max(0, len(fb)-300):])
	}
}

// TestErrorQuotesItsLine: an error that points at a line of the block is followed by that line,
// in both languages; one that names no line is not.
func TestErrorQuotesItsLine(t *testing.T) {
	for _, c := range []struct{ lang, code, want string }{
		{"js", "const rows = [\"a,b\"];\nconst n = rows.length;\nconst notes = rows.map(r => r.split(\",\")[5].trim());", "    3 | const notes = rows.map(r => r.split(\",\")[5].trim());\n"},
		{"go", "rows := []string{\"a\"}\nn := len(rows)\nprint(rows[n])", "    3 | print(rows[n])\n"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			m := &scripted{replies: []string{fenced(c.lang, c.code), fenced(c.lang, `FINAL("x")`)}}
			if out := Run(context.Background(), cfgFor(t, c.lang, m)); out.Err != nil {
				t.Fatalf("Run: %v", out.Err)
			}
			fb := lastFeedback(m, 1)
			i := strings.Index(fb, "Error (")
			if i < 0 || !strings.Contains(fb[i:], "\n"+c.want) {
				t.Errorf("feedback:\n%s\nwant the error followed by %q", fb, c.want)
			}
		})
	}
	if got := sourceLine("a\nb", "the sub-call cap was reached"); got != "" {
		t.Errorf("sourceLine without a position = %q; want \"\"", got)
	}
}

// TestOversizedBatchIsRefusedAlone: a batch that asks for more sub-calls than are left fails
// alone, makes none, and says how many may be sent; the run goes on, and a smaller batch works.
// Once all are used, a further call ends the run.
func TestOversizedBatchIsRefusedAlone(t *testing.T) {
	m := &scripted{replies: []string{
		fenced("js", `const a = llm_query_batched(["1", "2", "3", "4", "5"]); print(a.length)`),
		fenced("js", `const b = llm_query_batched(["1", "2", "3"]); print(b.length)`),
		fenced("js", `llm_query("one more")`),
	}, sub: func(p string) (string, error) { return "ok", nil }}
	cfg := cfgFor(t, "js", m)
	cfg.MaxSubCalls = 3
	out := Run(context.Background(), cfg)
	if !errors.Is(out.Err, fault.Limit) || !strings.Contains(out.Err.Error(), "sub-call cap reached: 3 of 3 sub-calls used") {
		t.Fatalf("got %v; want the run ended by the exhausted cap", out.Err)
	}
	want := "this call asks for 5 sub-calls, but 3 of the run's 3 are left and none was made: call it again with at most 3 prompts in all (put several slices in each prompt); those are the last sub-calls of the run"
	if fb := lastFeedback(m, 1); !strings.Contains(fb, want) {
		t.Errorf("feedback after the oversized batch:\n%s\nwant %q", fb, want)
	}
	if fb := lastFeedback(m, 2); !strings.HasPrefix(fb, "3\n") {
		t.Errorf("feedback after the smaller batch:\n%s\nwant it to print 3", fb)
	}
	if m.subs != 3 {
		t.Errorf("%d sub-calls made; want 3 (none for the refused batch)", m.subs)
	}
}

// TestTimeoutFeedbackSaysWhatPrinted: the note after a block that ran past its limit points at
// the output above only when there is some.
func TestTimeoutFeedbackSaysWhatPrinted(t *testing.T) {
	for _, c := range []struct{ stdout, want string }{
		{"", "The block time limit is 2 min; it printed nothing before it was stopped."},
		{"partial\n", "The block time limit is 2 min; the output above is what it printed before it was stopped."},
	} {
		f := &feedbackBuilder{blockTimeout: 2 * time.Minute}
		f.cell(0, 1, "x := 1", repl.Result{Stdout: c.stdout, Err: fault.New(fault.Timeout, "the cell ran past its time limit (2m0s) and was stopped; make it do less work per cell")}, 1000)
		if got := f.b.String(); !strings.Contains(got, c.want) {
			t.Errorf("stdout %q: got %q, want it to contain %q", c.stdout, got, c.want)
		}
	}
}
