package controller

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/validator"
)

// SystemPrompt is the root model's system prompt for cfg. It is generated from the session's
// registry (cfg.Session.API: engine.API and the session's own tools), from which the engines
// build the functions they enforce and the parent dispatches its calls, and from the run's
// effective limits (apiLimits, limitLines), so what the model is told and what the sandbox does
// cannot drift apart. Every limit that can stop a block or the run is named, with its value.
func SystemPrompt(cfg Config) string {
	cfg = cfg.withDefaults()
	lang := cfg.Session.Lang
	lim := apiLimits(cfg)
	var b strings.Builder
	fmt.Fprintf(&b, `You answer a question about a context that is too large to read at once. You cannot see the context: you explore it by writing %s code in fenced blocks (cells) tagged `+"```repl"+` (or `+"```%s"+`). The blocks of a reply run in order, all before you see any of their output, in a sandboxed REPL whose state (%s) persists across blocks and replies.

Only what your code prints reaches you, at most %s characters per reply: the blocks of a reply share them (each gets at least %s), and longer output is cut to its head and tail, with its true length stated. A block keeps only the first %s characters it prints. Print counts and summaries, not raw text.

`, langName(lang), fenceTag(lang), map[string]string{"go": "variables, functions, types, imports", "js": "variables, functions, classes"}[lang],
		num(cfg.FeedbackChars), num(limits.MinBlockChars), num(outputCap(cfg)))
	fmt.Fprintf(&b, "The API (%s):\n", langName(lang))
	for _, l := range RegistryLines(cfg.Session.API, lang, lim) {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString("\n" + subModelsLine(cfg) + "\n")
	b.WriteString("\n" + langName(lang) + ":\n")
	for _, l := range langNotes(lang) {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString(`
How to work:
- Use code for everything exact: counting, sums and averages, filtering, sorting, deduplicating, joining records, comparing dates. Code is exact and costs no sub-call; a sub-model that counts or adds is often wrong.
- For how often each value occurs (words, users, IPs, status codes), call tally(context, regex) instead of splitting and counting in a loop: one call counts the whole context, and a capture group picks the value (` + "`user=(\\w+)`" + ` counts users).
- Use llm_query only for what needs reading: classifying, summarising or interpreting text your code found. Send it the text it needs (a slice, not the whole context) and one precise question. To have sub-models read much of the context, join several peeks into each prompt, so that the number of prompts stays within the run's ` + num(cfg.MaxSubCalls) + ` sub-calls.
- Look before you compute (length, the head, a search for what the question names), then compute over the whole context: text(context) returns all of it as one string when it has at most ` + num(lim.TextChars) + ` characters; read a larger one in pieces of at most ` + num(lim.PeekChars) + ` characters, with peek over chunk(context, ` + strings.ReplaceAll(num(lim.PeekChars), ",", "") + `, 0).
`)
	b.WriteString("\nLimits of this run; each one stops a block or the whole run (the feedback on each reply ends with what is left of them):\n")
	for _, l := range limitLines(cfg, lim) {
		b.WriteString("- " + l + "\n")
	}
	b.WriteString(`
To finish, call FINAL(answer) (or FINAL_VAR("name")) in a code block; the run ends after that block. Writing FINAL in prose does nothing: the answer is what the code records. If the context does not hold the answer, call FINAL with that finding and what you searched.
`)
	return b.String()
}

// re2 is what the regexes of search, count, tally and grep are in both languages: the host's, Go's
// regexp.
const re2 = "RE2 (Go's regexp): no lookaround or backreferences; ^ and $ match at the start and end of the whole text unless (?m) (a search, count or tally that finds fewer matches because of them than (?m) would gets a note that says so); (?i) ignores case; (?s) lets . match newlines"

// hidable are the API functions whose names models give their own data (let count = 0, text :=
// ...). In JS these are the only API names a top-level declaration may take (engine/js,
// shadowable); in Go any API name may be declared, and these are the likely ones.
const hidable = "text, count, tally, length, peek, search, chunk"

// LangNotes are what code's author must know about the session language lang ("go" or "js"),
// one fact a line, as the system prompt states them: an MCP client's model reads the same.
func LangNotes(lang string) []string { return langNotes(lang) }

// langNotes are what the model must know about the session language, one fact a line.
func langNotes(lang string) []string {
	contexts := "Each context file is a variable: ctx0 (also named context), ctx1, ctx2, …, in the order the first message lists them."
	if lang == "js" {
		return []string{
			"ES2022 (goja) in strict mode; the API is synchronous. No modules (import, require), no top-level await (call an async function: its promises settle before the block ends), no timers. Missing: Intl (toLocaleString does not group digits), Object.groupBy and Map.groupBy, structuredClone, async generators, TextEncoder, URL. Present beyond ES2022: findLast, toSorted, toReversed, with.",
			contexts + " They are handles: pass them to the API.",
			"print(a, b) joins its arguments with spaces: strings as they are, objects and arrays as JSON (inside them undefined and functions are null, or left out of an object), a Map as Map(n) {k => v} and a Set as Set(n) {v} at any depth; console.log, .error, .warn and .info are print. A block's last value is not shown: print it.",
			"A search page is an array that also has total (0 on an empty page), truncated and next (the from of the next page; total on the last one).",
			"search, count, tally and grep take a regex as a string or a RegExp literal (/x/i, /x/m and /x/s become (?i), (?m) and (?s); other flags are ignored; inside a literal an inline flag, /(?m)^x/, is a syntax error), in the syntax of " + re2 + ".",
			"Offsets and lengths in the API count characters (Unicode code points), but JavaScript strings count UTF-16 units: s.length and s.slice(i, j) drift from them after any character above U+FFFF (emoji, some CJK); [...s].length counts characters.",
			"A later block may declare a top-level let or const again. A top-level variable named like a context tool (" + hidable + ") hides that function for the rest of the session: name yours n, txt, lines, … or declare them inside a function. A top-level declaration of another API name or of a built-in (print, context, JSON, Map, escape, …) is refused; browser globals do not exist (top, name, status, location, … are names like any other).",
			"FINAL of a non-string is JSON: a Map becomes an object (an array of [key, value] pairs if a key is not a string), a Set an array, a Date its ISO string; FINAL(undefined) is an error.",
			"A host function that fails throws an Error whose message says how to fix the call; an uncaught one stops the block.",
			"Before a block runs, a validator rejects eval and Function, Reflect and Proxy, globalThis and top-level this, require, process and import(), with, .constructor, .__proto__ and .prototype, names starting with _, " + constAlloc("new Array(n) or \"x\".repeat(n)") + ", and loops that can never exit; self, window, global, frames, module and exports only as names you declare. Its message says what to write instead.",
		}
	}
	return []string{
		"Import any of " + strings.Join(validator.Policy{}.Effective().Go.Imports, ", ") + "; no other package. A package you use without importing it is imported for you, and the first output line says so (added import \"strings\", or added imports \"strings\", \"regexp\"); imports persist across blocks.",
		contexts + " Types (the API list above writes fields as JSON does; in Go they are exported, e.g. line_text is LineText): " + goTypes() + ".",
		"search, count, tally and grep take regexes in the syntax of " + re2 + "; write them as raw strings: `\\d+`.",
		"print(a, b) is fmt.Println(a, b): the call is rewritten to it everywhere (inside functions too, with no import of fmt needed), so it formats exactly as fmt.Println does.",
		"Generics, min and max, and range over an int and over a function (an iterator) work. Unused variables and imports are not errors. Functions a block declares see its top-level variables, and x, err := …; y, err := … is fine at the top level. A variable named like a package (path, url, sort, …) hides it as in Go: write p, u, … instead.",
		"An empty search page has no element to read Total from: count(ctx, regex) gives the total.",
		"Offsets and lengths in the API count characters (Unicode code points), but Go strings are bytes: len(s) and s[i:j] count bytes, so use []rune(s) or utf8.RuneCountInString(s) before mixing them with peek or search offsets.",
		"A later block may declare a top-level name again (x := … replaces x). A top-level variable named like an API function (" + hidable + ", …) hides that function for the rest of the session: name yours n, txt, lines, … or declare them inside a function.",
		"FINAL of a non-string is what encoding/json writes: unexported struct fields are left out ({}), so format a string or export the fields.",
		"A host function that fails panics with a message that says how to fix the call; the block stops there.",
		"Before a block runs, a validator rejects goroutines, func init, packages not listed above, names starting with _, " + constAlloc("make([]T, n) or [n]T") + ", and loops that can never exit; its message says what to write instead.",
	}
}

// constAlloc is the validator's bound on allocations of a constant size, as the language notes
// state it, with examples of the forms it applies to.
func constAlloc(forms string) string {
	return fmt.Sprintf("allocations whose size is a constant over %s (%s with n a constant)", num(validator.Policy{}.Effective().MaxConstAlloc), forms)
}

// limitLines are the limits that stop a block or the run, with this run's values. What the
// file-call budget counts is the registry's (engine.FileCallBudget).
func limitLines(cfg Config, lim engine.Limits) []string {
	timeLine := "Time: a block is stopped after " + human(cfg.Session.CellTimeout) + "."
	if cfg.Timeout > 0 {
		timeLine += " The whole run ends after " + human(cfg.Timeout) + "."
	}
	lines := []string{
		timeLine,
		memoryLine(cfg),
		fmt.Sprintf("Replies: %d. After the last one you get one more reply, which must call FINAL; nothing else counts then.", cfg.MaxIterations),
		fmt.Sprintf("Blocks: the first %d code blocks of a reply run; later ones are skipped.", cfg.MaxBlocks),
		fmt.Sprintf("Failures: when no block works in %d replies in a row (a reply without a code block counts as failed), the run ends.", limits.FailedStreak),
		fmt.Sprintf("Sub-calls: %s per run (llm_query, batched slots included), in at most %s llm_query_batched calls, %s run at a time. A call that asks for more sub-calls than are left fails and makes none, and your code can send fewer, larger prompts; a call once all are used, or a batch beyond the batch cap, ends the run after its block.",
			num(lim.SubCalls), num(lim.Batches), num(lim.BatchWidth)),
		fmt.Sprintf("File tools: %s calls of %s per session; past that they fail.", num(lim.FileCalls), engine.Series(engine.FileCallBudget.Names())),
	}
	if b, ok := budgetOf(cfg.Model); ok {
		money := ""
		if c, ok := cfg.Model.(interface{ MaxCost() float64 }); ok && c.MaxCost() > 0 {
			money = fmt.Sprintf(", and $%.2f", c.MaxCost())
		}
		lines = append(lines, fmt.Sprintf("Model budget: %s API calls and %s tokens%s for the whole run, your replies and sub-calls together (retries count); %d API errors within %s end the run.",
			num(b.Calls), num(b.Tokens), money, b.BreakerErrors, human(b.BreakerWindow)))
	} else {
		lines = append(lines, "Model budget: your replies and sub-calls share the run's model budget; when it is spent, the run ends.")
	}
	return append(lines, fmt.Sprintf("Crashes: when the REPL process dies (out of memory, a fatal error), it restarts and replays your earlier blocks (all but those a time or memory limit stopped), so their variables come back; the %s crash within %s ends the run.",
		ordinal(cfg.Session.MaxRestarts+1), human(cfg.Session.RestartWindow)))
}

func memoryLine(cfg Config) string {
	if cfg.Session.Lang == "js" {
		return "Memory: a block is stopped when the REPL's live heap passes " + mib(limits.JSHeap(cfg.Session.WorkerMemory)) + "; the REPL then restarts (see Crashes). Text costs 1 byte a character if ASCII, else 2; an array about 30 bytes an element more (at 256 MiB, 3 million short strings fit, 10 million do not)."
	}
	mem := cfg.Session.WorkerMemory
	if mem <= 0 {
		mem = limits.WorkerMemory
	}
	return "Memory: keep your data well under " + mib(mem) + "; a block that allocates far more kills the REPL process (see Crashes)."
}

// subModelsLine says which model answers llm_query and which others code may pick, as the
// model states them (subModels).
func subModelsLine(cfg Config) string {
	choices, def := subModels(cfg.Model)
	lang := cfg.Session.Lang
	switch {
	case len(choices) == 0 || def == "":
		return "Sub-call models: llm_query is answered by the run's sub-call model; no other can be picked, so leave opts out."
	case len(choices) == 1:
		return "Sub-call models: llm_query is answered by " + def + ", the only model configured; leave opts out."
	}
	other := choices[0]
	if other == def {
		other = choices[1]
	}
	return fmt.Sprintf("Sub-call models: llm_query and llm_query_batched are answered by %s unless opts picks another configured model: %s. For example llm_query(prompt, %s). All models share the run's budget.",
		def, strings.Join(choices, ", "), optsForm(lang, other))
}

// budgetOf is the model's budgets, when the model states them (an *llm.Client does).
func budgetOf(m Model) (llm.Budget, bool) {
	b, ok := m.(interface{ Budget() llm.Budget })
	if !ok || b.Budget().Calls <= 0 {
		return llm.Budget{}, false
	}
	return b.Budget(), true
}

// apiLimits are the caps of this run as the API's doc lines state them: the session's limits,
// which the session enforces, with the controller's own sub-call limits, and what a block's
// output can show the model. cfg has its defaults (withDefaults).
func apiLimits(cfg Config) engine.Limits {
	lim := cfg.Session.Limits
	lim.OutputChars = min(lim.OutputChars, cfg.FeedbackChars)
	lim.SubCalls, lim.Batches, lim.BatchWidth = cfg.MaxSubCalls, cfg.MaxBatches, cfg.BatchWidth
	return lim
}

// outputCap is the characters of output a block keeps.
func outputCap(cfg Config) int { return cfg.Session.Limits.OutputChars }

// APILines are the model API's functions as the system prompt lists them, in lang ("go" or
// "js") with the caps of lim: "peek(ctx Context, offset int, length int) string — text of …".
// The REPL's :help shows the same lines.
func APILines(lang string, lim engine.Limits) []string { return RegistryLines(nil, lang, lim) }

// RegistryLines are APILines for a session's registry: engine.API and the session's own tools,
// each tool's line from the same entry the engines declare and the parent serves.
func RegistryLines(reg engine.Registry, lang string, lim engine.Limits) []string {
	fs := reg.Funcs()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Signature(lang) + " — " + f.Describe(lim)
	}
	return out
}

// goTypes describes the prelude's types from the types themselves.
func goTypes() string {
	var out []string
	for _, v := range []any{golang.Context{}, golang.Match{}, golang.Slice{}, golang.Tally{}, golang.FileInfo{}, golang.Opts{}} {
		t := reflect.TypeOf(v)
		var fs []string
		for i := range t.NumField() {
			fs = append(fs, t.Field(i).Name+" "+t.Field(i).Type.String())
		}
		out = append(out, t.Name()+"{"+strings.Join(fs, "; ")+"}")
	}
	return strings.Join(out, ", ")
}

func langName(lang string) string {
	if lang == "js" {
		return "JavaScript"
	}
	return "Go"
}

func fenceTag(lang string) string {
	if lang == "js" {
		return "js"
	}
	return "go"
}

// ordinal writes 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st, ….
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return num(n) + suffix
}

// num writes n with thousands separators.
func num[T int | int64 | uint64](n T) string { return engine.Thousands(int64(n)) }

// mib writes a byte count in MiB.
func mib[T int | int64 | uint64](n T) string { return num(int64(n)>>20) + " MiB" }

// human writes a duration as a person would: "2 min", "90 s", else Go's form ("1h29m59s").
func human(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d < 10*time.Minute && d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// forcedFinal is the message after the iteration cap.
func forcedFinal(n int) string {
	return fmt.Sprintf("You have used all %d replies. Reply now with one code block that calls FINAL with your best answer from what you found; if you found nothing that answers the question, call FINAL with that and with what you searched. Nothing but FINAL counts in this reply.", n)
}

// noCode is the feedback for a reply without a code block.
func noCode(lang string) string {
	return fmt.Sprintf("Your reply had no code block, so nothing ran. Write %s in a ```repl fence; call FINAL(answer) in code when you have the answer.", langName(lang))
}

const directSystem = "You answer questions about the context the user gives. Answer with the answer only, without preamble."

func directUser(text, question string) string {
	return "Context:\n~~~text\n" + text + "~~~\n\nQuestion: " + question
}
