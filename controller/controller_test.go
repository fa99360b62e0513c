package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/worker"
)

func TestMain(m *testing.M) {
	if os.Getenv("RLM_CONTROLLER_TEST_WORKER") == "1" {
		if err := worker.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

var testWorker = repl.WorkerCommand{Args: []string{"-test.run=^$"}, Env: []string{"RLM_CONTROLLER_TEST_WORKER=1"}}

// scripted is a fake root model: each root call gets the next reply; sub-calls are answered by
// sub. It records the messages of every root call.
type scripted struct {
	mu      sync.Mutex
	replies []string
	sub     func(prompt string) (string, error)
	seen    [][]llm.Message
	subs    int
}

func (s *scripted) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if req.Agent == "sub" {
		s.subs++
		if s.sub == nil {
			return llm.Response{}, errors.New("no sub-model in this test")
		}
		s.mu.Unlock()
		txt, err := s.sub(req.Messages[len(req.Messages)-1].Content)
		s.mu.Lock()
		return llm.Response{Text: txt}, err
	}
	s.seen = append(s.seen, req.Messages)
	if len(s.replies) == 0 {
		return llm.Response{Text: "I have nothing more to say."}, nil
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return llm.Response{Text: r, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
}

// bigContext writes a context over DirectThreshold characters with one needle in it.
func bigContext(t *testing.T) string { return writeBig(t.TempDir()) }

func writeBig(dir string) string {
	var b strings.Builder
	for i := 0; b.Len() < DirectThreshold+10_000; i++ {
		fmt.Fprintf(&b, "2026-11-22 line %d: routine entry, nothing to see\n", i)
		if i == 900 {
			b.WriteString("2026-11-22 ALERT the magic number is 4417\n")
		}
	}
	p := filepath.Join(dir, "big.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		panic(err)
	}
	return p
}

func cfgFor(t *testing.T, lang string, m Model) Config {
	return Config{
		Question: "What is the magic number?",
		Model:    m,
		Session:  repl.Options{Lang: lang, Contexts: []string{bigContext(t)}, Worker: testWorker, CellTimeout: 20 * time.Second},
	}
}

func fenced(tag, code string) string { return "Let me look.\n```" + tag + "\n" + code + "\n```\n" }

func TestRunAnswers(t *testing.T) {
	tests := []struct {
		lang    string
		replies []string
	}{
		{"js", []string{
			fenced("repl", `const hits = search(context, "magic number is [0-9]+"); print(hits.length, hits[0].text)`),
			"FINAL(4417) is what I would say, but in code:\n" + fenced("js", `FINAL(hits[0].text.split(" ").pop())`),
		}},
		{"go", []string{
			fenced("go", `hits := search(context, "magic number is [0-9]+")
print(len(hits), hits[0].Text)`),
			fenced("repl", `import "strings"

parts := strings.Fields(hits[0].Text)
FINAL(parts[len(parts)-1])`),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			m := &scripted{replies: tt.replies}
			obs := &recording{}
			cfg := cfgFor(t, tt.lang, m)
			cfg.Observer = obs
			out := Run(context.Background(), cfg)
			if out.Err != nil {
				t.Fatalf("Run: %v\nmessages: %q", out.Err, m.seen[1])
			}
			if out.Answer != "4417" || out.Iterations != 2 || out.Mode != Loop {
				t.Errorf("got answer %q after %d iterations (mode %d); want 4417 after 2 in the loop", out.Answer, out.Iterations, out.Mode)
			}
			// Progress lines during long work read what the run waits on, and that it ended.
			wantBusy := "iteration 1: waiting for the root model||iteration 1: running cell 1 of 1||iteration 2: waiting for the root model||iteration 2: running cell 1 of 1|"
			if got := strings.Join(obs.busy, "|"); got != wantBusy {
				t.Errorf("Busy calls = %q; want %q", got, wantBusy)
			}
			fb := m.seen[1][len(m.seen[1])-1].Content
			if !strings.Contains(fb, "1 magic number is 4417") || !strings.Contains(fb, "Variables: ") {
				t.Errorf("feedback after the first cell = %q; want the printed hit and the variables", fb)
			}
			first := m.seen[0][1].Content
			if strings.Contains(first, "magic number is 4417") {
				t.Errorf("the first message leaked the needle: the context must not be sent")
			}
			// The reference visualizer shows the question it finds as original query: "…".
			if !strings.Contains(first, `original query: "What is the magic number?"`) {
				t.Errorf("the first message does not restate the question as the reference visualizer reads it:\n%s", first)
			}
		})
	}
}

func TestProseFinalDoesNotCount(t *testing.T) {
	m := &scripted{replies: []string{"FINAL(42)", "The answer is FINAL(\"42\")."}}
	cfg := cfgFor(t, "js", m)
	cfg.MaxIterations = 2
	out := Run(context.Background(), cfg)
	if !errors.Is(out.Err, fault.Limit) || out.Answer != "" {
		t.Fatalf("got %q, %v; want no answer and a limit error", out.Answer, out.Err)
	}
	if out.Iterations != 3 {
		t.Errorf("iterations = %d; want 2 and the forced final call", out.Iterations)
	}
	if want := "no answer after 2 replies (--max-iterations) and the reply asked for a final answer: it had no code block (an answer written in prose is not recorded)"; !strings.Contains(out.Err.Error(), want) {
		t.Errorf("error %q; want it to say %q", out.Err, want)
	}
	last := m.seen[2][len(m.seen[2])-1].Content
	if !strings.Contains(last, "used all 2 replies") || !strings.Contains(last, "if you found nothing that answers the question") {
		t.Errorf("forced final message = %q", last)
	}
	if !strings.Contains(m.seen[1][len(m.seen[1])-1].Content, "no code block") {
		t.Errorf("a reply without code must be told so")
	}
}

func TestForcedFinalAnswers(t *testing.T) {
	m := &scripted{replies: []string{fenced("repl", `print("x")`), fenced("repl", `FINAL("late")`)}}
	cfg := cfgFor(t, "js", m)
	cfg.MaxIterations = 1
	obs := &iterations{}
	cfg.Observer = obs
	out := Run(context.Background(), cfg)
	if out.Err != nil || out.Answer != "late" {
		t.Fatalf("got %q, %v; want the forced call's answer", out.Answer, out.Err)
	}
	if len(obs.its) != 2 || obs.its[0].Forced || !obs.its[1].Forced || obs.its[1].Final == nil {
		t.Errorf("iterations reported: %+v; want the second, and only it, marked Forced with the answer", obs.its)
	}
}

// iterations is an Observer that keeps the iterations.
type iterations struct {
	nopObserver
	its []Iteration
}

func (o *iterations) Iteration(it Iteration) { o.its = append(o.its, it) }

func TestSubCallsBatchedInOrder(t *testing.T) {
	var mu sync.Mutex
	active, peak := 0, 0
	m := &scripted{sub: func(p string) (string, error) {
		mu.Lock()
		active++
		peak = max(peak, active)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		active--
		mu.Unlock()
		if p == "bad" {
			return "", errors.New("backend said no")
		}
		return "A:" + p, nil
	}}
	m.replies = []string{fenced("js", `const r = llm_query_batched(["a","b","bad","c","d","e"]); FINAL(r.join("|"))`)}
	out := Run(context.Background(), cfgFor(t, "js", m))
	want := "A:a|A:b|error: backend said no|A:c|A:d|A:e"
	if out.Err != nil || out.Answer != want {
		t.Fatalf("got %q, %v; want %q", out.Answer, out.Err, want)
	}
	if peak > limits.BatchWidth || peak < 2 {
		t.Errorf("peak concurrency %d; want 2..%d", peak, limits.BatchWidth)
	}
	if out.SubCalls != 6 {
		t.Errorf("sub-calls = %d; want 6", out.SubCalls)
	}
}

func TestSubCallCapStopsTheRun(t *testing.T) {
	m := &scripted{sub: func(p string) (string, error) { return "ok", nil }}
	m.replies = []string{fenced("js", `for (let i = 0; i < 5; i++) { llm_query("q" + i) }; FINAL("done")`)}
	cfg := cfgFor(t, "js", m)
	cfg.MaxSubCalls = 3
	out := Run(context.Background(), cfg)
	if !errors.Is(out.Err, fault.Limit) || !strings.Contains(out.Err.Error(), "--max-subcalls") {
		t.Fatalf("got %q, %v; want a limit error naming --max-subcalls", out.Answer, out.Err)
	}
	if m.subs != 3 {
		t.Errorf("sub-calls made = %d; want 3", m.subs)
	}
}

func TestDirectModeForSmallInputs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "small.txt")
	if err := os.WriteFile(p, []byte("the colour is teal\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &scripted{replies: []string{"teal"}}
	obs := &recording{}
	out := Run(context.Background(), Config{Question: "colour?", Model: m, Session: repl.Options{Contexts: []string{p}, Worker: testWorker}, Observer: obs})
	if out.Err != nil || out.Answer != "teal" || out.Mode != Direct {
		t.Fatalf("got %q, %v, mode %d; want teal from a direct call", out.Answer, out.Err, out.Mode)
	}
	// The user is told that no code ran, and how to have it run.
	if want := "the input is 19 characters, under 50000: one model call answers with the whole input in its prompt, no code runs (--rlm to explore it with the REPL loop instead)"; strings.Join(obs.progress, "|") != want {
		t.Errorf("progress = %q; want %q", obs.progress, want)
	}
	if !strings.Contains(m.seen[0][1].Content, "the colour is teal") {
		t.Errorf("a direct call must carry the context")
	}
}

func TestTimeoutEndsTheRun(t *testing.T) {
	m := &scripted{replies: []string{fenced("js", `let n = 0; for (let i = 0; i < 1e15; i++) { n += i % 7 }`)}}
	cfg := cfgFor(t, "js", m)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	out := Run(ctx, cfg)
	if !errors.Is(out.Err, fault.Timeout) {
		t.Fatalf("got %v; want a timeout", out.Err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("took %v after a 3 s deadline", d)
	}
}

func TestFailedStreakStops(t *testing.T) {
	m := &scripted{replies: []string{fenced("js", `undefinedThing()`), fenced("js", `null.x`), fenced("js", `throw new Error("third")`), fenced("js", `FINAL(1)`)}}
	out := Run(context.Background(), cfgFor(t, "js", m))
	if !errors.Is(out.Err, fault.Code) || !strings.Contains(out.Err.Error(), "no code block worked in 3 replies in a row") || out.Iterations != 3 {
		t.Fatalf("got %v after %d iterations; want a code error after 3", out.Err, out.Iterations)
	}
	// The stop names what failed and its fix: code errors are not a time limit.
	if msg := out.Err.Error(); strings.Contains(msg, "--cell-timeout") || !strings.Contains(msg, "third") || !strings.Contains(msg, "stronger model") {
		t.Errorf("stop message = %q; want the last error and a fix for failing code, without --cell-timeout", msg)
	}
	// After the second failed reply, and only then, the feedback warns that one more ends the run.
	for i, msgs := range m.seen {
		warned := strings.Contains(msgs[len(msgs)-1].Content, "if none works in your next reply, the run ends")
		if warned != (i == 2) {
			t.Errorf("root call %d: warned = %v; want the warning in call 3 only", i+1, warned)
		}
	}
	// One working block resets the streak.
	m = &scripted{replies: []string{fenced("js", `nope()`), fenced("js", `nope()`), fenced("js", `print(1)`), fenced("js", `nope()`), fenced("js", `nope()`), fenced("js", `FINAL(2)`)}}
	if out := Run(context.Background(), cfgFor(t, "js", m)); out.Err != nil || out.Answer != "2" {
		t.Fatalf("got %q, %v; want 2: a working block resets the streak", out.Answer, out.Err)
	}
}

func TestForcedDirect(t *testing.T) {
	m := &scripted{replies: []string{"seen"}}
	cfg := cfgFor(t, "js", m)
	cfg.Mode = Direct
	out := Run(context.Background(), cfg)
	if out.Err != nil || out.Mode != Direct {
		t.Fatalf("got %v, mode %d", out.Err, out.Mode)
	}
	if !strings.Contains(m.seen[0][1].Content, "magic number is 4417") {
		t.Errorf("a forced direct call over a large input must carry the whole input")
	}
}

// TestForcedDirectLargeInput: a forced direct call reads the whole input, up to MaxDirectChars,
// however many peeks that takes.
func TestForcedDirectLargeInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "large.txt")
	body := strings.Repeat("filler line without the answer\n", 13_000) + "the end marker is 9931\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &scripted{replies: []string{"9931"}}
	out := Run(context.Background(), Config{Question: "marker?", Model: m, Mode: Direct, Session: repl.Options{Contexts: []string{p}, Worker: testWorker}})
	if out.Err != nil {
		t.Fatalf("Run: %v", out.Err)
	}
	if got := m.seen[0][1].Content; !strings.Contains(got, "the end marker is 9931") {
		t.Errorf("the direct prompt lacks the end of a %d-character input", len(body))
	}
}

// TestCapSaysWhy: the iteration cap's error says why the last reply recorded no answer.
func TestCapSaysWhy(t *testing.T) {
	for _, tc := range []struct{ last, want string }{
		{"The answer is 42.", "it had no code block (an answer written in prose is not recorded)"},
		{fenced("js", `print(1)`), "its code blocks did not call FINAL"},
		{fenced("js", `undefinedThing()`), "its code blocks did not call FINAL, and the last one to fail said: "},
		{fenced("js", `FINAL("x"); undefinedThing()`), "it called FINAL in a block that then failed (cell.js:1:"},
	} {
		m := &scripted{replies: []string{fenced("js", `print(0)`), tc.last}}
		cfg := cfgFor(t, "js", m)
		cfg.MaxIterations = 1
		out := Run(context.Background(), cfg)
		if !errors.Is(out.Err, fault.Limit) || !strings.Contains(out.Err.Error(), "no answer after 1 reply (--max-iterations) and the reply asked for a final answer: "+tc.want) {
			t.Errorf("last reply %q: %v; want it to say %q", tc.last, out.Err, tc.want)
		}
	}
}
