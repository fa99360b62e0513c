package taskset

import (
	"embed"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Task is one whole-file task: a question about generated inputs, and the cells a model wrote
// for it, one per language.
type Task struct {
	Name     string            // the file name without .txtar, e.g. "02-log-errors-by-service"
	Question string            // as a model is asked it
	Inputs   []string          // generated files, in --ctx order: the first is `context`, then ctx1, …
	Answer   string            // how answers compare: AnswerText, AnswerNumber or AnswerJSON
	Cells    map[string]string // language ("go", "js") → the cell's source
}

// How answers compare. Numbers compare within Tolerance wherever they occur: in a number, in
// JSON, or as the runs of digits in a text answer ("toys:7.25"); everything else exactly.
const (
	AnswerText   = "text"   // the text, trimmed of surrounding white space
	AnswerNumber = "number" // one number
	AnswerJSON   = "json"   // a JSON value: objects compare regardless of key order, arrays in order
)

// Tolerance is the largest difference between two numbers that still compare equal: answers
// are asked for rounded to 2 decimals, and a cell may round half-even where the reference
// rounds half away from zero.
const Tolerance = 0.006

// Langs are the languages every task has a cell in.
var Langs = []string{"go", "js"}

//go:embed tasks/*.txtar
var taskFiles embed.FS

// Load returns the tasks in name order.
func Load() ([]Task, error) {
	ents, err := taskFiles.ReadDir("tasks")
	if err != nil {
		return nil, err
	}
	var tasks []Task
	for _, e := range ents {
		b, err := taskFiles.ReadFile(path.Join("tasks", e.Name()))
		if err != nil {
			return nil, err
		}
		t, err := parseTask(strings.TrimSuffix(e.Name(), ".txtar"), b)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// parseTask reads a task file: "key: value" header lines (question, inputs, answer), then one
// section per language.
func parseTask(name string, b []byte) (Task, error) {
	a := txtar.Parse(b)
	t := Task{Name: name, Cells: map[string]string{}}
	for _, line := range strings.Split(string(a.Comment), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k, v, ok := strings.Cut(line, ": ")
		switch {
		case !ok:
			return t, fmt.Errorf("taskset: %s: header line %q is not \"key: value\"", name, line)
		case k == "question":
			t.Question = v
		case k == "inputs":
			t.Inputs = strings.Fields(v)
		case k == "answer":
			t.Answer = v
		default:
			return t, fmt.Errorf("taskset: %s: unknown header %q", name, k)
		}
	}
	for _, f := range a.Files {
		t.Cells[f.Name] = string(f.Data)
	}
	switch {
	case t.Question == "" || len(t.Inputs) == 0:
		return t, fmt.Errorf("taskset: %s: needs a question and inputs", name)
	case t.Answer != AnswerText && t.Answer != AnswerNumber && t.Answer != AnswerJSON:
		return t, fmt.Errorf("taskset: %s: answer %q is not text, number or json", name, t.Answer)
	}
	for _, in := range t.Inputs {
		if !slices.Contains(Inputs, in) {
			return t, fmt.Errorf("taskset: %s: unknown input %q", name, in)
		}
	}
	for _, l := range Langs {
		if t.Cells[l] == "" {
			return t, fmt.Errorf("taskset: %s: no %s cell", name, l)
		}
	}
	if len(t.Cells) != len(Langs) {
		return t, fmt.Errorf("taskset: %s: sections must be exactly %v", name, Langs)
	}
	return t, nil
}

// Want is the task's expected answer, computed from d's records by the reference
// implementation.
func (d *Data) Want(task string) (string, error) {
	ref, ok := references[task]
	if !ok {
		return "", fmt.Errorf("taskset: no reference answer for task %q", task)
	}
	return ref(d), nil
}

// Check compares an answer with the expected one under the task's answer kind. The error says
// how they differ.
func (t Task) Check(got, want string) error {
	got, want = strings.TrimSpace(got), strings.TrimSpace(want)
	var ok bool
	switch t.Answer {
	case AnswerNumber:
		g, err1 := strconv.ParseFloat(got, 64)
		w, err2 := strconv.ParseFloat(want, 64)
		ok = err1 == nil && err2 == nil && math.Abs(g-w) <= Tolerance
	case AnswerJSON:
		var g, w any
		ok = json.Unmarshal([]byte(got), &g) == nil && json.Unmarshal([]byte(want), &w) == nil && sameJSON(g, w)
	default:
		ok = sameText(got, want)
	}
	if !ok {
		return fmt.Errorf("wrong answer: got %s, want %s", clip(got), clip(want))
	}
	return nil
}

func sameJSON(g, w any) bool {
	switch w := w.(type) {
	case float64:
		g, ok := g.(float64)
		return ok && math.Abs(g-w) <= Tolerance
	case []any:
		g, ok := g.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameJSON(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := g.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !sameJSON(gv, wv) {
				return false
			}
		}
		return true
	default:
		return g == w
	}
}

var numberRun = regexp.MustCompile(`\d+(\.\d+)?`)

// sameText compares two texts exactly, except that their runs of digits compare as numbers.
func sameText(got, want string) bool {
	gs, ws := numberRun.Split(got, -1), numberRun.Split(want, -1)
	if !slices.Equal(gs, ws) {
		return false
	}
	gn, wn := numberRun.FindAllString(got, -1), numberRun.FindAllString(want, -1)
	for i := range wn {
		if gn[i] == wn[i] {
			continue
		}
		if !strings.Contains(gn[i]+wn[i], ".") {
			return false // integers (counts, ids) compare exactly
		}
		g, _ := strconv.ParseFloat(gn[i], 64)
		w, _ := strconv.ParseFloat(wn[i], 64)
		if math.Abs(g-w) > Tolerance {
			return false
		}
	}
	return true
}

// clip shortens an answer for a message.
func clip(s string) string {
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return strconv.Quote(s)
}
