package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
)

// writeAtomic writes v as indented JSON to path through a temporary file in the same
// directory, synced and renamed over path, so a reader sees the old file or the whole new one.
func writeAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".outcome-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(append(data, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself survives a crash; best effort where a dir cannot sync
		_ = d.Close()
	}
	return nil
}

// maxOutcome is the largest outcome record read.
const maxOutcome = 1 << 20

func readOutcome(path string) (Outcome, bool, error) {
	data, err := tools.ReadRegular(path, maxOutcome) // beside a trace the user may name
	if errors.Is(err, fs.ErrNotExist) {
		return Outcome{}, false, nil
	}
	if err != nil {
		return Outcome{}, false, fmt.Errorf("trace: outcome: %w", err)
	}
	var rec outcomeRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return Outcome{}, false, fmt.Errorf("trace: outcome %s is not an outcome record: %w", path, err)
	}
	return rec.outcome(), true, nil
}

func (rec *outcomeRecord) outcome() Outcome {
	o := Outcome{TaskID: rec.TaskID, Status: rec.Status, Tokens: rec.TotalTokens, Calls: rec.APICalls,
		Usage:    Usage{PromptTokens: rec.PromptTokens, CompletionTokens: rec.CompletionTokens},
		WallTime: time.Duration(rec.WallTime * float64(time.Second))}
	if rec.Answer != nil {
		o.Answer = *rec.Answer
	}
	if rec.Error != nil {
		o.ErrKind, o.ErrMsg = fault.Kind(rec.Error.Kind), rec.Error.Message
	}
	if c := rec.Cost; c != nil {
		o.Cost = &Cost{Unknown: c.UnknownCalls}
		if c.USD != nil {
			o.Cost.USD = *c.USD
		}
	}
	return o
}

func find(dir, taskID string) (string, error) {
	if taskID == "" || taskID == "." || taskID == ".." || filepath.Base(taskID) != taskID ||
		strings.ContainsAny(taskID, `*?[\`) {
		return "", fmt.Errorf("trace: %q is not a task id (ids look like 20261122-061500-a1b2c3)", taskID)
	}
	m, err := filepath.Glob(filepath.Join(dir, "rlm_*_"+taskID+".jsonl"))
	if err != nil {
		return "", fmt.Errorf("trace: task %s: %w", taskID, err)
	}
	switch len(m) {
	case 0:
		return "", fmt.Errorf("trace: no trace of task %s in %s (rlm run prints the task id; RLM_HOME chooses the directory): %w", taskID, dir, fs.ErrNotExist)
	case 1:
		return m[0], nil
	}
	return "", fmt.Errorf("trace: %d traces of task %s in %s; name the file instead", len(m), taskID, dir)
}
