package batch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestReadTasks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.js"), []byte("FINAL(1)"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.js"), []byte("//"+strings.Repeat("x", 128<<10)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file string
		want       string // error substring; "" = ok
		n          int
	}{
		{"ok", `{"id":"t1","question":"q","files":["a.txt"]}` + "\n\n# comment\n" + `{"id":"t2","script":"s.js","lang":"js","limits":{"max_calls":3,"timeout":"1m"}}`, "", 2},
		{"line number", `{"id":"t1","question":"q"}` + "\n" + `{"id":"t2"`, "tasks.jsonl:2: ", 0},
		{"unknown field", `{"id":"t1","question":"q","file":["a.txt"]}`, `tasks.jsonl:1: unknown field "file"`, 0},
		{"no id", `{"question":"q"}`, `tasks.jsonl:1: no "id"`, 0},
		{"both", `{"id":"t","question":"q","script":"s.js"}`, `both "question" and "script"`, 0},
		{"neither", `{"id":"t","files":["a.txt"]}`, `neither "question" nor "script"`, 0},
		{"duplicate", `{"id":"t","question":"q"}` + "\n" + `{"id":"t","question":"r"}`, `tasks.jsonl:2: id "t" is already the id of line 1`, 0},
		{"missing file", `{"id":"t","question":"q","files":["nope.txt"]}`, `tasks.jsonl:1: task "t": stat`, 0},
		{"big script", `{"id":"t","script":"big.js"}`, "is 131074 bytes; a script may have at most 131072 (the validator's limit)", 0},
		{"directory", `{"id":"t","question":"q","files":["."]}`, "is not a regular file", 0},
		{"bad lang", `{"id":"t","question":"q","lang":"py"}`, `tasks.jsonl:1: task "t": `, 0},
		{"negative", `{"id":"t","question":"q","limits":{"max_calls":-1}}`, "must not be negative", 0},
		{"bad duration", `{"id":"t","question":"q","limits":{"timeout":"soon"}}`, `want a duration such as "10m"`, 0},
		{"wrong type", `{"id":"t","question":"q","files":"a.txt"}`, `field "files": want a list, got a JSON string`, 0},
		{"two values", `{"id":"t","question":"q"} {"id":"u","question":"q"}`, "one task per line", 0},
		{"empty", "\n# nothing\n", "no tasks", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "tasks.jsonl")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTasks(path)
			if tt.want == "" {
				if err != nil || len(got) != tt.n {
					t.Fatalf("got %d tasks, %v; want %d", len(got), err, tt.n)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, fault.Schema) {
				t.Fatalf("got %v, want a schema error containing %q", err, tt.want)
			}
		})
	}
}

func TestReadTasksResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	path := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(path, []byte(`{"id":"t","question":"q","files":["a.txt"],"limits":{"timeout":90}}`), 0o644)
	got, err := ReadTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "a.txt"); got[0].Files[0] != want {
		t.Errorf("file = %q, want %q", got[0].Files[0], want)
	}
	if got[0].Limits.Timeout != Duration(90e9) {
		t.Errorf("timeout = %v, want 90s", got[0].Limits.Timeout)
	}
}

func TestResultsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	// two whole lines, a duplicate id, and a line torn by a crash
	os.WriteFile(path, []byte(`{"id":"a","status":"answered"}`+"\n"+`{"id":"b","status":"failed"}`+"\n"+`{"id":"a","status":"failed"}`+"\n"+`{"id":"c","sta`), 0o644)
	r, err := openResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.done); got != 2 || r.done["a"].Status != "answered" {
		t.Fatalf("loaded %v, want a (answered) and b", r.done)
	}
	if _, err := openResults(path); err == nil {
		t.Error("a second writer of the same results file was not refused")
	}
	if added, err := r.add(Result{ID: "b", Status: "answered"}); added || err != nil {
		t.Errorf("add of an id with a result: added %v, %v; want false", added, err)
	}
	if added, err := r.add(Result{ID: "c", Status: "answered"}); !added || err != nil {
		t.Fatalf("add c: %v, %v", added, err)
	}
	r.close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[3], `{"id":"c","status":"answered"`) {
		t.Errorf("file after the torn line:\n%s", data)
	}
}

func TestResultsFileRefusesForeignLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte("{\"id\":\"a\"}\nnot json\n"), 0o644)
	_, err := openResults(path)
	if err == nil || !strings.Contains(err.Error(), "r.jsonl:2: not a result line") {
		t.Fatalf("got %v, want the line named", err)
	}
}

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"old/a.txt", "new/b.txt"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o644)
	}
	old := time.Now().Add(-8 * 24 * time.Hour)
	os.Chtimes(filepath.Join(dir, "old/a.txt"), old, old)
	pruneCache(dir, time.Now().Add(-cacheAge))
	if _, err := os.Stat(filepath.Join(dir, "old")); !os.IsNotExist(err) {
		t.Errorf("an input unused for 8 days is still cached (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new/b.txt")); err != nil {
		t.Errorf("a fresh input was removed: %v", err)
	}
}

// FuzzParseTasks: any tasks file either parses into tasks with ids and exactly one of
// question and script, or fails with a schema error that names the file.
func FuzzParseTasks(f *testing.F) {
	for _, seed := range []string{
		`{"id":"t1","question":"q"}`,
		`{"id":"t1","script":"s.js","lang":"js","limits":{"max_calls":3,"timeout":"1m"}}` + "\n# c\n" + `{"id":"t2","question":"q"}`,
		`{"id":"t","question":"q","limits":{"timeout":90}}`,
		`{"id":"t"`, "\n\n", `[1,2]`, `{"id":"a","question":"q"}{"id":"b","question":"q"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, file string) {
		tasks, err := parseTasks(strings.NewReader(file), "tasks.jsonl")
		if err != nil {
			if !errors.Is(err, fault.Schema) || !strings.HasPrefix(err.Error(), "tasks.jsonl") {
				t.Fatalf("error %v: want a schema error naming the file", err)
			}
			return
		}
		for _, tk := range tasks {
			if tk.ID == "" || (tk.Question == "") == (tk.Script == "") {
				t.Fatalf("accepted task %+v", tk)
			}
		}
	})
}
