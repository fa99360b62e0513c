package worker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rlm-sandbox/rlm/fault"
)

// journalEntry is one host result a replay serves instead of calling again: a file tool's or a
// sub-call's. Key is a digest of the arguments, so a replay serves each call the result of the
// same call (in any order: Go's map iteration differs from run to run), and a call the cell did
// not make the first time is a divergence, never a wrong answer. The parent keeps a cell's
// entries as bytes (wire.Message.Journal) and never decodes them.
type journalEntry struct {
	Name   string          `json:"n"`
	Key    string          `json:"k"`
	Result json.RawMessage `json:"r,omitempty"`
	Err    string          `json:"e,omitempty"`
}

// keep appends a call's outcome to the cell's journal. A result that does not fit the rooms is
// dropped, the journal is closed with a marker, and the call fails with a limit error, as does
// every later journaled call of the cell (a replay serves the same error from the marker).
func (wk *worker) keep(cell int64, name string, args []any, v any, callErr error) error {
	e := journalEntry{Name: name, Key: argsKey(name, args), Err: errText(callErr)}
	if callErr == nil {
		raw, err := json.Marshal(v)
		if err != nil {
			return fault.Wrap(fault.Logic, err, name+": the result cannot be journaled")
		}
		e.Result = raw
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fault.Wrap(fault.Logic, err, name+": the result cannot be journaled")
	}
	wk.mu.Lock()
	defer wk.mu.Unlock()
	if wk.cell != cell {
		return nil
	}
	used := int64(wk.journal.Len() + len(b) + 3)
	if used <= wk.room[0] && used <= wk.room[1] {
		wk.appendEntry(b)
		return nil
	}
	if wk.room[0] < wk.room[1] {
		wk.full = roomMessage(name, true, wk.room[0])
	} else {
		wk.full = roomMessage(name, false, wk.sessionBound)
	}
	marker, _ := json.Marshal(journalEntry{Name: overflowName, Err: wk.full})
	wk.appendEntry(marker)
	return fault.New(fault.Limit, "%s", wk.full)
}

func (wk *worker) appendEntry(b []byte) {
	if wk.journal.Len() > 0 {
		wk.journal.WriteByte(',')
	}
	wk.journal.Write(b)
}

// overflowName marks the end of a journal that ran out of room.
const overflowName = "*"

// roomMessage is the error of a call whose result does not fit the journal: the one place it is
// written.
func roomMessage(name string, perCell bool, room int64) string {
	if perCell {
		return fmt.Sprintf("%s: this cell's file-tool and sub-call results passed %s, the most one cell keeps to rebuild the session after a crash; do the work in smaller cells: grep first, read only what matches, and print summaries", name, sizeText(room))
	}
	return fmt.Sprintf("%s: the session's file-tool and sub-call results passed %s, the most a session keeps to rebuild itself after a crash; no more fit: answer from what you have found, or start a new session", name, sizeText(room))
}

// sizeText writes a byte count for people: "8 MiB", "512 KiB", "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// argsKey is a digest of a call's name and arguments (as JSON, whose object keys are sorted).
func argsKey(name string, args []any) string {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	_ = json.NewEncoder(h).Encode(args)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// replayJournal serves a replayed cell's journaled calls: by name and argument digest, each
// recorded result once, in the order recorded.
type replayJournal struct {
	byKey    map[string][]journalEntry
	overflow string // the error of calls past a full journal, if the cell ran out of room
}

func parseJournal(raw json.RawMessage) (*replayJournal, error) {
	rj := &replayJournal{byKey: map[string][]journalEntry{}}
	if len(raw) == 0 {
		return rj, nil
	}
	var entries []journalEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("the journal is unreadable: %w", err)
	}
	for _, e := range entries {
		if e.Name == overflowName {
			rj.overflow = e.Err
			continue
		}
		rj.byKey[e.Name+"\x00"+e.Key] = append(rj.byKey[e.Name+"\x00"+e.Key], e)
	}
	return rj, nil
}

// serve answers a replayed call from the journal; a call the cell did not make the first time is
// a divergence.
func (rj *replayJournal) serve(name string, args []any) (any, error) {
	k := name + "\x00" + argsKey(name, args)
	q := rj.byKey[k]
	if len(q) == 0 {
		if rj.overflow != "" {
			return nil, fault.New(fault.Limit, "%s", rj.overflow)
		}
		return nil, fault.New(fault.Logic, "replay diverged: the cell called %s with arguments it did not use the first time", name)
	}
	e := q[0]
	rj.byKey[k] = q[1:]
	if e.Err != "" {
		return nil, errors.New(e.Err)
	}
	var v any
	if len(e.Result) > 0 {
		d := json.NewDecoder(bytes.NewReader(e.Result))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return nil, fault.Wrap(fault.Logic, err, "replay: a journaled result is unreadable")
		}
	}
	return plainNumbers(v), nil
}

// plainNumbers turns json.Number into int64 (or float64), as the engines' plain data has it.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = plainNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plainNumbers(x[k])
		}
	}
	return v
}
