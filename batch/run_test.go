package batch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/batch"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

func TestMain(m *testing.M) {
	rlm.MaybeServeWorker()
	os.Exit(m.Run())
}

// fakeModel answers every question with "answer to QUESTION" (the question is the task's id),
// costing cost dollars, after latency.
func fakeModel(t testing.TB, latency time.Duration, cost float64) (*llmtest.Server, llm.Config) {
	srv := llmtest.New()
	srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		q := "?"
		if m := questionOf(r.LastUser()); m != "" {
			q = m
		}
		return llmtest.Reply{Text: "answer to " + q, Latency: latency, Cost: &cost}
	})
	t.Cleanup(srv.Close)
	return srv, llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"fake"}}
}

// questionOf finds the task's question (qNN) in a prompt.
func questionOf(prompt string) string {
	i := strings.Index(prompt, "question-")
	if i < 0 {
		return ""
	}
	j := i + len("question-")
	for j < len(prompt) && prompt[j] >= '0' && prompt[j] <= '9' {
		j++
	}
	return prompt[i:j]
}

// writeTasks writes n question tasks over one small file; task tNN asks "question-NN".
func writeTasks(t testing.TB, dir string, n int) string {
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

func readResults(t testing.TB, path string) []batch.Result {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []batch.Result
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var r batch.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("result line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// queues are the two Queue implementations, each opened fresh over home; closed at the end of
// the test, or by the function returned.
var queues = map[string]func(t testing.TB, home string) (batch.Queue, func()){
	"mem": func(testing.TB, string) (batch.Queue, func()) { return batch.NewMemQueue(64), func() {} },
	"jetstream": func(t testing.TB, home string) (batch.Queue, func()) {
		srv, err := batch.Embedded(filepath.Join(home, "nats"), "")
		if err != nil {
			t.Fatal(err)
		}
		nc, err := srv.Conn()
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		closeQ := func() { once.Do(func() { nc.Close(); srv.Close() }) }
		t.Cleanup(closeQ)
		q, err := batch.NewJetStream(context.Background(), nc, batch.JetStreamOptions{Coordinator: true, CacheDir: filepath.Join(home, "cache")})
		if err != nil {
			t.Fatal(err)
		}
		return q, closeQ
	},
}

func TestRunAndResume(t *testing.T) {
	for name, open := range queues {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			srv, model := fakeModel(t, 0, 0.001)
			tasks, err := batch.ReadTasks(writeTasks(t, dir, 8))
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(dir, "home")
			base := rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}
			out := filepath.Join(dir, "results.jsonl")
			run := func(tasks []batch.Task) batch.Summary {
				q, closeQ := open(t, home)
				defer closeQ()
				sum, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q,
					Local: &batch.Worker{Queue: q, Base: base, Parallel: 2}})
				if err != nil {
					t.Fatal(err)
				}
				return sum
			}
			// first the first five, then all eight: the second run does only the other three
			if sum := run(tasks[:5]); sum.Done != 5 || sum.Left != 0 {
				t.Fatalf("first run: %+v", sum)
			}
			sum := run(tasks)
			if sum.Done != 3 || sum.Skipped != 5 || sum.Left != 0 {
				t.Fatalf("resumed run: %+v, want 3 done, 5 skipped", sum)
			}
			if n := len(srv.Requests()); n != 8 {
				t.Errorf("model requests = %d, want 8 (no task run twice)", n)
			}
			got := readResults(t, out)
			if len(got) != 8 {
				t.Fatalf("%d result lines, want 8", len(got))
			}
			// a new results file is a new batch: the results stored for the old one stay out
			if err := os.Remove(out); err != nil {
				t.Fatal(err)
			}
			if sum := run(tasks[:2]); sum.Done != 2 || sum.Skipped != 0 {
				t.Errorf("run into a new results file: %+v, want 2 done, none skipped", sum)
			}
			if n := len(srv.Requests()); n != 10 {
				t.Errorf("model requests = %d, want 10", n)
			}
			for _, r := range got {
				want := "answer to question-" + strings.TrimPrefix(r.ID, "t")
				if r.Status != "answered" || r.Answer != want || r.Usage.Calls != 1 || r.Usage.Cost != (llm.Cost{USD: 0.001}) || r.Trace == "" || r.Attempt != 1 {
					t.Errorf("result %+v: want answered %q, 1 call, $0.001, a trace", r, want)
				}
			}
		})
	}
}

func TestSharedBudgetStops(t *testing.T) {
	dir := t.TempDir()
	srv, model := fakeModel(t, 20*time.Millisecond, 0.01)
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 30))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	q, _ := queues["jetstream"](t, home)
	budget := rlm.NewBudget(llm.Spent{Cost: llm.Cost{USD: 0.05}})
	out := filepath.Join(dir, "results.jsonl")
	sum, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q, Budget: budget,
		Local: &batch.Worker{Queue: q, Base: rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}, Budget: budget, Parallel: 2}})
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "shared budget spent") || !strings.Contains(err.Error(), "rerun the same command") {
		t.Fatalf("err = %v, want the shared budget's limit error", err)
	}
	got := readResults(t, out)
	// two tasks may be in flight when the fifth dollar-cent is spent
	if len(got) < 5 || len(got) > 7 || sum.Left != 30-len(got) {
		t.Fatalf("%d results, summary %+v; want 5 to 7, the rest left", len(got), sum)
	}
	for _, r := range got {
		if r.Status != "answered" {
			t.Errorf("result %+v: a task stopped by the shared budget must not be recorded", r)
		}
	}
	if n := len(srv.Requests()); n > 7 {
		t.Errorf("%d model calls after a budget of 5", n)
	}
}

// TestRedelivery: a worker that takes a job and goes silent (dies) has its job delivered again
// once the ack wait passes, and the job is finished by another worker.
func TestRedelivery(t *testing.T) {
	dir := t.TempDir()
	_, model := fakeModel(t, 0, 0)
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 3))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	srv, err := batch.Embedded(filepath.Join(home, "nats"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	open := func(coord bool) batch.Queue {
		nc, err := srv.Conn()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		q, err := batch.NewJetStream(context.Background(), nc, batch.JetStreamOptions{AckWait: 500 * time.Millisecond, Coordinator: coord, CacheDir: filepath.Join(home, "cache")})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	coord, dead := open(true), open(false)
	var mu sync.Mutex
	var stolen []string
	go func() { // the dying worker: takes two jobs, never touches or finishes them
		for range 2 {
			d, err := dead.Take(context.Background())
			if err != nil {
				return
			}
			mu.Lock()
			stolen = append(stolen, d.Job().ID)
			mu.Unlock()
		}
	}()
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := filepath.Join(dir, "results.jsonl")
	live := open(false)
	go func() {
		time.Sleep(300 * time.Millisecond) // let the dead worker take its jobs first
		(&batch.Worker{Queue: live, Base: rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}}).Work(ctx)
	}()
	sum, err := batch.Run(ctx, batch.Config{Tasks: tasks, Out: out, Queue: coord})
	if err != nil || sum.Done != 3 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stolen) == 0 {
		t.Fatal("the dying worker took no job; the test proves nothing")
	}
	attempts := map[string]int{}
	for _, r := range readResults(t, out) {
		attempts[r.ID] = r.Attempt
	}
	for _, id := range stolen {
		if attempts[id] < 2 {
			t.Errorf("job %s taken by the dead worker finished at attempt %d, want a redelivery (≥ 2)", id, attempts[id])
		}
	}
}

// TestDuplicateResults: a job finished twice (a redelivered job whose first worker was only
// slow) gives one result line.
func TestDuplicateResults(t *testing.T) {
	dir := t.TempDir()
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 5))
	if err != nil {
		t.Fatal(err)
	}
	q := batch.NewMemQueue(16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			d, err := q.Take(ctx)
			if err != nil {
				return
			}
			for n := range 2 {
				d.Finish(ctx, batch.Result{ID: d.Job().ID, Status: "answered", Answer: fmt.Sprint(n), Attempt: n + 1})
			}
		}
	}()
	out := filepath.Join(dir, "results.jsonl")
	sum, err := batch.Run(ctx, batch.Config{Tasks: tasks, Out: out, Queue: q})
	if err != nil || sum.Done != 5 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	got := readResults(t, out)
	if len(got) != 5 {
		t.Fatalf("%d lines, want 5 (one per id)", len(got))
	}
	for _, r := range got {
		if r.Answer != "0" {
			t.Errorf("%s: kept answer %q, want the first result's", r.ID, r.Answer)
		}
	}
}

// TestHeartbeatKeepsLongTask: a task that runs three times the ack wait is not delivered
// again while its worker lives: the worker extends the lease as it runs.
func TestHeartbeatKeepsLongTask(t *testing.T) {
	dir := t.TempDir()
	srv, model := fakeModel(t, 1500*time.Millisecond, 0)
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 1))
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	es, err := batch.Embedded(filepath.Join(home, "nats"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer es.Close()
	nc, err := es.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	q, err := batch.NewJetStream(context.Background(), nc, batch.JetStreamOptions{AckWait: 500 * time.Millisecond, Coordinator: true, CacheDir: filepath.Join(home, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.jsonl")
	// two slots: a redelivered job would start on the idle one while the first still runs
	sum, err := batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q,
		Local: &batch.Worker{Queue: q, Base: rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}, Parallel: 2}})
	if err != nil || sum.Done != 1 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if r := readResults(t, out)[0]; r.Attempt != 1 || r.Status != "answered" {
		t.Errorf("result %+v, want answered at attempt 1", r)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model was asked %d times, want 1: the job was delivered again while it ran", n)
	}
}

// TestRetryFailed: a rerun with RetryFailed runs again exactly the tasks whose result was a
// failure; the results file keeps one line per task, and the failures move to the retried file.
// A retry stopped before the tasks ran leaves them to the next run: the queue's copies of the
// old failures are gone too.
func TestRetryFailed(t *testing.T) {
	for name, open := range queues {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			failing, model := flakyModel(t)
			tasks, err := batch.ReadTasks(writeTasks(t, dir, 7))
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(dir, "home")
			base := rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}
			out := filepath.Join(dir, "results.jsonl")
			run := func(retry, workers bool) batch.Summary {
				q, closeQ := open(t, home)
				defer closeQ()
				cfg := batch.Config{Tasks: tasks, Out: out, Queue: q, RetryFailed: retry}
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond) // no workers: stopped
				defer cancel()
				if workers {
					ctx, cfg.Local = context.Background(), &batch.Worker{Queue: q, Base: base, Parallel: 2}
				}
				sum, err := batch.Run(ctx, cfg)
				if err != nil && workers {
					t.Fatal(err)
				}
				return sum
			}
			if sum := run(false, true); sum.Done != 7 || sum.Failed != 3 {
				t.Fatalf("first run: %+v, want 7 done, 3 failed (t00, t03, t06)", sum)
			}
			if sum := run(false, true); sum.Done != 0 || sum.Skipped != 7 || sum.FailedBefore != 3 {
				t.Fatalf("rerun without retry: %+v, want all 7 skipped, 3 of them failed", sum)
			}
			failing.Store(false)
			if sum := run(true, false); sum.Retried != 3 || sum.Done != 0 || sum.Left != 3 {
				t.Fatalf("retry stopped before any task ran: %+v, want 3 retried, 3 left", sum)
			}
			if sum := run(false, true); sum.Done != 3 || sum.Failed != 0 || sum.Skipped != 4 || sum.FailedBefore != 0 {
				t.Fatalf("rerun after the stopped retry: %+v, want the 3 retried tasks done, 4 skipped", sum)
			}
			checkRetried(t, out, "t00:failed t03:failed t06:failed")
			if sum := run(true, true); sum.Retried != 0 || sum.Done != 0 || sum.Skipped != 7 {
				t.Errorf("retry with nothing failed: %+v, want all 7 skipped", sum)
			}
		})
	}
}

// flakyModel answers like fakeModel, but refuses questions 0, 3, 6, … while failing is true.
func flakyModel(t *testing.T) (*atomic.Bool, llm.Config) {
	var failing atomic.Bool
	failing.Store(true)
	srv := llmtest.New()
	srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
		q := questionOf(r.LastUser())
		if n, _ := strconv.Atoi(strings.TrimPrefix(q, "question-")); failing.Load() && n%3 == 0 {
			return llmtest.Reply{Kind: llmtest.BadRequest, Message: "refused " + q}
		}
		return llmtest.Reply{Text: "answer to " + q}
	})
	t.Cleanup(srv.Close)
	return &failing, llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"fake"}}
}

// checkRetried checks that out has one answered line per task and that the retried file holds
// the model's refusals of want ("ID:status …", sorted).
func checkRetried(t *testing.T, out, want string) {
	t.Helper()
	got := map[string]string{}
	for _, r := range readResults(t, out) {
		if _, dup := got[r.ID]; dup {
			t.Errorf("%s has two result lines", r.ID)
		}
		if got[r.ID] = r.Status; r.Status != "answered" {
			t.Errorf("%s: %s, want answered", r.ID, r.Status)
		}
	}
	if len(got) != 7 {
		t.Errorf("results for %d tasks, want 7: %v", len(got), got)
	}
	var aside []string
	for _, r := range readResults(t, batch.RetriedPath(out)) {
		if r.Error == nil || !strings.Contains(r.Error.Message, "refused question-"+strings.TrimPrefix(r.ID, "t")) {
			t.Errorf("retried file: %s's error is %+v, want the model's refusal", r.ID, r.Error)
		}
		aside = append(aside, r.ID+":"+r.Status)
	}
	slices.Sort(aside)
	if got := strings.Join(aside, " "); got != want {
		t.Errorf("retried file: %q, want %q", got, want)
	}
}

// TestRetryFailedThroughLink: a results file reached through a symbolic link is rewritten in
// place of its target, keeping its mode; the link stays a link.
func TestRetryFailedThroughLink(t *testing.T) {
	dir := t.TempDir()
	failing, model := flakyModel(t)
	tasks, err := batch.ReadTasks(writeTasks(t, dir, 4))
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "shared", "results.jsonl")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "results.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	q := batch.NewMemQueue(16)
	base := rlm.Options{Home: filepath.Join(dir, "home"), Model: model, Quiet: true, NoLog: true}
	for _, retry := range []bool{false, true} {
		failing.Store(!retry)
		cfg := batch.Config{Tasks: tasks, Out: link, Queue: q, RetryFailed: retry, Local: &batch.Worker{Queue: q, Base: base, Parallel: 2}}
		if sum, err := batch.Run(context.Background(), cfg); err != nil || sum.Failed != 0 && retry {
			t.Fatalf("retry %v: %v, %v", retry, sum, err)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v, %v; want still a link", st.Mode(), err)
	}
	if st, err := os.Stat(real); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode is %v, %v; want 0600 kept", st.Mode(), err)
	}
	if n := len(readResults(t, real)); n != 4 {
		t.Errorf("the target holds %d results, want 4", n)
	}
	if n := len(readResults(t, batch.RetriedPath(real))); n != 2 {
		t.Errorf("the retried file beside the target holds %d results, want 2 (t00, t03)", n)
	}
}

// TestOutageStops: when the model service fails OutageStop tasks in a row (its circuit breaker
// opens), the batch stops, withdraws the rest and says to rerun with --retry-failed; the rerun
// with RetryFailed, the service back, finishes every task.
func TestOutageStops(t *testing.T) {
	for name, open := range queues {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			var down atomic.Bool
			down.Store(true)
			srv := llmtest.New()
			srv.SetHandler(func(r llmtest.RecordedRequest) llmtest.Reply {
				if down.Load() {
					return llmtest.Reply{Kind: llmtest.ServerError}
				}
				return llmtest.Reply{Text: "answer to " + questionOf(r.LastUser())}
			})
			t.Cleanup(srv.Close)
			tasks, err := batch.ReadTasks(writeTasks(t, dir, 12))
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(dir, "home")
			model := llm.Config{BaseURL: srv.URL(), APIKey: "sk-test", Models: []string{"fake"}, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond}
			base := rlm.Options{Home: home, Model: model, Quiet: true, NoLog: true}
			out := filepath.Join(dir, "results.jsonl")
			run := func(retry bool) (batch.Summary, error) {
				q, closeQ := open(t, home)
				defer closeQ()
				return batch.Run(context.Background(), batch.Config{Tasks: tasks, Out: out, Queue: q, RetryFailed: retry,
					Local: &batch.Worker{Queue: q, Base: base, Parallel: 1}})
			}
			sum, err := run(false)
			if !errors.Is(err, fault.Limit) || !strings.Contains(fmt.Sprint(err), "failed the last 3 tasks in a row") || !strings.Contains(fmt.Sprint(err), "--retry-failed") {
				t.Fatalf("batch with the service down: %v; want stopped after 3 tasks, naming --retry-failed", err)
			}
			if sum.Failed != batch.OutageStop || sum.Done != batch.OutageStop || sum.Left != 12-batch.OutageStop {
				t.Errorf("summary %s; want %d failed, the rest left", sum, batch.OutageStop)
			}
			for _, r := range readResults(t, out) {
				if r.Error == nil || !r.Error.Unavailable {
					t.Errorf("%s: %+v; want failed, unavailable", r.ID, r.Error)
				}
			}
			down.Store(false)
			if sum, err := run(true); err != nil || sum.Retried != batch.OutageStop || sum.Done != 12 || sum.Failed != 0 {
				t.Errorf("rerun with the service back: %s, %v; want all 12 done", sum, err)
			}
		})
	}
}
