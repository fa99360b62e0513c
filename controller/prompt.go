package controller

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/engine/golang"
	"github.com/rlm-sandbox/rlm/repl"
)

// SystemPrompt is the root model's system prompt for cfg. It is generated from engine.API, the
// registry from which the engines build the functions they enforce, and from the run's limits,
// so what the model is told and what the sandbox does cannot drift apart.
func SystemPrompt(cfg Config) string {
	cfg = cfg.withDefaults()
	lang := cfg.Session.Lang
	var b strings.Builder
	fmt.Fprintf(&b, `You answer a question about a context that is too large to read at once. You cannot see the context: you explore it by writing %s code in fenced blocks tagged `+"```repl"+` (or `+"```%s"+`). Each block runs in a sandboxed REPL whose state (variables, functions) persists across blocks and turns.

Only what your code prints is shown to you: at most %d characters per block reach you (the head and the tail of longer output, with its true length). Print summaries, not raw slices. Use sub-calls (llm_query) to read or classify slices you have found; they are the only way to reason over large amounts of text.

`, langName(lang), fenceTag(lang), cfg.FeedbackChars)
	fmt.Fprintf(&b, "The API (%s):\n", langName(lang))
	lim := apiLimits(cfg)
	for _, f := range engine.API {
		fmt.Fprintf(&b, "- %s — %s\n", signature(f, lang), f.Describe(lim))
	}
	if lang == "go" {
		b.WriteString("\nGo types: " + goTypes() + ". `context` is the first context file; others are Context{Name: \"ctx1\"}, …. Host errors panic with a message that says how to fix the call.\n")
	} else {
		b.WriteString("\n`context` is the first context file; others are the strings \"ctx1\", …. Host errors throw with a message that says how to fix the call. `console.log` is `print`.\n")
	}
	fmt.Fprintf(&b, `
Limits of this run: %d iterations (your replies); %d sub-calls (llm_query, batched slots included), in at most %d llm_query_batched calls of up to %d prompts run %d at a time; a block times out after %s; the model budgets of the run apply to you and to sub-calls alike.

To finish, call FINAL(answer) (or FINAL_VAR("name")) in code. Writing FINAL in prose does nothing: the answer is what the code records.
`, cfg.MaxIterations, cfg.MaxSubCalls, cfg.MaxBatches, cfg.MaxSubCalls, cfg.BatchWidth, cellTimeout(cfg))
	return b.String()
}

// apiLimits are the caps of this run as the API's doc lines state them: the controller's own
// sub-call limits and the session's output cap; the rest are the engines' and tools' defaults.
func apiLimits(cfg Config) engine.Limits {
	return engine.Limits{
		OutputChars: cfg.Session.OutputCap,
		SubCalls:    cfg.MaxSubCalls,
		Batches:     cfg.MaxBatches,
		BatchWidth:  cfg.BatchWidth,
	}.Effective()
}

// signature renders one API function in the session language.
func signature(f engine.Func, lang string) string {
	var ps []string
	for _, p := range f.Params {
		if lang == "go" {
			ps = append(ps, p.Name+" "+p.GoType)
		} else {
			ps = append(ps, jsParam(p))
		}
	}
	sig := f.Name + "(" + strings.Join(ps, ", ") + ")"
	if lang == "go" && f.Result != "" {
		sig += " " + f.Result
	}
	return sig
}

func jsParam(p engine.Param) string {
	if strings.HasPrefix(p.GoType, "...") {
		return "..." + p.Name
	}
	return p.Name
}

// goTypes describes the prelude's types from the types themselves.
func goTypes() string {
	var out []string
	for _, v := range []any{golang.Context{}, golang.Match{}, golang.Slice{}, golang.FileInfo{}} {
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

func cellTimeout(cfg Config) string {
	if cfg.Session.CellTimeout > 0 {
		return cfg.Session.CellTimeout.String()
	}
	return repl.DefaultCellTimeout.String()
}

// forcedFinal is the message after the iteration cap.
func forcedFinal(n int) string {
	return fmt.Sprintf("You have used all %d iterations. Reply now with one code block that calls FINAL with your best answer from what you have found; nothing else will run.", n)
}

// noCode is the feedback for a reply without a code block.
func noCode(lang string) string {
	return fmt.Sprintf("Your reply had no code block, so nothing ran. Write %s in a ```repl fence; call FINAL(answer) in code when you have the answer.", langName(lang))
}

const directSystem = "You answer questions about the context the user gives. Answer with the answer only, without preamble."

func directUser(text, question string) string {
	return "Context:\n~~~text\n" + text + "~~~\n\nQuestion: " + question
}
