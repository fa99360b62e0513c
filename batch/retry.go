package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/fault"
)

// RetriedPath is where Config.RetryFailed keeps the failed results it takes out of out:
// beside it, ".retried" before its extension (results.jsonl: results.retried.jsonl).
func RetriedPath(out string) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".retried" + ext
}

// retryFailed takes the failed results of the batch's tasks out of the queue's stored results
// and then out of the results file, so that those tasks run again; it returns how many. The
// queue goes first: a crash between the two leaves the failures in the file, where the next
// run finds them as before.
func retryFailed(ctx context.Context, cfg Config, name string, out *results, want map[string]bool) (int, error) {
	ids := out.failedIDs(want)
	if len(ids) == 0 {
		return 0, nil
	}
	if err := cfg.Queue.Forget(ctx, name, ids); err != nil {
		return 0, err
	}
	if err := out.retry(cfg.Out, RetriedPath(cfg.Out), ids); err != nil {
		return 0, err
	}
	return len(ids), nil
}

func setOf(ids []string) map[string]bool {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return set
}

// failedIDs are the ids in want whose result is a failure, sorted.
func (r *results) failedIDs(want map[string]bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, res := range r.done {
		if want[id] && res.Failed() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// retry takes the results of ids out of the file, under its lock all along: their lines, and
// any later duplicate of an id, are appended to aside (synced) first; then the file is
// rewritten without them and renamed into place.
func (r *results) retry(path, aside string, ids []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep, moved, err := r.split(ids)
	if err != nil {
		return fault.Wrap(fault.Schema, err, "reading the results file")
	}
	if err := appendSynced(aside, moved); err != nil {
		return fault.Wrap(fault.Schema, err, "keeping the failed results in "+aside)
	}
	f, err := replaceLocked(path, r.f, keep)
	if err != nil {
		return fault.Wrap(fault.Schema, err, "rewriting the results file")
	}
	r.f.Close()
	r.f = f
	for _, id := range ids {
		delete(r.done, id)
	}
	return nil
}

// split reads the file again and sorts its lines: those to keep, and those of ids or repeating
// an earlier line's id.
func (r *results) split(ids []string) (keep, moved []byte, err error) {
	st, err := r.f.Stat()
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.NewSectionReader(r.f, 0, st.Size()))
	if err != nil {
		return nil, nil, err
	}
	drop, seen := setOf(ids), map[string]bool{}
	for line := range bytes.Lines(data) {
		var res struct{ ID string }
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &res) != nil {
			continue // load refused the file if such a line were a result's
		}
		if drop[res.ID] || seen[res.ID] {
			moved = append(moved, line...)
		} else {
			keep = append(keep, line...)
		}
		seen[res.ID] = true
	}
	return keep, moved, nil
}

// appendSynced appends data to path and syncs it and its directory; a failed write is cut off
// again, so the file never ends in a torn line.
func appendSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Truncate(st.Size())
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// replaceLocked writes data to a new file beside path (with old's mode), locks it, syncs it and
// renames it over path; it returns the new file, open at its end and still locked. A crash
// leaves either the old file or the new one, and perhaps a temporary file that the next
// replacement removes.
func replaceLocked(path string, old *os.File, data []byte) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)+".tmp-"
	removeStale(dir, base)
	f, err := os.CreateTemp(dir, base+"*")
	if err != nil {
		return nil, err
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if st, serr := old.Stat(); err == nil && serr == nil {
		err = f.Chmod(st.Mode().Perm())
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// removeStale removes the temporary files a crashed replacement left in dir (their names
// start with prefix); the caller holds the results file's lock, so none is in use.
func removeStale(dir, prefix string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), prefix) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
