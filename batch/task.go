package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/tools"
)

// Task is one line of a tasks file: what to ask (a question or a script) of which files.
// The ID is the user's; it names the task's line in the results.
type Task struct {
	ID       string   `json:"id"`
	Question string   `json:"question,omitempty"`
	Script   string   `json:"script,omitempty"` // a script file, run as rlm run --script runs it
	Files    []string `json:"files,omitempty"`  // context files; relative paths resolve against the tasks file's directory
	Lang     string   `json:"lang,omitempty"`
	Limits   Limits   `json:"limits,omitzero"`
}

// Limits are a task's own limits. They only lower the limits of the worker that runs it (rlm
// run's, from its configuration): a zero field keeps the worker's, and a larger one runs with the
// worker's, which its result's Notes then name.
type Limits struct {
	MaxCalls      int      `json:"max_calls,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	MaxCost       float64  `json:"max_cost,omitempty"` // US dollars
	MaxIterations int      `json:"max_iterations,omitempty"`
	Timeout       Duration `json:"timeout,omitzero"`      // the whole run: "10m"
	CellTimeout   Duration `json:"cell_timeout,omitzero"` // each cell: "30s"
}

// UnmarshalJSON reads a limits object (null: none); a field that is not a limit is an error
// that lists the limits, and an error names the limit it is about.
func (l *Limits) UnmarshalJSON(b []byte) error {
	if string(b) == "null" { // as absent
		return nil
	}
	type plain Limits // without this method
	return decodeObject(b, (*plain)(l), "limits")
}

// Duration is a time.Duration written as Go writes durations ("90s", "10m").
type Duration time.Duration

// maxSeconds is the longest duration a Duration holds, in seconds (about 292 years).
const maxSeconds = math.MaxInt64 / int64(time.Second)

// UnmarshalJSON reads "10m" or a number of seconds. Either is checked before it is converted:
// it must be positive and fit a Duration (a larger number would wrap around to a negative one).
// JSON null leaves the duration unset.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var secs float64
		if json.Unmarshal(b, &secs) != nil {
			return fmt.Errorf("want a duration such as \"10m\" or a number of seconds, got %s", b)
		}
		if !(secs > 0 && secs <= float64(maxSeconds)) { // NaN fails both
			return fmt.Errorf("want a positive number of seconds of at most %d, got %s", maxSeconds, b)
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s) // refuses what overflows
	switch {
	case err != nil:
		return fmt.Errorf("want a duration such as \"10m\", got %q", s)
	case v <= 0:
		return fmt.Errorf("want a positive duration such as \"10m\", got %q", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as "10m0s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// maxLine is the longest task line read (a line holds paths and a question, not inputs).
const maxLine = 1 << 20

// maxTasksFile is the largest tasks file read: its tasks are all held at once.
const maxTasksFile = 256 << 20

// ReadTasks reads a tasks file: one JSON object per line; blank lines and lines starting with
// # are skipped. Each task is checked (an id, exactly one of question and script, the script
// and the files are regular files, the language is known, limits not negative) and ids must be
// unique. Its errors are of kind schema and name the file and the line. The file itself must be
// a regular file (a fifo is refused, never waited on) of at most maxTasksFile bytes.
func ReadTasks(path string) ([]Task, error) {
	f, err := tools.OpenRegular(path)
	if err != nil {
		return nil, fault.Wrap(fault.Schema, err, "tasks file")
	}
	defer f.Close()
	r := &io.LimitedReader{R: f, N: maxTasksFile + 1}
	tasks, err := parseTasks(r, path)
	if r.N == 0 {
		return nil, fault.New(fault.Schema, "%s: tasks file larger than %d bytes; split it into several batches", path, maxTasksFile)
	}
	return tasks, err
}

func parseTasks(r io.Reader, path string) ([]Task, error) {
	dir := filepath.Dir(path)
	seen := map[string]int{}
	var tasks []Task
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		t, err := parseTask(line, dir)
		if err != nil {
			return nil, fault.New(fault.Schema, "%s:%d: %v", path, n, err)
		}
		if first, dup := seen[t.ID]; dup {
			return nil, fault.New(fault.Schema, "%s:%d: id %q is already the id of line %d; give every task its own id", path, n, t.ID, first)
		}
		seen[t.ID] = n
		tasks = append(tasks, t)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fault.New(fault.Schema, "%s:%d: line longer than %d bytes; name input files in \"files\" instead of inlining them", path, len(seen)+1, maxLine)
		}
		return nil, fault.Wrap(fault.Schema, err, path)
	}
	if len(tasks) == 0 {
		return nil, fault.New(fault.Schema, "%s: no tasks; write one JSON object per line, such as {\"id\": \"t1\", \"question\": \"…\", \"files\": [\"a.txt\"]}", path)
	}
	return tasks, nil
}

// parseTask reads and checks one line; files and the script resolve against dir.
func parseTask(line []byte, dir string) (Task, error) {
	var t Task
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		var fe *fieldError
		if errors.As(err, &fe) { // inside limits: its own fields
			return t, fe
		}
		return t, fmt.Errorf("%v; want one JSON object such as {\"id\": \"t1\", \"question\": \"…\", \"files\": [\"a.txt\"]} (fields: %s)", jsonErr(err), strings.Join(jsonNames(reflect.TypeFor[Task]()), ", "))
	}
	if dec.More() {
		return t, fmt.Errorf("more than one JSON value on the line; put one task per line")
	}
	switch {
	case strings.TrimSpace(t.ID) == "":
		return t, fmt.Errorf("no \"id\"; give every task a unique id")
	case t.Question != "" && t.Script != "":
		return t, fmt.Errorf("task %q has both \"question\" and \"script\"; give one", t.ID)
	case t.Question == "" && t.Script == "":
		return t, fmt.Errorf("task %q has neither \"question\" nor \"script\"", t.ID)
	}
	if t.Lang != "" {
		if _, err := source.ParseLang(t.Lang); err != nil {
			return t, fmt.Errorf("task %q: %v", t.ID, err)
		}
	}
	if err := t.Limits.check(); err != nil {
		return t, fmt.Errorf("task %q: %v", t.ID, err)
	}
	if t.Script != "" {
		t.Script = resolvePath(dir, t.Script)
		st, err := os.Stat(t.Script)
		switch {
		case err != nil:
			return t, fmt.Errorf("task %q: script: %v", t.ID, err)
		case !st.Mode().IsRegular():
			return t, fmt.Errorf("task %q: script %s is not a regular file (%s); name a script file", t.ID, t.Script, kindOf(st.Mode()))
		}
		if limit := int64(maxScript()); st.Size() > limit {
			return t, fmt.Errorf("task %q: script %s is %d bytes; a script may have at most %d (the validator's limit): put data in the task's files and read it with text(context), or split the script into tasks", t.ID, t.Script, st.Size(), limit)
		}
	}
	for i, p := range t.Files {
		t.Files[i] = resolvePath(dir, p)
		st, err := os.Stat(t.Files[i])
		switch {
		case err != nil:
			return t, fmt.Errorf("task %q: %v", t.ID, err)
		case !st.Mode().IsRegular():
			return t, fmt.Errorf("task %q: %s is not a regular file (%s); name files, not directories, pipes or devices", t.ID, t.Files[i], kindOf(st.Mode()))
		}
	}
	return t, nil
}

// check refuses a negative limit (a negative duration cannot be read).
func (l Limits) check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"max_calls", float64(l.MaxCalls)}, {"max_tokens", float64(l.MaxTokens)}, {"max_cost", l.MaxCost}, {"max_iterations", float64(l.MaxIterations)}} {
		if f.v < 0 {
			return fmt.Errorf("limits.%s is %v; a limit must not be negative (0 or absent keeps the worker's)", f.name, f.v)
		}
	}
	return nil
}

// maxScript is the largest script a task may name: the validator's limit on a cell's source.
func maxScript() int { return limits.SourceBytes }

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// fieldError is an error in one field of a nested object of a task line ("limits.timeout").
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

// decodeObject decodes the JSON object b into the struct that dst points to, whose fields all
// have JSON names; name is the object's field in the task line. A key that is none of its
// fields is refused with the list of those that are, and every error names its field.
func decodeObject(b []byte, dst any, name string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return &fieldError{name, fmt.Sprintf("want a JSON object, got %.40s", b)}
	}
	v := reflect.ValueOf(dst).Elem()
	names := jsonNames(v.Type())
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		i := slices.Index(names, k)
		if i < 0 {
			return &fieldError{name, fmt.Sprintf("unknown field %q; the fields of %s are %s", k, name, strings.Join(names, ", "))}
		}
		if err := json.Unmarshal(obj[k], v.Field(i).Addr().Interface()); err != nil {
			return &fieldError{name + "." + k, jsonErr(err)}
		}
	}
	return nil
}

// jsonNames are the JSON names of a struct's fields, in their order (each field has one).
func jsonNames(t reflect.Type) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}

// jsonErr is a decoding error without encoding/json's Go type names.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := fmt.Sprintf("want %s, got a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)
		if te.Field == "" {
			return want
		}
		return fmt.Sprintf("field %q: %s", te.Field, want)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "a list"
	case "struct":
		return "an object"
	case "int", "int64":
		return "a whole number"
	case "float64":
		return "a number"
	}
	return "a " + k
}
