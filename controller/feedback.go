package controller

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

// feedbackBuilder writes the message that answers a reply's code blocks.
type feedbackBuilder struct {
	b            strings.Builder
	blockTimeout time.Duration // the block time limit, named when a block runs past it
}

// cell adds one block's outcome: its output (head and tail past limit characters), its error,
// and what happened to the session.
func (f *feedbackBuilder) cell(i, n int, code string, res repl.Result, limit int) {
	if n > 1 {
		fmt.Fprintf(&f.b, "Block %d of %d:\n", i+1, n)
	}
	switch {
	case res.Stdout != "":
		out := shownOutput(res.Stdout, limit)
		f.b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			f.b.WriteByte('\n')
		}
	case res.Err == nil:
		f.b.WriteString("(nothing was printed)\n")
	}
	if res.Err != nil {
		fmt.Fprintf(&f.b, "Error (%s): %s\n%s", kindName(res.Err), clip(res.Err.Error(), limit), sourceLine(code, res.Err.Error()))
		if errors.Is(res.Err, fault.Timeout) {
			printed := "the output above is what it printed before it was stopped"
			if res.Stdout == "" {
				printed = "it printed nothing before it was stopped"
			}
			fmt.Fprintf(&f.b, "The block time limit is %s; %s. Do less in one block: narrow the work with search or count first, or split it across blocks.\n", human(f.blockTimeout), printed)
		}
	}
	if res.Rebuilt {
		f.b.WriteString("The REPL process died during this block; a new one replayed your earlier blocks, so your variables are back, but this block's effects are lost.\n")
	}
	switch {
	case res.Unreplayable && res.Rebuilt:
		f.b.WriteString("This block left work running in the background, so the REPL was restarted to stop it: its output stands, but its variables are gone. Finish all work before a block ends.\n")
	case res.Unreplayable:
		f.b.WriteString("This block's host results were too large to keep: if the REPL restarts, what it did is lost.\n")
	}
	if res.Deaths >= 2 {
		more := fmt.Sprintf("%d more deaths", res.RestartsLeft+1)
		if res.RestartsLeft == 0 {
			more = "one more death"
		}
		fmt.Fprintf(&f.b, "The REPL process has died %d times in this session; %s will end the session and fail the run. Avoid what killed it: huge allocations, deep recursion, loops that never end.\n", res.Deaths, more)
	}
	if res.Final != nil && res.Err != nil {
		f.b.WriteString("FINAL was not recorded, because the block failed.\n")
	}
}

// vars lists the session's variables, each with its type and length when the engine gave them
// (locals): "Variables: lines []string(48213), counts map[string]int(17), n int". partial are
// those only a failed block introduced, listed apart: they exist, as far as the block got;
// unkept says that a restart would lose some of them (a block the time limit stopped).
func (f *feedbackBuilder) vars(names, partial []string, unkept bool, locals []repl.Var) {
	byName := make(map[string]repl.Var, len(locals))
	for _, v := range locals {
		byName[v.Name] = v
	}
	labels := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = varLabel(n, byName[n])
		}
		return strings.Join(out, ", ")
	}
	switch {
	case len(names) > 0:
		fmt.Fprintf(&f.b, "Variables: %s\n", labels(names))
	case len(partial) == 0:
		f.b.WriteString("Variables: none yet.\n")
	}
	if len(partial) > 0 {
		restart := ""
		if unkept {
			restart = "; those of a block stopped by a limit are lost if the REPL restarts"
		}
		fmt.Fprintf(&f.b, "Variables a failed block introduced (they hold what it set before it stopped, if anything%s): %s\n", restart, labels(partial))
	}
}

// varLabel is a variable as the feedback lists it (engine.Var.Label); a variable the worker did
// not describe is its name.
func varLabel(name string, v repl.Var) string {
	v.Name = name
	return v.Label()
}

// budgetLine ends the feedback with what is left of the run's caps, so that the model can plan
// its next replies: "Left: 21 replies, 30 sub-calls in at most 7 batches, 178,412 tokens, $1.24
// (under a dollar budget) and 75 API calls (replies and sub-calls together)."
func (r *run) budgetLine() string {
	calls, batches := r.subs.counts()
	s := fmt.Sprintf("Left: %s, %s sub-calls in at most %s batches",
		plural(r.cfg.MaxIterations-r.step, "reply", "replies"),
		num(max(r.cfg.MaxSubCalls-calls, 0)), num(max(r.cfg.MaxBatches-batches, 0)))
	if m, ok := r.cfg.Model.(interface{ Remaining() llm.Spent }); ok {
		left := m.Remaining()
		money := ""
		if c, ok := r.cfg.Model.(interface{ MaxCost() float64 }); ok && c.MaxCost() > 0 {
			money = fmt.Sprintf(", $%.2f", left.Cost.USD)
		}
		s += fmt.Sprintf(", %s tokens%s and %s API calls (replies and sub-calls together)", num(left.Tokens), money, num(left.Calls))
	}
	return s + ".\n"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(max(n, 0)) + " " + many
}

// text is the whole message, clipped to limit characters (head and tail) as a last guard.
func (f *feedbackBuilder) text(limit int) string { return clip(f.b.String(), limit) }

// shares divides the feedback's total characters among blocks that need need[i] each: a block
// that needs less than an even share of what is left gets what it needs, and the rest is divided
// evenly among the others, none getting less than limits.MinBlockChars (water-filling).
func shares(need []int, total int) []int {
	order := make([]int, len(need))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(need[a], need[b]) })
	out := make([]int, len(need))
	left := total
	for k, i := range order {
		used := min(need[i], left/(len(need)-k))
		out[i] = max(used, limits.MinBlockChars)
		left -= used
	}
	return out
}

// need is the characters of a block's output and error, which its feedback shows.
func need(res repl.Result) int {
	n := utf8.RuneCountInString(res.Stdout)
	if res.Err != nil {
		n += utf8.RuneCountInString(res.Err.Error())
	}
	return n
}

// errPos finds the first position of a block in an error message: "cell.js:5:88: ...".
var errPos = regexp.MustCompile(`\bcell\.(?:go|js):(\d+):(\d+)`)

// sourceLine is the block's line an error points at, quoted after the error ("   5 | …"), so
// that the model need not count lines; "" when the message names no line of the block.
func sourceLine(code, msg string) string {
	m := errPos.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	n, _ := strconv.Atoi(m[1])
	lines := strings.Split(code, "\n")
	if n < 1 || n > len(lines) || strings.TrimSpace(lines[n-1]) == "" {
		return ""
	}
	return fmt.Sprintf("%5d | %s\n", n, clip(strings.TrimRight(lines[n-1], "\r"), 200))
}

// shownOutput is a block's output as the feedback shows it, in limit characters. An output the
// engine cut at its cap has lost its real end, so only its head is shown, with one line that
// states how much the block printed; any other keeps its head and tail (clip).
func shownOutput(out string, limit int) string {
	kept, total, ok := engine.SplitTruncated(out)
	if !ok {
		return clip(out, limit)
	}
	r := []rune(kept)
	shown := min(len(r), limit)
	return string(r[:shown]) + fmt.Sprintf("\n[output cut: the block printed %s characters; the first %s are shown]\n", num(total), num(shown))
}

// clip keeps the head and the tail of s when it has more than limit characters, and states the
// true length between them.
func clip(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	r := []rune(s)
	head, tail := limit*2/3, limit/3
	return string(r[:head]) + fmt.Sprintf("\n[... %d of %d characters omitted ...]\n", n-head-tail, n) + string(r[n-tail:])
}

func kindName(err error) string { return string(fault.Classify(err)) }
