package engine

import (
	"strconv"
	"strings"
)

// Place is who serves a call of an API function. The worker and the parent serve exactly the
// functions the registry places with them; a name placed elsewhere is not theirs to serve.
type Place int

const (
	BadPlace Place = iota // invalid: no API function has it
	InEngine              // the engine itself, never through Host.Call: FINAL, FINAL_VAR, print
	InWorker              // the worker's host, in the confined process: the context and file tools
	InParent              // the parent's host, which the worker's asks over the wire: the sub-calls
)

// Budget is what a call of an API function is counted against.
type Budget int

const (
	NoBudget       Budget = iota // not counted
	FileCallBudget               // the session's file calls (Limits.FileCalls), charged in the worker, a refused call too
	SubCallBudget                // the run's sub-calls (Limits.SubCalls, batched slots included), charged by the parent's host
	ToolBudget                   // a session's own tool's calls per run (its MaxCalls), charged by the parent's host
)

// Replay is how a replay serves a call again: when a worker dies, the session replays its
// successful cells in a new one (package repl), and each call the cells make is served anew.
type Replay int

const (
	BadReplay Replay = iota // invalid: no API function has it
	// Rerun: the call is made again. The engine's own functions are, and the worker's that read
	// only immutable inputs: the context tools read mapped files, which the parent checks are
	// unchanged before it replays. Their results are never journaled.
	Rerun
	// Journaled: the call is answered with the result it had the first time, kept in the
	// session's journal: files may have changed since, and a model answers differently.
	Journaled
)

var (
	placeNames  = [...]string{BadPlace: "bad place", InEngine: "engine", InWorker: "worker", InParent: "parent"}
	budgetNames = [...]string{NoBudget: "no budget", FileCallBudget: "file calls", SubCallBudget: "sub-calls", ToolBudget: "tool calls"}
	replayNames = [...]string{BadReplay: "bad replay", Rerun: "rerun", Journaled: "journaled"}
)

func (p Place) String() string  { return enumName(placeNames[:], int(p), "Place") }
func (b Budget) String() string { return enumName(budgetNames[:], int(b), "Budget") }
func (r Replay) String() string { return enumName(replayNames[:], int(r), "Replay") }

func enumName(names []string, i int, typ string) string {
	if i < 0 || i >= len(names) {
		return typ + "(" + strconv.Itoa(i) + ")"
	}
	return names[i]
}

// Names are the API functions p serves, in the order of API.
func (p Place) Names() []string { return names(func(f Func) bool { return f.Place == p }) }

// Names are the API functions counted against b, in the order of API.
func (b Budget) Names() []string { return names(func(f Func) bool { return f.Budget == b }) }

func names(keep func(Func) bool) []string {
	var out []string
	for _, f := range API {
		if keep(f) {
			out = append(out, f.Name)
		}
	}
	return out
}

// Series writes names as a sentence lists them: "a", "a and b", "a, b and c".
func Series(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
