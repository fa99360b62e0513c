package audit

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

var t0 = time.Date(2026, 11, 22, 6, 15, 0, 0, time.UTC)

// openTest opens a fresh database in a temporary directory with a fixed clock.
func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "home", "audit.db") // Open creates the directory
	d, err := Open(path, Options{Now: func() time.Time { return t0.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("database file mode %v, want 0600", fi.Mode().Perm())
	}
	t.Cleanup(func() { _ = d.Close() })
	return d, path
}

// fakeKey returns a real-shaped OpenAI project key.
func fakeKey(t *testing.T) string {
	t.Helper()
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	var b strings.Builder
	b.WriteString("sk-proj-")
	for range 40 {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		if err != nil {
			t.Fatal(err)
		}
		b.WriteByte(alnum[n.Int64()])
	}
	return b.String()
}

func TestNewTaskID(t *testing.T) {
	re := regexp.MustCompile(`^20261122-061500-[0-9a-f]{6}$`)
	a, b := NewTaskID(t0), NewTaskID(t0)
	if !re.MatchString(a) || !re.MatchString(b) {
		t.Fatalf("ids %q, %q do not match %s", a, b, re)
	}
	if a == b {
		t.Errorf("two ids in the same second are equal: %q", a)
	}
	later := NewTaskID(t0.Add(time.Second))
	if !(a < later) {
		t.Errorf("id %q of a later time does not sort after %q", later, a)
	}
}

func TestTaskLifecycle(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	start := Task{ID: "t1", Question: "how many?", PID: 42, StartedAt: t0,
		CtxFiles: []string{"/data/big.txt"}, CtxMetadata: map[string]any{"chars": 1000},
		Lang: "go", Model: "gpt-x"}
	if err := d.StartTask(ctx, start); err != nil {
		t.Fatal(err)
	}
	if err := d.SetSpent(ctx, "t1", 3, 1500); err != nil {
		t.Fatal(err)
	}
	got, err := d.Task(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	want := start
	want.Status, want.Calls, want.Tokens = Running, 3, 1500
	want.CtxMetadata = map[string]any{"chars": float64(1000)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("running task:\n got %+v\nwant %+v", got, want)
	}
	cause := fault.New(fault.Limit, "token budget of 200000 spent")
	if err := d.FinishTask(ctx, "t1", Failed, "", cause); err != nil {
		t.Fatal(err)
	}
	got, _ = d.Task(ctx, "t1")
	want.Status, want.ErrorKind, want.ErrorMessage = Failed, fault.Limit, cause.Error()
	want.EndedAt = t0.Add(time.Hour)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("finished task:\n got %+v\nwant %+v", got, want)
	}
	if err := d.FinishTask(ctx, "t1", Answered, "x", nil); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second FinishTask: got %v, want ErrNotRunning", err)
	}
	if err := d.FinishTask(ctx, "nope", Answered, "x", nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("FinishTask of unknown task: got %v, want ErrNotFound", err)
	}
	if _, err := d.Task(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Task of unknown id: got %v, want ErrNotFound", err)
	}
	if err := d.SetSpent(ctx, "nope", 1, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetSpent of unknown task: got %v, want ErrNotFound", err)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.StartTask(ctx, Task{ID: "t1", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	calls := []APICall{
		{Task: "t1", Agent: "root", Model: "m1", PromptTokens: 100, CompletionTokens: 20,
			Latency: 1500 * time.Millisecond, Status: "ok", At: t0},
		{Task: "t1", Agent: "sub", Model: "m2", Latency: 30 * time.Second, Status: "error",
			Error: "HTTP 500", At: t0.Add(time.Second)},
	}
	steps := []Step{
		{Task: "t1", Step: 1, Attempt: 1, Code: `print("hi")`, Output: "hi\n", Decision: Accepted,
			Findings: json.RawMessage(`[]`), At: t0},
		{Task: "t1", Step: 2, Attempt: 1, Code: `import "os"`, Decision: Rejected,
			Findings:  []map[string]string{{"rule": "import", "message": "os is not allowed"}},
			ErrorKind: fault.Rejected, At: t0},
	}
	tools := []ToolCall{{Task: "t1", Step: 1, Name: "peek", Args: map[string]int{"offset": 0, "length": 10},
		Result: "10 chars", Duration: 2 * time.Millisecond, At: t0}}
	for _, c := range calls {
		if err := d.RecordCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range steps {
		if err := d.RecordStep(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range tools {
		if err := d.RecordTool(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	gotCalls, err := d.Calls(ctx, "t1")
	if err != nil || !reflect.DeepEqual(gotCalls, calls) {
		t.Errorf("Calls: err %v\n got %+v\nwant %+v", err, gotCalls, calls)
	}
	steps[1].Findings = json.RawMessage(`[{"message":"os is not allowed","rule":"import"}]`)
	gotSteps, err := d.Steps(ctx, "t1")
	if err != nil || !reflect.DeepEqual(gotSteps, steps) {
		t.Errorf("Steps: err %v\n got %+v\nwant %+v", err, gotSteps, steps)
	}
	tools[0].Args = json.RawMessage(`{"length":10,"offset":0}`)
	gotTools, err := d.ToolCalls(ctx, "t1")
	if err != nil || !reflect.DeepEqual(gotTools, tools) {
		t.Errorf("ToolCalls: err %v\n got %+v\nwant %+v", err, gotTools, tools)
	}
	if err := d.RecordCall(ctx, APICall{Task: "ghost"}); err == nil {
		t.Error("RecordCall for a task that does not exist succeeded; foreign keys are off")
	}
}

func TestTruncation(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.StartTask(ctx, Task{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", MaxText+5) // multi-byte: the cut must count code points
	if err := d.RecordStep(ctx, Step{Task: "t1", Step: 1, Attempt: 1, Code: long, Output: "short"}); err != nil {
		t.Fatal(err)
	}
	ss, err := d.Steps(ctx, "t1")
	if err != nil || len(ss) != 1 {
		t.Fatalf("Steps: %v, %d rows", err, len(ss))
	}
	wantCode := strings.Repeat("é", MaxText) + fmt.Sprintf("\n…[truncated: %d of %d chars shown]", MaxText, MaxText+5)
	if ss[0].Code != wantCode {
		t.Errorf("code: got %d bytes ending %q, want %d bytes", len(ss[0].Code), ss[0].Code[len(ss[0].Code)-40:], len(wantCode))
	}
	if ss[0].Output != "short" {
		t.Errorf("output: got %q, want %q", ss[0].Output, "short")
	}
}

func TestRedactsEveryTextColumn(t *testing.T) {
	ctx := context.Background()
	d, path := openTest(t)
	key := fakeKey(t)
	s := "uses " + key + " here"
	err := errors.Join(
		d.StartTask(ctx, Task{ID: "t1", Question: s, CtxFiles: []string{s},
			CtxMetadata: map[string]any{s: s}, Lang: s, Model: s}),
		d.RecordCall(ctx, APICall{Task: "t1", Agent: s, Model: s, Status: s, Error: s}),
		d.RecordStep(ctx, Step{Task: "t1", Step: 1, Attempt: 1, Code: s, Output: s,
			Findings: []string{s}}),
		d.RecordTool(ctx, ToolCall{Task: "t1", Name: s, Args: map[string]string{s: s},
			Result: s, Error: s}),
		d.FinishTask(ctx, "t1", Answered, s, errors.New(s)),
	)
	if err != nil {
		t.Fatal(err)
	}
	task, _ := d.Task(ctx, "t1")
	calls, _ := d.Calls(ctx, "t1")
	steps, _ := d.Steps(ctx, "t1")
	tools, _ := d.ToolCalls(ctx, "t1")
	raw, err := json.Marshal([]any{task, calls, steps, tools})
	if err != nil {
		t.Fatal(err)
	}
	all := string(raw)
	for _, frag := range []string{key, key[8:30]} {
		if strings.Contains(all, frag) {
			t.Errorf("key fragment %q read back from the database: %s", frag, all)
		}
	}
	if n := strings.Count(all, "[REDACTED:openai]"); n < 20 {
		t.Errorf("found %d redaction markers, want one per text column (>= 20): %s", n, all)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		raw, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), key[8:]) {
			t.Errorf("%s holds the secret in clear", f)
		}
	}
}

func TestConcurrentRecords(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.StartTask(ctx, Task{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				errs <- d.RecordCall(ctx, APICall{Task: "t1", Agent: fmt.Sprintf("w%d", w),
					PromptTokens: i, Status: "ok"})
				errs <- d.SetSpent(ctx, "t1", w*each+i, i)
			}
		})
	}
	wg.Go(func() { // a reader beside the writers
		for range each {
			if _, err := d.Calls(ctx, "t1"); err != nil {
				errs <- err
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cs, err := d.Calls(ctx, "t1")
	if err != nil || len(cs) != workers*each {
		t.Fatalf("Calls: err %v, got %d rows, want %d", err, len(cs), workers*each)
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	// An older database: only the first migration, with a task in it.
	old, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, old, migrations[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Exec(`INSERT INTO tasks (id, status, started_at) VALUES ('old', 'ANSWERED', ?)`,
		t0.Format(timeLayout)); err != nil {
		t.Fatal(err)
	}
	if v := userVersion(t, old); v != 1 {
		t.Fatalf("old database at version %d, want 1", v)
	}
	_ = old.Close()
	for i := range 2 { // the first Open migrates; the second finds nothing to do
		d, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if v := userVersion(t, d.db); v != len(migrations) {
			t.Errorf("open %d: version %d, want %d", i, v, len(migrations))
		}
		if tk, err := d.Task(ctx, "old"); err != nil || tk.Status != Answered {
			t.Errorf("open %d: old task: %+v, %v", i, tk, err)
		}
		if err := d.RecordTool(ctx, ToolCall{Task: "old", Name: "peek"}); err != nil {
			t.Errorf("open %d: tool_calls missing after migration: %v", i, err)
		}
		if i == 1 { // pretend a newer rlm migrated it further
			if _, err := d.db.Exec("PRAGMA user_version = 99"); err != nil {
				t.Fatal(err)
			}
		}
		_ = d.Close()
	}
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "99") {
		t.Errorf("opening a database from a newer rlm: got %v, want a version error", err)
	}
}

// TestMigrationToCost: a database of version 2 (before costs) keeps its calls and tasks, whose
// cost reads as unknown, never as $0.
func TestMigrationToCost(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "audit.db")
	old, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, old, migrations[:2]); err != nil {
		t.Fatal(err)
	}
	stamp := t0.Format(timeLayout)
	for _, q := range []string{
		`INSERT INTO tasks (id, status, calls, tokens, started_at) VALUES ('old', 'ANSWERED', 3, 900, '` + stamp + `')`,
		`INSERT INTO api_calls (task, model, prompt_tokens, at) VALUES ('old', 'm', 100, '` + stamp + `')`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_ = old.Close()
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tk, err := d.Task(ctx, "old")
	if err != nil || tk.CostUSD != 0 || tk.CostUnknown != 3 {
		t.Errorf("old task: cost %v, unknown %d, %v; want its 3 calls of unknown cost", tk.CostUSD, tk.CostUnknown, err)
	}
	cs, err := d.Calls(ctx, "old")
	if err != nil || len(cs) != 1 || cs[0].CostUSD != nil || cs[0].PromptTokens != 100 {
		t.Errorf("old call: %+v, %v; want its tokens, cost unknown", cs, err)
	}
}

// TestCost: a call's cost is stored as given, an unknown one as NULL (read back as nil), and
// a task's spent cost with its count of unknown calls; a cost that is not finite is refused.
func TestCost(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.StartTask(ctx, Task{ID: "t1"}); err != nil {
		t.Fatal(err)
	}
	known, zero := 0.0125, 0.0
	for _, c := range []APICall{
		{Task: "t1", Model: "big", Backend: "default", PromptTokens: 1000, CachedTokens: 400, Source: "usage", CostUSD: &known},
		{Task: "t1", Model: "small", Backend: "vllm", PromptTokens: 10, Source: "estimate"},
		{Task: "t1", Model: "small", Backend: "vllm", Status: "error:rate_limit", CostUSD: &zero},
	} {
		if err := d.RecordCall(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	nan := math.NaN()
	if err := d.RecordCall(ctx, APICall{Task: "t1", CostUSD: &nan}); err == nil {
		t.Error("a NaN cost was recorded")
	}
	cs, err := d.Calls(ctx, "t1")
	if err != nil || len(cs) != 3 {
		t.Fatalf("calls %+v, %v", cs, err)
	}
	got := []string{}
	for _, c := range cs {
		cost := "unknown"
		if c.CostUSD != nil {
			cost = fmt.Sprint(*c.CostUSD)
		}
		got = append(got, fmt.Sprintf("%s@%s cached=%d source=%s cost=%s", c.Model, c.Backend, c.CachedTokens, c.Source, cost))
	}
	want := []string{"big@default cached=400 source=usage cost=0.0125", "small@vllm cached=0 source=estimate cost=unknown", "small@vllm cached=0 source= cost=0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := d.RecordSpent(ctx, "t1", Spent{Calls: 3, Tokens: 1010, CostUSD: 0.0125, CostUnknown: 1}); err != nil {
		t.Fatal(err)
	}
	if tk, err := d.Task(ctx, "t1"); err != nil || tk.CostUSD != 0.0125 || tk.CostUnknown != 1 || tk.Calls != 3 {
		t.Errorf("task %+v, %v", tk, err)
	}
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPruneAndList(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	for i, id := range []string{"a", "b", "c"} {
		if err := d.StartTask(ctx, Task{ID: id, StartedAt: t0.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	_ = d.RecordCall(ctx, APICall{Task: "a"})
	if err := d.FinishTask(ctx, "a", Answered, "42", nil); err != nil { // ends at t0+1h
		t.Fatal(err)
	}
	ts, err := d.Tasks(ctx, 2)
	if err != nil || len(ts) != 2 || ts[0].ID != "c" || ts[1].ID != "b" {
		t.Fatalf("Tasks(2): %v %+v, want c then b", err, ts)
	}
	n, err := d.Prune(ctx, t0.Add(2*time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune: deleted %d, %v; want 1 (running tasks kept)", n, err)
	}
	if _, err := d.Task(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("pruned task still there: %v", err)
	}
	if cs, _ := d.Calls(ctx, "a"); len(cs) != 0 {
		t.Errorf("pruned task's calls still there: %+v", cs)
	}
	if ts, _ := d.Tasks(ctx, 0); len(ts) != 2 {
		t.Errorf("after prune: %d tasks, want 2", len(ts))
	}
}

// TestRecordToolsInOneTransaction: a batch of tool calls is written in one transaction, read
// back in order, redacted like single rows, and not at all when a row fails or ctx has ended.
func TestRecordToolsInOneTransaction(t *testing.T) {
	ctx := context.Background()
	d, _ := openTest(t)
	if err := d.StartTask(ctx, Task{ID: "t1", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	key := fakeKey(t)
	var batch []ToolCall
	for i := range 500 {
		batch = append(batch, ToolCall{Task: "t1", Step: 1, Name: "peek", Args: []any{"ctx0", i, 10}, Result: fmt.Sprint(i), At: t0})
	}
	batch[7].Result = "the key " + key
	start := time.Now()
	if err := d.RecordTools(ctx, batch); err != nil {
		t.Fatal(err)
	}
	t.Logf("500 rows in one transaction: %v", time.Since(start).Round(time.Millisecond))
	got, err := d.ToolCalls(ctx, "t1")
	if err != nil || len(got) != 500 || got[499].Result != "499" || string(got[3].Args.(json.RawMessage)) != `["ctx0",3,10]` {
		t.Fatalf("read back %d rows, %v", len(got), err)
	}
	if strings.Contains(got[7].Result, key) {
		t.Errorf("a batch row kept the key: %q", got[7].Result)
	}
	bad := []ToolCall{{Task: "t1", Name: "peek", Result: "kept?"}, {Task: "ghost", Name: "peek"}}
	if err := d.RecordTools(ctx, bad); err == nil {
		t.Error("a batch with a row of an unknown task succeeded")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := d.RecordTools(done, []ToolCall{{Task: "t1", Name: "peek", Result: "late"}}); err == nil {
		t.Error("RecordTools with an ended context succeeded")
	}
	if got, _ := d.ToolCalls(ctx, "t1"); len(got) != 500 {
		t.Errorf("%d rows after two failed batches; want 500: a failed batch writes nothing", len(got))
	}
}
