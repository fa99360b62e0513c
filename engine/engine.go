package engine

import (
	"context"
	"strings"

	"github.com/rlm-sandbox/rlm/limits"
)

// Host is the trusted side of the model API. Engines call it with plain data and get plain data
// back. The host enforces every cap and every path check itself, so an engine whose prelude is
// bypassed (the validator switched off, a hardening gap) still cannot do more than the API allows.
type Host interface {
	Call(ctx context.Context, name string, args []any) (any, error)
}

// Result is the outcome of one cell.
type Result struct {
	Stdout    string // captured output, capped (Limits.OutputChars), with a marker stating the true length
	Truncated bool   // Stdout was capped
	Final     *Final // set when the cell called FINAL or FINAL_VAR
	Err       error  // nil, or an error of a fault kind (code, timeout, limit, denied, ...)
	// Rebuild is set when the engine is left unusable, such as a heap still over its limit
	// after the cell failed: the session should replace the worker and replay its journal.
	Rebuild bool
	// NotRun is set when the cell failed before any of it ran (it did not parse, type-check
	// or compile): a replay of the session does not repeat it. yaegi may keep names whose
	// compilation failed, with zero values; a replay does not bring them back, and the replay of
	// a later cell that used one reports it (repl's replayedAs).
	NotRun bool
}

// Final is an answer recorded host-side. Value is the host's serialisation: a string as it is,
// anything else as JSON.
type Final struct {
	Value string
}

// Param is one parameter of an API function.
type Param struct {
	Name   string
	GoType string // the type in the Go prelude, e.g. "int", "string", "Context", "[]string", "Opts", "any"
	Arity  Arity
}

// Arity is how many arguments a parameter takes. Only a function's last parameter may take
// other than one.
type Arity int

const (
	One      Arity = iota // exactly one argument
	Optional              // none or one (search's from): Go has no optional parameters, so the prelude declares it variadic
	Repeated              // any number (print's values)
)

// Go is the parameter as the Go prelude declares it: "offset int", "from ...int", "values ...any".
func (p Param) Go() string {
	if p.Arity != One {
		return p.Name + " ..." + p.GoType
	}
	return p.Name + " " + p.GoType
}

// JS is the parameter as a JavaScript signature shows it: "offset", "from?", "...values".
func (p Param) JS() string {
	switch p.Arity {
	case Optional:
		return p.Name + "?"
	case Repeated:
		return "..." + p.Name
	}
	return p.Name
}

// Variadic reports whether the function's last parameter may be left out: it is Optional (at
// most one argument) or Repeated (any number; only print's).
func (f Func) Variadic() bool {
	return len(f.Params) > 0 && f.Params[len(f.Params)-1].Arity != One
}

// Signature is the function as the system prompt shows it in lang ("go" or "js"):
// "search(ctx Context, regex string, from ...int) []Match", "search(ctx, regex, from?)".
func (f Func) Signature(lang string) string {
	ps := make([]string, len(f.Params))
	for i, p := range f.Params {
		if lang == "go" {
			ps[i] = p.Go()
		} else {
			ps[i] = p.JS()
		}
	}
	sig := f.Name + "(" + strings.Join(ps, ", ") + ")"
	if lang == "go" && f.Result != "" {
		sig += " " + f.Result
	}
	return sig
}

// Func is one model-facing function. The same entry generates the Go prelude function, the JS
// global and the line in the system prompt, and says who serves a call, what the call is
// counted against, and how a replay of the session's journal serves it again.
type Func struct {
	Name   string  // the name model code uses, in both languages
	Params []Param //
	Result string  // the Go result type ("" for none); JS returns the same data as plain values
	Doc    string  // one line for the system prompt; caps are Limits placeholders, see Describe
	Place  Place   // who serves a call
	Budget Budget  // what a call is counted against
	Replay Replay  // how a replay serves a call
}

// API is the model-facing API, in the order the system prompt lists it. FINAL, FINAL_VAR and
// print are implemented by the engines themselves (host-side recording and capped capture);
// everything else goes through Host.Call with the same name, to the worker's host or, through
// it, to the parent's (Place).
var API = []Func{
	{"length", []Param{{"ctx", "Context", One}}, "int", "size of the context in characters (Unicode code points)", InWorker, NoBudget, Rerun},
	{"peek", []Param{{"ctx", "Context", One}, {"offset", "int", One}, {"length", "int", One}}, "string", "the characters [offset, offset+length), at most {PeekChars} per call (a longer length is an error), cut at the end of the context (past it: \"\")", InWorker, NoBudget, Rerun},
	{"text", []Param{{"ctx", "Context", One}}, "string", "the whole context as one string, if it has at most {TextChars} characters (else an error: read it with peek or chunk)", InWorker, NoBudget, Rerun},
	{"search", []Param{{"ctx", "Context", One}, {"regex", "string", One}, {"from", "int", Optional}}, "[]Match",
		"matches in document order, at most {SearchResults} per call, from match number from (default 0). Each has start and end (character offsets, end exclusive), line (the 1-based line the match starts on), text (the match) and line_text (that whole line), both cut at {MatchChars} characters, ref (\"ctx0[start:end]\", to cite), index (its number, from 0) and total (matches in the whole context, not only this page; a printed page says how many it shows); search(ctx, regex, last.index+1) reads the next page, and from at or past total gives an empty one",
		InWorker, NoBudget, Rerun},
	{"count", []Param{{"ctx", "Context", One}, {"regex", "string", One}}, "int", "number of matches in the whole context, uncapped", InWorker, NoBudget, Rerun},
	{"tally", []Param{{"ctx", "Context", One}, {"regex", "string", One}}, "[]Tally",
		"the distinct matches of regex in the whole context with their counts, most frequent first (ties by text), at most {TallyResults}; each has text (the match, or the text of the regex's first capture group if it has one, so `user=(\\w+)` counts users; cut at {MatchChars} characters), count, and distinct (how many distinct matches the whole context has, even past the cut); with (?i) matches that differ only in case are one, written in lower case; more than " + limits.Thousands(limits.TallyDistinct) + " distinct matches is an error (narrow the regex)",
		InWorker, NoBudget, Rerun},
	{"chunk", []Param{{"ctx", "Context", One}, {"size", "int", One}, {"overlap", "int", One}}, "[]Slice", "descriptors {index, start, end} (end exclusive) of consecutive slices of size characters, each overlapping the one before by overlap (0 up to size-1); at most {Chunks} (more is an error that names the smallest size that fits); peek reads a slice in one call only if size is at most {PeekChars}", InWorker, NoBudget, Rerun},
	{"llm_query", []Param{{"prompt", "string", One}, {"opts", "Opts", Optional}}, "string", "one sub-model call; at most {SubCalls} per run, batched slots included; opts (optional) picks the model, see Sub-call models", InParent, SubCallBudget, Journaled},
	{"llm_query_batched", []Param{{"prompts", "[]string", One}, {"opts", "Opts", Optional}}, "[]string", "concurrent sub-calls, results in order; a failed slot holds \"error: \" and the reason instead of an answer; any number of prompts per batch, run {BatchWidth} at a time, at most {Batches} batches per run; opts as for llm_query", InParent, SubCallBudget, Journaled},
	{"read_file", []Param{{"path", "string", One}}, "string", "a file inside the allowed roots; at most {ReadChars} characters", InWorker, FileCallBudget, Journaled},
	{"list_dir", []Param{{"path", "string", One}}, "[]string", "entries of a directory inside the allowed roots", InWorker, FileCallBudget, Journaled},
	{"file_info", []Param{{"path", "string", One}}, "FileInfo", "{name, size, is_dir, mod_time} of a path inside the allowed roots", InWorker, FileCallBudget, Journaled},
	{"grep", []Param{{"regex", "string", One}, {"path", "string", One}}, "[]Match", "matches in a file or directory inside the allowed roots; at most {GrepResults}", InWorker, FileCallBudget, Journaled},
	{"write_file", []Param{{"path", "string", One}, {"content", "string", One}}, "", "write into the workspace only; at most {WriteBytes} bytes; never rlm.toml or a name beginning with \".\" (rlm and other tools read those: pick another name)", InWorker, NoBudget, Journaled},
	{"FINAL", []Param{{"value", "any", One}}, "", "record the answer: a string as it is, anything else as JSON (at most {FinalChars} characters); the run ends after this cell (the rest of the cell still runs, and a later FINAL in it replaces the answer)", InEngine, NoBudget, Rerun},
	{"FINAL_VAR", []Param{{"name", "string", One}}, "", "record the value of the named variable as the answer (at most {FinalChars} characters)", InEngine, NoBudget, Rerun},
	{"print", []Param{{"values", "any", Repeated}}, "", "output shown to you; at most {OutputChars} characters per cell", InEngine, NoBudget, Rerun},
}

// Options are the keys of llm_query's and llm_query_batched's options (Opts in Go, a plain
// object in JS), as the host receives them: a map from these keys to plain values.
var Options = []string{OptModel}

// OptModel names the configured model that answers a sub-call ("" = the sub-call ladder's first).
const OptModel = "model"

// Lookup returns the API function with the given name.
func Lookup(name string) (Func, bool) {
	for _, f := range API {
		if f.Name == name {
			return f, true
		}
	}
	return Func{}, false
}
