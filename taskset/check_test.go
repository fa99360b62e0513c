package taskset

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		answer, got, want string
		ok                bool
	}{
		{AnswerText, "api-gateway:178", "api-gateway:178", true},
		{AnswerText, " api-gateway:178\n", "api-gateway:178", true},
		{AnswerText, "api-gateway:177", "api-gateway:178", false}, // integers compare exactly
		{AnswerText, "auth:178", "api-gateway:178", false},
		{AnswerText, "toys:11.59", "toys:11.59", true},
		{AnswerText, "toys:11.594", "toys:11.59", true}, // decimals within Tolerance
		{AnswerText, "toys:11.60", "toys:11.59", false},
		{AnswerText, "toys 11.59", "toys:11.59", false},
		{AnswerText, "e0000123", "e123", false},
		{AnswerText, "", "x", false},
		{AnswerNumber, "165316.84", "165316.84", true},
		{AnswerNumber, "165316.8412", "165316.84", true},
		{AnswerNumber, "165316.85", "165316.84", false},
		{AnswerNumber, "683", "683", true},
		{AnswerNumber, "684", "683", false},
		{AnswerNumber, "683 requests", "683", false},
		{AnswerJSON, `{"b":2,"a":1}`, `{"a":1,"b":2}`, true}, // key order is free
		{AnswerJSON, `{"a":1}`, `{"a":1,"b":2}`, false},
		{AnswerJSON, `{"a":1,"b":2,"c":3}`, `{"a":1,"b":2}`, false},
		{AnswerJSON, `{"a":1.004}`, `{"a":1}`, true},
		{AnswerJSON, `{"a":"1"}`, `{"a":1}`, false},
		{AnswerJSON, `["x","y"]`, `["x","y"]`, true},
		{AnswerJSON, `["y","x"]`, `["x","y"]`, false}, // arrays in order
		{AnswerJSON, `["x"]`, `["x","y"]`, false},
		{AnswerJSON, `x, y`, `["x","y"]`, false},
	}
	for _, tt := range tests {
		err := Task{Answer: tt.answer}.Check(tt.got, tt.want)
		if (err == nil) != tt.ok {
			t.Errorf("%s Check(%q, %q) = %v, want ok=%v", tt.answer, tt.got, tt.want, err, tt.ok)
		}
	}
}

// TestTasks checks the corpus against itself: every task parses, has a cell per language and a
// reference answer, and every reference has a task.
func TestTasks(t *testing.T) {
	tasks, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 40 {
		t.Errorf("%d tasks; the acceptance corpus needs at least 40", len(tasks))
	}
	names := map[string]bool{}
	for _, task := range tasks {
		names[task.Name] = true
		if _, ok := references[task.Name]; !ok {
			t.Errorf("%s: no reference answer", task.Name)
		}
	}
	for name := range references {
		if !names[name] {
			t.Errorf("reference %s has no task file", name)
		}
	}
	for _, q := range quick {
		if !names[q] {
			t.Errorf("the quick subset names %s, which does not exist", q)
		}
	}
}

func TestParseTaskErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no-header-colon", "question\n-- go --\nx\n-- js --\nx\n", "not \"key: value\""},
		{"unknown-key", "question: q\ninputs: book.txt\nanswer: text\nlevel: 3\n-- go --\nx\n-- js --\nx\n", "unknown header"},
		{"bad-answer", "question: q\ninputs: book.txt\nanswer: fuzzy\n-- go --\nx\n-- js --\nx\n", "not text, number or json"},
		{"bad-input", "question: q\ninputs: nope.txt\nanswer: text\n-- go --\nx\n-- js --\nx\n", "unknown input"},
		{"no-js", "question: q\ninputs: book.txt\nanswer: text\n-- go --\nx\n", "no js cell"},
		{"extra", "question: q\ninputs: book.txt\nanswer: text\n-- go --\nx\n-- js --\nx\n-- py --\nx\n", "sections must be"},
	}
	for _, tt := range tests {
		_, err := parseTask(tt.name, []byte(tt.src))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
}

// goldenFile pins the generated inputs: a changed generator (or a Go release that changes
// math/rand/v2's derived draws) changes the answers, and the messages of known failures that
// quote them.
const goldenFile = "testdata/inputs.sha256"

func TestInputsGolden(t *testing.T) {
	dir, _ := inputs(t)
	var b strings.Builder
	for _, name := range Inputs {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 1_000_000 || len(data) > 5_000_000 {
			t.Errorf("%s is %d bytes; the inputs are meant to be 1–5 MB", name, len(data))
		}
		sum := sha256.Sum256(data)
		b.WriteString(hex.EncodeToString(sum[:]) + "  " + name + "\n")
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("generated inputs differ from %s (rewrite with -update, then check the answers):\ngot:\n%s", goldenFile, got)
	}
}

// TestHarnessReports shows that the harness can fail: a wrong answer, an error and a missing
// FINAL are each reported, through real sessions.
func TestHarnessReports(t *testing.T) {
	dir, _ := inputs(t)
	tests := []struct {
		lang, src, want string
	}{
		{"js", `FINAL(count(context, "CHAPTER") - 1)`, `wrong answer: got "39", want "40"`},
		{"go", `FINAL(count(context, "CHAPTER"))`, ""},
		{"go", `FINAL(undefinedThing)`, "undefined"},
		{"js", `print("thinking")`, "no FINAL; output: thinking"},
	}
	for _, tt := range tests {
		c := &cell{task: Task{Name: "probe", Inputs: []string{"book.txt"}, Answer: AnswerNumber, Cells: map[string]string{tt.lang: tt.src}}, lang: tt.lang, want: "40"}
		runCell(dir, c)
		if tt.want == "" && c.msg != "" || !strings.Contains(c.msg, tt.want) {
			t.Errorf("%s %q: msg = %q, want it to contain %q", tt.lang, tt.src, c.msg, tt.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	got := oneLine("/tmp/x/orders.csv: bad\nsecond\nthird", "/tmp/x")
	if want := "$DATA/orders.csv: bad [+2 lines]"; got != want {
		t.Errorf("oneLine = %q, want %q", got, want)
	}
	long := strings.Repeat("é", 400)
	if got := oneLine(long, "/nowhere"); len([]rune(got)) != 301 || !strings.HasSuffix(got, "…") {
		t.Errorf("oneLine(400 runes) = %d runes", len([]rune(got)))
	}
	if !slices.Equal(Langs, []string{"go", "js"}) {
		t.Errorf("Langs = %v", Langs)
	}
}
