package batch

import (
	"bufio"
	"context"
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
func retryFailed(ctx context.Context, cfg Config, name string, out *results) (int, error) {
	ids := out.failedIDs()
	if len(ids) == 0 {
		return 0, nil
	}
	if err := cfg.Queue.Forget(ctx, name, ids); err != nil {
		return 0, err
	}
	aside, err := resolveOut(RetriedPath(cfg.Out))
	if err != nil {
		return 0, err
	}
	if err := out.retry(cfg.Out, aside); err != nil {
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

// failedIDs are the ids of the tasks whose result is a failure, sorted.
func (r *results) failedIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, i := range r.index {
		if r.status[i] == failed {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// retry takes the failed results out of the file, under its lock all along: their lines, and
// any later line of a task of the batch, are appended to aside (synced) first; then the file is
// rewritten without them and renamed into place. The file is read twice, a line at a time.
func (r *results) retry(path, aside string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	// moved reports whether a line goes aside: a failure, or a task's line after its first
	moved := func() func(id string) bool {
		seen := make([]bool, len(r.status))
		return func(id string) bool {
			i, ok := r.index[id]
			if !ok {
				return false // not a task of this batch: kept as it is
			}
			again := seen[i]
			seen[i] = true
			return again || r.status[i] == failed
		}
	}
	if err := appendAside(aside, func(w io.Writer) error { return r.copyLines(path, w, moved(), true) }); err != nil {
		return fault.Wrap(fault.Schema, err, "keeping the failed results in "+aside)
	}
	f, err := replaceLocked(path, r.f, func(w io.Writer) error { return r.copyLines(path, w, moved(), false) })
	if err != nil {
		return fault.Wrap(fault.Schema, err, "rewriting the results file")
	}
	r.f.Close()
	r.f = f
	for i, st := range r.status {
		if st == failed {
			r.status[i] = pending
			r.done--
		}
	}
	return nil
}

// copyLines copies to w the lines of the results file for which moved(id) is want.
func (r *results) copyLines(path string, w io.Writer, moved func(id string) bool, want bool) error {
	_, err := scanResults(r.f, path, func(raw []byte, id, _ string) error {
		if moved(id) != want {
			return nil
		}
		_, err := w.Write(raw)
		return err
	})
	return err
}

// appendAside appends what write writes to the file at path (a link's target already), which
// must be a results file or none, and syncs it and its directory; a failed write is cut off
// again, so the file never ends in a torn line.
func appendAside(path string, write func(io.Writer) error) error {
	f, _, err := openRegular(path, os.O_RDWR|os.O_APPEND)
	if err != nil {
		return err
	}
	defer f.Close()
	end, err := scanResults(f, path, func([]byte, string, string) error { return nil })
	if err == nil {
		err = cutTorn(f, path, end)
	}
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		f.Truncate(end)
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// replaceLocked writes what write writes to a new file beside path (with old's mode), locks
// it, syncs it and renames it over path; it returns the new file, open at its end and still
// locked. A crash leaves either the old file or the new one, and perhaps a temporary file that
// the next replacement removes.
func replaceLocked(path string, old *os.File, write func(io.Writer) error) (*os.File, error) {
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
	bw := bufio.NewWriter(f)
	if err == nil {
		err = write(bw)
	}
	if err == nil {
		err = bw.Flush()
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
