package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// storedSubCall is the content of one <dir>/<task>/subcalls/NNNN.json file: the sub-call in the
// trace's shape, with its number, task and time.
type storedSubCall struct {
	Index     int    `json:"index"`
	Task      string `json:"task"`
	Timestamp string `json:"timestamp"`
	subCallRecord
}

// save writes c to the next free NNNN.json. Numbers are taken under the lock, and a file that
// already exists (an earlier store over the same directory) is skipped, never overwritten.
func (s *PromptStore) save(c SubCall) (string, error) {
	rec := storedSubCall{Task: s.task, subCallRecord: subCallFor(s.red, c)}
	for {
		s.mu.Lock()
		s.n++
		rec.Index = s.n
		rec.Timestamp = stamp(s.now())
		s.mu.Unlock()
		path := filepath.Join(s.dir, fmt.Sprintf("%04d.json", rec.Index))
		err := writeNew(path, rec)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("trace: save sub-call %d of task %s: %w", rec.Index, s.task, err)
		}
		return path, nil
	}
}

// writeNew creates path (failing if it exists), writes v as indented JSON and syncs it.
func writeNew(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(data, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	return errors.Join(werr, serr, cerr)
}
