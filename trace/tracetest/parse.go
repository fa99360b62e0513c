package tracetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
)

// LogFile is what the reference visualizer computes from a trace.
type LogFile struct {
	Config             map[string]any   // the configuration of the last metadata line; nil without one
	MetadataLines      int              // how many lines set the configuration
	Iterations         []map[string]any // every other parsed line, in order
	Skipped            []int            // lines (from 1, after trimming) JSON.parse rejects
	TotalCodeBlocks    int
	TotalSubLMCalls    int
	TotalExecutionTime float64
	HasErrors          bool
	FinalAnswer        *string
	ContextQuestion    string
}

// Parse reads content as parseLogFile does; see the package documentation.
func Parse(content string) (LogFile, error) {
	var f LogFile
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(content), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		n++
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil || v == nil {
			f.Skipped = append(f.Skipped, n)
			continue
		}
		if m, ok := v.(map[string]any); ok && m["type"] == "metadata" {
			f.Config = config(m)
			f.MetadataLines++
			continue
		}
		m, _ := v.(map[string]any) // an array or a scalar is an iteration too, with no fields
		f.Iterations = append(f.Iterations, m)
	}
	if err := f.compute(); err != nil {
		return LogFile{}, err
	}
	q, err := question(f.Iterations)
	if err != nil {
		return LogFile{}, err
	}
	f.ContextQuestion = q
	return f, nil
}

func config(m map[string]any) map[string]any {
	c := map[string]any{}
	for _, k := range []string{"root_model", "max_depth", "max_iterations", "backend", "backend_kwargs",
		"environment_type", "environment_kwargs", "other_backends"} {
		c[k] = m[k] // a missing key reads as null
	}
	return c
}

func (f *LogFile) compute() error {
	for i, it := range f.Iterations {
		blocks, ok := it["code_blocks"].([]any)
		if !ok {
			return fmt.Errorf("iteration %d: code_blocks is %T, not an array: the visualizer throws reading its length", i+1, it["code_blocks"])
		}
		f.TotalCodeBlocks += len(blocks)
		t, hasTime := it["iteration_time"].(float64)
		if hasTime {
			f.TotalExecutionTime += t
		}
		for _, b := range blocks {
			res, _ := field(b, "result").(map[string]any)
			if res == nil {
				continue
			}
			if !hasTime {
				et, _ := res["execution_time"].(float64)
				f.TotalExecutionTime += et
			}
			if truthy(res["stderr"]) {
				f.HasErrors = true
			}
			if truthy(res["rlm_calls"]) {
				calls, ok := res["rlm_calls"].([]any)
				if !ok {
					return fmt.Errorf("iteration %d: rlm_calls is %T, not an array", i+1, res["rlm_calls"])
				}
				f.TotalSubLMCalls += len(calls)
			}
		}
		if truthy(it["final_answer"]) {
			f.FinalAnswer = finalAnswer(it["final_answer"])
		}
	}
	return nil
}

func field(v any, k string) any {
	m, _ := v.(map[string]any)
	return m[k]
}

// truthy is JavaScript's truthiness for a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

func finalAnswer(v any) *string {
	if a, ok := v.([]any); ok {
		if len(a) < 2 {
			return nil
		}
		s, _ := a[1].(string)
		return &s
	}
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return &s
}

var (
	originalQuery   = regexp.MustCompile(`original query: "([^"]+)"`)
	contextVariable = regexp.MustCompile(`(?i)context variable.*?:(.*?)(?:\n|$)`)
)

// units is the length of s in UTF-16 code units, JavaScript's string length.
func units(s string) int { return len(utf16.Encode([]rune(s))) }

func sliceUnits(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

var errNotIterable = errors.New("the first iteration's prompt is not iterable: the visualizer throws")

func question(its []map[string]any) (string, error) {
	if len(its) == 0 {
		return "No context found", nil
	}
	var msgs []map[string]any
	switch p := its[0]["prompt"].(type) {
	case []any:
		for _, m := range p {
			mm, _ := m.(map[string]any)
			msgs = append(msgs, mm)
		}
	case string: // iterated character by character: no message has a role
	default:
		return "", errNotIterable
	}
	for _, m := range msgs {
		if m["role"] != "user" || !truthy(m["content"]) {
			continue
		}
		c, ok := m["content"].(string)
		if !ok {
			return "", errors.New("a user message's content is not a string: the visualizer throws calling match")
		}
		if sm := originalQuery.FindStringSubmatch(c); sm != nil {
			return sm[1], nil
		}
		if strings.Contains(c, "answer the prompt") {
			continue
		}
		if n := units(c); n > 50 && n < 500 {
			if n > 200 {
				return sliceUnits(c, 200) + "...", nil
			}
			return c, nil
		}
	}
	for _, m := range msgs {
		if m["role"] == "system" {
			if c, ok := m["content"].(string); ok && c != "" {
				if sm := contextVariable.FindStringSubmatch(c); sm != nil {
					return sliceUnits(strings.TrimSpace(sm[1]), 200), nil
				}
			}
			break
		}
	}
	for _, it := range its {
		blocks, _ := it["code_blocks"].([]any)
		for _, b := range blocks {
			locals, _ := field(field(b, "result"), "locals").(map[string]any)
			if c, ok := locals["context"].(string); ok && c != "" && units(c) < 500 {
				return c, nil
			}
		}
	}
	return "Context available in REPL environment", nil
}
