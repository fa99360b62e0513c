package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// The acceptance tests of rlm batch and rlm worker: real processes (this test binary acting as
// rlm), a real embedded NATS JetStream server on loopback, and the fake model over real HTTP.

// batchModel is a fake model that answers "answer to question-NN" after latency, at a cost;
// slow, when set, may replace a reply (to keep a worker busy while it is killed).
type batchModel struct {
	srv  *llmtest.Server
	mu   sync.Mutex
	asks map[string]int // question → requests
	slow func(r llmtest.RecordedRequest, q string) bool
}

var questionNN = regexp.MustCompile(`question-\d+`)

func newBatchModel(t *testing.T, latency time.Duration, cost float64) *batchModel {
	m := &batchModel{srv: llmtest.New(), asks: map[string]int{}}
	m.srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		q := questionNN.FindString(r.LastUser())
		m.mu.Lock()
		m.asks[q]++
		slow := m.slow
		m.mu.Unlock()
		rep := llmtest.Reply{Text: "answer to " + q, Latency: latency, Cost: &cost}
		if slow != nil && slow(r, q) {
			rep.Latency = 20 * time.Second
		}
		return rep
	})
	t.Cleanup(m.srv.Close)
	return m
}

func (m *batchModel) asked(q string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.asks[q]
}

// batchTasks writes n question tasks over one small input into dir.
func batchTasks(t *testing.T, dir string, n int) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "input.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"t%02d","question":"question-%02d","files":["input.txt"]}`+"\n", i, i)
	}
	path := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rlmProc starts this test binary as rlm with its own RLM_HOME and the fake model's settings.
func rlmProc(t *testing.T, home, key string, m *batchModel, stderr *lockedBuffer, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := &exec.Cmd{Path: exe, Args: append([]string{"rlm"}, args...), Dir: filepath.Dir(home), Stderr: stderr}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(home), "TMPDIR=" + os.TempDir(), "RLM_HOME=" + home,
		"RLM_BASE_URL=" + m.srv.URL(), "RLM_API_KEY=" + key, "RLM_MODEL=fake-root"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

type batchLine struct {
	ID, Status, Answer, Worker string
	Attempt                    int
}

// resultLines reads RESULTS.jsonl, failing on a line that is not whole JSON or an id twice.
func resultLines(t *testing.T, path string) map[string]batchLine {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]batchLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l batchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("result line %q: %v", sc.Text(), err)
		}
		if _, dup := got[l.ID]; dup {
			t.Fatalf("id %s appears twice in %s", l.ID, path)
		}
		got[l.ID] = l
	}
	return got
}

// checkAnswers fails unless every line is the right answer of its task.
func checkAnswers(t *testing.T, got map[string]batchLine) {
	t.Helper()
	for id, l := range got {
		if want := "answer to question-" + strings.TrimPrefix(id, "t"); l.Status != "answered" || l.Answer != want {
			t.Errorf("%s: %s %q, want answered %q", id, l.Status, l.Answer, want)
		}
	}
}

func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration, stderr *lockedBuffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not exit within %s; stderr:\n%s", cmd.Args[1], limit, stderr)
	}
	return -1
}

// waitFor polls cond until it holds or the limit passes.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("waited %s for %s", limit, what)
		}
	}
}

var listenRE = regexp.MustCompile(`queue listening at (nats://\S+)`)

// TestBatchWorkersSurviveKill: an embedded JetStream server, three rlm worker processes on
// loopback, 60 tasks; one worker is SIGKILLed mid-task. Every task finishes once in
// RESULTS.jsonl, the killed worker's task on another worker.
func TestBatchWorkersSurviveKill(t *testing.T) {
	dir := t.TempDir()
	tasks := batchTasks(t, dir, 60)
	m := newBatchModel(t, 100*time.Millisecond, 0.001)
	victimTask := make(chan string, 1)
	var served sync.Map // key → requests
	m.slow = func(r llmtest.RecordedRequest, q string) bool {
		n, _ := served.LoadOrStore(r.Authorization, new(int))
		*n.(*int)++
		if r.Authorization != "key-victim" || *n.(*int) < 5 {
			return false
		}
		select {
		case victimTask <- q: // the victim's fifth task: keep it busy, then kill it
			return true
		default:
			return false
		}
	}
	var coordErr lockedBuffer
	coord := rlmProc(t, filepath.Join(dir, "home0"), "key-coord", m, &coordErr, "batch", tasks, "--parallel", "0", "--listen", "127.0.0.1:0", "--ack-wait", "2s")
	var url string
	waitFor(t, 15*time.Second, "the embedded server's address", func() bool {
		if mm := listenRE.FindStringSubmatch(coordErr.String()); mm != nil {
			url = mm[1]
		}
		return url != ""
	})
	var workers [3]*exec.Cmd
	var werr [3]lockedBuffer
	for i, key := range []string{"key-victim", "key-1", "key-2"} {
		workers[i] = rlmProc(t, filepath.Join(dir, fmt.Sprintf("home%d", i+1)), key, m, &werr[i], "worker", "--queue", url, "--parallel", "1")
	}
	var killed string
	select {
	case killed = <-victimTask:
	case <-time.After(30 * time.Second):
		t.Fatalf("the victim worker never reached its fifth task; stderr:\n%s", werr[0].String())
	}
	victimPID := workers[0].Process.Pid
	if err := workers[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	workers[0].Wait()
	if code := waitExit(t, coord, 40*time.Second, &coordErr); code != 0 {
		t.Fatalf("rlm batch exited %d; stderr:\n%s", code, coordErr.String())
	}
	got := resultLines(t, strings.TrimSuffix(tasks, ".jsonl")+".results.jsonl")
	if len(got) != 60 {
		t.Fatalf("%d result lines, want 60; stderr:\n%s", len(got), coordErr.String())
	}
	checkAnswers(t, got)
	id := "t" + strings.TrimPrefix(killed, "question-")
	l := got[id]
	if l.Attempt < 2 || strings.HasSuffix(l.Worker, fmt.Sprintf(":%d", victimPID)) {
		t.Errorf("the killed worker's task %s: attempt %d by %s; want a redelivery to another worker", id, l.Attempt, l.Worker)
	}
	if n := m.asked(killed); n != 2 {
		t.Errorf("the killed task was asked %d times, want 2 (once on the victim, once again)", n)
	}
	for _, w := range workers[1:] {
		w.Process.Signal(syscall.SIGINT)
	}
	for i, w := range workers[1:] {
		if code := waitExit(t, w, 10*time.Second, &werr[i+1]); code != 130 {
			t.Errorf("worker %d exited %d after SIGINT, want 130", i+1, code)
		}
	}
}

// TestBatchSharedCostStops: --max-cost shared by the batch stops it cleanly: exit 1, the reason
// and what is left on stderr, only whole answered results written.
func TestBatchSharedCostStops(t *testing.T) {
	dir := t.TempDir()
	tasks := batchTasks(t, dir, 60)
	m := newBatchModel(t, 20*time.Millisecond, 0.01)
	var stderr lockedBuffer
	cmd := rlmProc(t, filepath.Join(dir, "home"), "key", m, &stderr, "batch", tasks, "--parallel", "2", "--max-cost", "0.10")
	if code := waitExit(t, cmd, 30*time.Second, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	for _, want := range []string{"shared budget spent", "tasks left", "rerun the same command"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	got := resultLines(t, strings.TrimSuffix(tasks, ".jsonl")+".results.jsonl")
	if len(got) < 10 || len(got) > 12 { // 10 at $0.01, plus what the two workers had in flight
		t.Errorf("%d results, want 10 to 12", len(got))
	}
	checkAnswers(t, got)
}

// TestBatchResumeAfterSIGINT: SIGINT mid-batch exits 130 with every finished result written;
// the same command then runs the rest, asking no finished task again.
func TestBatchResumeAfterSIGINT(t *testing.T) {
	dir := t.TempDir()
	tasks := batchTasks(t, dir, 60)
	out := strings.TrimSuffix(tasks, ".jsonl") + ".results.jsonl"
	m := newBatchModel(t, 60*time.Millisecond, 0.001)
	var stderr lockedBuffer
	home := filepath.Join(dir, "home")
	cmd := rlmProc(t, home, "key", m, &stderr, "batch", tasks, "--parallel", "2")
	waitFor(t, 30*time.Second, "ten results", func() bool { return len(resultLines(t, out)) >= 10 })
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 20*time.Second, &stderr); code != 130 {
		t.Fatalf("exit %d after SIGINT, want 130; stderr:\n%s", code, stderr.String())
	}
	first := resultLines(t, out)
	if len(first) >= 60 {
		t.Fatalf("all %d tasks finished before SIGINT; the test proves nothing", len(first))
	}
	checkAnswers(t, first)
	var again lockedBuffer
	cmd = rlmProc(t, home, "key", m, &again, "batch", tasks, "--parallel", "2")
	if code := waitExit(t, cmd, 30*time.Second, &again); code != 0 {
		t.Fatalf("resumed batch exited %d; stderr:\n%s", code, again.String())
	}
	got := resultLines(t, out)
	if len(got) != 60 {
		t.Fatalf("%d results after resume, want 60", len(got))
	}
	checkAnswers(t, got)
	for id := range first {
		if n := m.asked("question-" + strings.TrimPrefix(id, "t")); n != 1 {
			t.Errorf("%s finished before SIGINT but was asked %d times", id, n)
		}
	}
	if !strings.Contains(again.String(), fmt.Sprintf("%d done before", len(first))) {
		t.Errorf("the resumed batch does not say %d were done before:\n%s", len(first), again.String())
	}
}
