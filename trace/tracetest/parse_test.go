package tracetest

import (
	"strings"
	"testing"
)

const meta = `{"type":"metadata","root_model":"m","max_iterations":3}`

func iter(prompt, blocks, final string) string {
	return `{"type":"iteration","prompt":` + prompt + `,"response":"r","code_blocks":` + blocks + `,"final_answer":` + final + `,"iteration_time":null}`
}

func TestParse(t *testing.T) {
	user := func(s string) string {
		return `[{"role":"system","content":"sys"},{"role":"user","content":"` + s + `"}]`
	}
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, content string
		iterations    int
		question      string
		final         string
		skipped       int
		errs, subs    int
		time          float64
	}{
		{"original query wins", meta + "\n" + iter(user(`Question: q\\nthe original query: \"Which user?\"`), `[]`, `null`),
			1, "Which user?", "", 0, 0, 0, 0},
		{"a user message of 51 to 499 units", meta + "\n" + iter(user(long), `[]`, `"done"`),
			1, strings.Repeat("x", 200) + "...", "done", 0, 0, 0, 0},
		{"too short, no fallback", iter(user("short"), `[]`, `null`),
			1, "Context available in REPL environment", "", 0, 0, 0, 0},
		{"answer the prompt is passed over", iter(user("please answer the prompt "+long[:60]), `[]`, `null`),
			1, "Context available in REPL environment", "", 0, 0, 0, 0},
		{"unparsable and null lines are skipped", "{oops\nnull\n" + iter(user("q"), `[]`, `["v","42"]`),
			1, "Context available in REPL environment", "42", 2, 0, 0, 0},
		{"totals", iter(`[]`, `[{"code":"c","result":{"stderr":"boom","execution_time":0.5,"rlm_calls":[{},{}]}},{"code":"d","result":{"stderr":"","execution_time":0.25,"rlm_calls":[]}}]`, `null`),
			1, "Context available in REPL environment", "", 0, 1, 2, 0.75},
		{"no iterations", meta, 0, "No context found", "", 0, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(tt.content)
			if err != nil {
				t.Fatal(err)
			}
			final := ""
			if f.FinalAnswer != nil {
				final = *f.FinalAnswer
			}
			errs := 0
			if f.HasErrors {
				errs = 1
			}
			if len(f.Iterations) != tt.iterations || f.ContextQuestion != tt.question || final != tt.final ||
				len(f.Skipped) != tt.skipped || errs != tt.errs || f.TotalSubLMCalls != tt.subs || f.TotalExecutionTime != tt.time {
				t.Errorf("got iterations %d, question %q, final %q, skipped %v, errors %v, sub-calls %d, time %v\nwant %d, %q, %q, %d, %d, %d, %v",
					len(f.Iterations), f.ContextQuestion, final, f.Skipped, f.HasErrors, f.TotalSubLMCalls, f.TotalExecutionTime,
					tt.iterations, tt.question, tt.final, tt.skipped, tt.errs, tt.subs, tt.time)
			}
		})
	}
}

// TestParseThrows: records the visualizer cannot read fail the whole file.
func TestParseThrows(t *testing.T) {
	for _, content := range []string{
		meta + "\n" + `{"type":"outcome","status":"ANSWERED"}`, // a line of a new type is an iteration without code_blocks
		`[1,2]`,
		iter(`{"a":1}`, `[]`, `null`),
	} {
		if _, err := Parse(content); err == nil {
			t.Errorf("Parse(%s) succeeded; the visualizer throws on it", content)
		}
	}
}

func TestLastMetadataWins(t *testing.T) {
	f, err := Parse(meta + "\n" + `{"type":"metadata","backend":"b"}`)
	if err != nil {
		t.Fatal(err)
	}
	if f.MetadataLines != 2 || f.Config["root_model"] != nil || f.Config["backend"] != "b" {
		t.Errorf("config = %v after %d metadata lines; want the second line's, root_model null", f.Config, f.MetadataLines)
	}
}
