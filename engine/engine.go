package engine

import (
	"context"
	"strings"
)

// Host is the trusted side of the model API. Engines call it with plain data and get plain data
// back. The host enforces every cap and every path check itself, so an engine whose prelude is
// bypassed (the validator switched off, a hardening gap) still cannot do more than the API allows.
type Host interface {
	Call(ctx context.Context, name string, args []any) (any, error)
}

// Result is the outcome of one cell.
type Result struct {
	Stdout    string // captured output, capped (see OutputCap), with a marker stating the true length
	Truncated bool   // Stdout was capped
	Final     *Final // set when the cell called FINAL or FINAL_VAR
	Err       error  // nil, or an error of a fault kind (code, timeout, limit, denied, ...)
	// Rebuild is set when the engine is left unusable, such as a heap still over its limit
	// after the cell failed: the session should replace the worker and replay its journal.
	Rebuild bool
}

// Final is an answer recorded host-side. Value is the host's serialisation: a string as it is,
// anything else as JSON.
type Final struct {
	Value string
}

// OutputCap is the default cap on a cell's output, in characters.
const OutputCap = 100_000

// Param is one parameter of an API function.
type Param struct {
	Name   string
	GoType string // the type in the Go prelude, e.g. "int", "string", "Context", "[]string"; "...int" is optional (JS) or variadic (Go)
}

// Variadic reports whether the function's last parameter is variadic ("...T"): it may be left
// out, and only print takes more than one.
func (f Func) Variadic() bool {
	return len(f.Params) > 0 && strings.HasPrefix(f.Params[len(f.Params)-1].GoType, "...")
}

// Func is one model-facing function. The same entry generates the Go prelude function, the JS
// global and the line in the system prompt.
type Func struct {
	Name   string  // the name model code uses, in both languages
	Params []Param //
	Result string  // the Go result type ("" for none); JS returns the same data as plain values
	Doc    string  // one line for the system prompt; caps are Limits placeholders, see Describe
}

// API is the model-facing API, in the order the system prompt lists it. FINAL, FINAL_VAR and
// print are implemented by the engines themselves (host-side recording and capped capture);
// everything else goes through Host.Call with the same name.
var API = []Func{
	{"length", []Param{{"ctx", "Context"}}, "int", "size of the context in characters (Unicode code points)"},
	{"peek", []Param{{"ctx", "Context"}, {"offset", "int"}, {"length", "int"}}, "string", "text of characters [offset, offset+length); at most {PeekChars} per call; past the end reads as \"\""},
	{"text", []Param{{"ctx", "Context"}}, "string", "the whole context as one string, if it has at most {TextChars} characters (else an error: read it with peek or chunk)"},
	{"search", []Param{{"ctx", "Context"}, {"regex", "string"}, {"from", "...int"}}, "[]Match",
		"RE2 matches in order, at most {SearchResults} per call, from match number from (optional, default 0); each {start, end, line, text, line_text, ref, index, total}: text is the matched text and line_text the line it starts on, each cut at {MatchChars} characters; index is the match's number and total the number of matches in the whole context, so search(ctx, regex, last.index+1) reads the next page"},
	{"count", []Param{{"ctx", "Context"}, {"regex", "string"}}, "int", "number of RE2 matches, uncapped"},
	{"chunk", []Param{{"ctx", "Context"}, {"size", "int"}, {"overlap", "int"}}, "[]Slice", "slice descriptors {index, start, end}; at most {Chunks}"},
	{"llm_query", []Param{{"prompt", "string"}}, "string", "one sub-model call; at most {SubCalls} per run, batched slots included"},
	{"llm_query_batched", []Param{{"prompts", "[]string"}}, "[]string", "concurrent sub-calls, results in order; a failed slot is an error string; at most {Batches} batches per run, {BatchWidth} prompts at a time"},
	{"read_file", []Param{{"path", "string"}}, "string", "a file inside the allowed roots; at most {ReadChars} characters"},
	{"list_dir", []Param{{"path", "string"}}, "[]string", "entries of a directory inside the allowed roots"},
	{"file_info", []Param{{"path", "string"}}, "FileInfo", "{name, size, is_dir, mod_time} of a path inside the allowed roots"},
	{"grep", []Param{{"regex", "string"}, {"path", "string"}}, "[]Match", "RE2 matches in a file or directory inside the allowed roots; at most {GrepResults}"},
	{"write_file", []Param{{"path", "string"}, {"content", "string"}}, "", "write into the workspace only; at most {WriteBytes} bytes"},
	{"FINAL", []Param{{"value", "any"}}, "", "record the answer (at most {FinalChars} characters); the run ends after this cell"},
	{"FINAL_VAR", []Param{{"name", "string"}}, "", "record the value of the named variable as the answer (at most {FinalChars} characters)"},
	{"print", []Param{{"values", "...any"}}, "", "output shown to you; at most {OutputChars} characters per cell"},
}

// Lookup returns the API function with the given name.
func Lookup(name string) (Func, bool) {
	for _, f := range API {
		if f.Name == name {
			return f, true
		}
	}
	return Func{}, false
}
