package repl

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// journal is what a session keeps to rebuild its state in a new worker: the cells that ran, in
// order, each with the host results a replay cannot recompute. A cell that failed while it ran
// is kept too: what it defined before it failed stays in the session, and later cells may use
// it. Its size is bounded by Options.JournalBytes: the worker refuses a call whose result would
// not fit (see the rooms), and the session checks what the worker sends.
type journal struct {
	entries []entry
	bytes   int64 // code and journaled results of all entries
}

// entry is one cell that ran.
type entry struct {
	cell  int // the session's number for the cell, as its messages count cells (from 1)
	code  string
	calls json.RawMessage // the journalEntry list the worker returned; never decoded here
	took  time.Duration   // how long the cell ran: a replay that cannot finish in time is skipped
	vars  []string        // the session's variables after the cell, to name what a loss loses
	added []string        // the variables the cell introduced, which its replay must introduce too
	// failed is the kind of the error the cell ended with, and failedAt where the error says it
	// happened ("" when it says not), which its replay ends with too; both empty when it
	// succeeded. Not the message: one may name what differs from run to run (a map's order, a
	// random number, the time).
	failed   fault.Kind
	failedAt string
}

// replayable reports whether a cell that ended with err is journaled: one that succeeded, or
// that failed by itself at a point its replay reaches again. A cell the validator refused never
// ran; a cell stopped by a deadline, its caller or a death stopped at a point a replay would not
// stop at.
func replayable(err error) (fault.Kind, bool) {
	if err == nil {
		return "", true
	}
	switch k := fault.KindOf(err); k {
	case fault.Rejected, fault.Timeout, fault.Canceled, fault.Crashed:
		return k, false
	default:
		return k, true
	}
}

func (e entry) size() int64 { return int64(len(e.code) + len(e.calls)) }

// where is the position err names, "cell.go:5:1", or "" when it names none.
func where(err error) string {
	var fe *fault.Error
	if errors.As(err, &fe) && fe.Pos.IsValid() {
		return fe.Pos.String()
	}
	return ""
}

// journalSlack is what a worker's journal may exceed its room by: the marker of a full journal.
const journalSlack = 4 << 10

// rooms are the bytes a new cell may journal: at most CellJournalBytes, and what the session
// has left once the cell's code is kept.
func (j *journal) rooms(o Options, code string) [2]int64 {
	left := o.JournalBytes - j.bytes - int64(len(code))
	return [2]int64{o.CellJournalBytes, max(left, 0)}
}

// keep journals a cell that ran (see replayable). A cell that left work behind, or whose
// journal breaks the bounds (only a misbehaving worker sends one), is not kept, and res says so.
func (j *journal) keep(o Options, e entry, res *Result) {
	kind, ok := replayable(res.Err)
	if !ok || res.notRun || res.Unreplayable {
		return
	}
	e.failed, e.failedAt = kind, where(res.Err)
	if int64(len(e.calls)) > o.CellJournalBytes+journalSlack || j.bytes+e.size() > o.JournalBytes+journalSlack {
		res.Unreplayable = true
		return
	}
	j.entries = append(j.entries, e)
	j.bytes += e.size()
}

// drop removes entry i.
func (j *journal) drop(i int) {
	j.bytes -= j.entries[i].size()
	j.entries = slices.Delete(j.entries, i, i+1)
}

// dropFrom removes entries i and after, and returns the loss: why, which cells, and the
// variables that no replayed cell defines.
func (j *journal) dropFrom(i int, why error) error {
	n := len(j.entries)
	if i >= n {
		return why
	}
	lost := lostVars(j.entries, i)
	cells := fmt.Sprintf("cell %d was", j.entries[i].cell)
	if n-i > 1 {
		cells = fmt.Sprintf("cells %d to %d were", j.entries[i].cell, j.entries[n-1].cell)
	}
	j.truncate(i)
	if len(lost) == 0 {
		return fmt.Errorf("%w; %s not replayed: no variable is missing, but the values they changed are as they were before", why, cells)
	}
	return fmt.Errorf("%w; %s not replayed, so these variables are lost: %s", why, cells, strings.Join(lost, ", "))
}

// dropRan removes entries i and after when entry i ran in the new worker otherwise than it first
// did, and returns the loss: why, which cells, and the variables the new worker lacks (have are
// its variables); the others may hold other values.
func (j *journal) dropRan(i int, why error, have []string) error {
	n := len(j.entries)
	cells := fmt.Sprintf("cell %d is", j.entries[i].cell)
	if n-i > 1 {
		cells = fmt.Sprintf("cells %d to %d are", j.entries[i].cell, j.entries[n-1].cell)
	}
	gone := missing(j.entries[n-1].vars, have)
	j.truncate(i)
	if len(gone) == 0 {
		return fmt.Errorf("%w; %s no longer replayed: no variable is missing, but their values may differ from before", why, cells)
	}
	return fmt.Errorf("%w; %s no longer replayed, and these variables are lost: %s (the others may hold other values)", why, cells, strings.Join(gone, ", "))
}

// truncate removes entries i and after.
func (j *journal) truncate(i int) {
	for _, e := range j.entries[i:] {
		j.bytes -= e.size()
	}
	j.entries = j.entries[:i]
}

// lostVars are the variables after the last entry that were not there after entry i-1.
func lostVars(entries []entry, i int) []string {
	var before []string
	if i > 0 {
		before = entries[i-1].vars
	}
	return missing(entries[len(entries)-1].vars, before)
}

// missing are the names of a that b does not hold.
func missing(a, b []string) []string {
	has := make(map[string]bool, len(b))
	for _, v := range b {
		has[v] = true
	}
	var out []string
	for _, v := range a {
		if !has[v] {
			out = append(out, v)
		}
	}
	return out
}
