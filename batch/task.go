package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/validator"
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

// Limits are a task's own limits; a zero field keeps the batch's default (rlm run's).
type Limits struct {
	MaxCalls      int      `json:"max_calls,omitempty"`
	MaxTokens     int      `json:"max_tokens,omitempty"`
	MaxCost       float64  `json:"max_cost,omitempty"` // US dollars
	MaxIterations int      `json:"max_iterations,omitempty"`
	Timeout       Duration `json:"timeout,omitzero"` // "10m"
}

// Duration is a time.Duration written as Go writes durations ("90s", "10m").
type Duration time.Duration

// UnmarshalJSON reads "10m" (or a number of seconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var secs float64
		if json.Unmarshal(b, &secs) != nil {
			return fmt.Errorf("want a duration such as \"10m\" or a number of seconds, got %s", b)
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as \"10m\", got %q", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as "10m0s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// maxLine is the longest task line read (a line holds paths and a question, not inputs).
const maxLine = 1 << 20

// ReadTasks reads a tasks file: one JSON object per line; blank lines and lines starting with
// # are skipped. Each task is checked (an id, exactly one of question and script, the files
// exist, the language is known, limits not negative) and ids must be unique. Its errors are of
// kind schema and name the file and the line.
func ReadTasks(path string) ([]Task, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fault.Wrap(fault.Schema, err, "tasks file")
	}
	defer f.Close()
	return parseTasks(f, path)
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
		return t, fmt.Errorf("%v; want one JSON object such as {\"id\": \"t1\", \"question\": \"…\", \"files\": [\"a.txt\"]} (fields: id, question, script, files, lang, limits)", jsonErr(err))
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
		if _, err := validator.ParseLang(t.Lang); err != nil {
			return t, fmt.Errorf("task %q: %v", t.ID, err)
		}
	}
	if err := t.Limits.check(); err != nil {
		return t, fmt.Errorf("task %q: %v", t.ID, err)
	}
	if t.Script != "" {
		t.Script = resolvePath(dir, t.Script)
		st, err := os.Stat(t.Script)
		if err != nil {
			return t, fmt.Errorf("task %q: script: %v", t.ID, err)
		}
		if limit := int64(validator.Policy{}.Effective().MaxSourceBytes); st.Size() > limit {
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
			return t, fmt.Errorf("task %q: %s is not a regular file; name files, not directories", t.ID, t.Files[i])
		}
	}
	return t, nil
}

func (l Limits) check() error {
	switch {
	case l.MaxCalls < 0, l.MaxTokens < 0, l.MaxIterations < 0, l.MaxCost < 0, l.Timeout < 0:
		return fmt.Errorf("limits must not be negative (0 or absent keeps the batch's default)")
	}
	return nil
}

func resolvePath(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// jsonErr is a decoding error without encoding/json's Go type names.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q: want %s, got a JSON %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "a list"
	case "struct":
		return "an object"
	case "int", "float64":
		return "a number"
	}
	return "a " + k
}
