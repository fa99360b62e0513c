package batch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
		{"unknown field", `{"id":"t1","question":"q","file":["a.txt"]}`, `tasks.jsonl:1: unknown field "file"; want one JSON object such as {"id": "t1", "question": "…", "files": ["a.txt"]} (fields: id, question, script, files, lang, limits)`, 0},
		{"no id", `{"question":"q"}`, `tasks.jsonl:1: no "id"`, 0},
		{"both", `{"id":"t","question":"q","script":"s.js"}`, `both "question" and "script"`, 0},
		{"neither", `{"id":"t","files":["a.txt"]}`, `neither "question" nor "script"`, 0},
		{"duplicate", `{"id":"t","question":"q"}` + "\n" + `{"id":"t","question":"r"}`, `tasks.jsonl:2: id "t" is already the id of line 1`, 0},
		{"missing file", `{"id":"t","question":"q","files":["nope.txt"]}`, `tasks.jsonl:1: task "t": stat`, 0},
		{"big script", `{"id":"t","script":"big.js"}`, "is 131074 bytes; a script may have at most 131072 (the validator's limit)", 0},
		{"directory", `{"id":"t","question":"q","files":["."]}`, "is not a regular file", 0},
		{"bad lang", `{"id":"t","question":"q","lang":"py"}`, `tasks.jsonl:1: task "t": `, 0},
		{"negative", `{"id":"t","question":"q","limits":{"max_calls":-1}}`, `task "t": limits.max_calls is -1; a limit must not be negative`, 0},
		{"bad duration", `{"id":"t","question":"q","limits":{"timeout":"soon"}}`, `tasks.jsonl:1: limits.timeout: want a duration such as "10m"`, 0},
		{"cell timeout", `{"id":"t","question":"q","limits":{"cell_timeout":"30s"}}`, "", 1},
		{"unknown limit", `{"id":"t","question":"q","limits":{"cell_timeout_seconds":3}}`, `tasks.jsonl:1: limits: unknown field "cell_timeout_seconds"; the fields of limits are max_calls, max_tokens, max_cost, max_iterations, timeout, cell_timeout`, 0},
		{"limit of another case", `{"id":"t","question":"q","limits":{"Max_Calls":3}}`, `limits: unknown field "Max_Calls"`, 0},
		{"limit of the wrong type", `{"id":"t","question":"q","limits":{"max_calls":"3"}}`, `tasks.jsonl:1: limits.max_calls: want a whole number, got a JSON string`, 0},
		{"fraction of a count", `{"id":"t","question":"q","limits":{"max_calls":1.5}}`, `tasks.jsonl:1: limits.max_calls: want a whole number, got a JSON number 1.5`, 0},
		{"null limits", `{"id":"t","question":"q","limits":null}`, "", 1},
		{"null duration", `{"id":"t","question":"q","limits":{"timeout":null}}`, "", 1},
		{"limits not an object", `{"id":"t","question":"q","limits":[3]}`, `tasks.jsonl:1: limits: want a JSON object, got [3]`, 0},
		{"duration past a Duration", `{"id":"t","question":"q","limits":{"timeout":1e10}}`, `limits.timeout: want a positive number of seconds of at most 9223372036, got 1e10`, 0},
		{"zero duration", `{"id":"t","question":"q","limits":{"cell_timeout":"0s"}}`, `limits.cell_timeout: want a positive duration such as "10m", got "0s"`, 0},
		{"negative seconds", `{"id":"t","question":"q","limits":{"timeout":-3}}`, `limits.timeout: want a positive number of seconds`, 0},
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
	// two whole lines, a duplicate id, a task not in the batch, and a line torn by a crash
	os.WriteFile(path, []byte(`{"id":"a","status":"answered"}`+"\n"+`{"id":"b","status":"failed"}`+"\n"+`{"id":"a","status":"failed"}`+"\n"+`{"id":"x","status":"answered"}`+"\n"+`{"id":"c","sta`), 0o644)
	ids := []string{"a", "b", "c", "d"}
	r, err := openResults(path, ids)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, fmt.Sprintf("%s:%v", id, r.has(id)))
	}
	if s := strings.Join(got, " "); s != "a:true b:true c:false d:false" || r.left() != 2 || !slices.Equal(r.failedIDs(), []string{"b"}) {
		t.Fatalf("loaded %s, %d left, failed %v; want a and b, 2 left, b failed", s, r.left(), r.failedIDs())
	}
	if _, err := openResults(path, ids); err == nil {
		t.Error("a second writer of the same results file was not refused")
	}
	for _, res := range []Result{{ID: "b", Status: "answered"}, {ID: "x", Status: "answered"}, {ID: "zz", Status: "answered"}} {
		if added, err := r.add(res); added || err != nil {
			t.Errorf("add of %s (has a result, or not a task of the batch): added %v, %v; want false", res.ID, added, err)
		}
	}
	if added, err := r.add(Result{ID: "c", Status: "answered"}); !added || err != nil || r.left() != 1 {
		t.Fatalf("add c: %v, %v, %d left", added, err, r.left())
	}
	r.close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[4], `{"id":"c","status":"answered"`) {
		t.Errorf("file after the torn line:\n%s", data)
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
