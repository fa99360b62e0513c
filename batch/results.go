package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
)

// Result is one line of the results file: a task's outcome in rlm run --json's shape, with
// the task's id, its timing and where it ran.
type Result struct {
	ID     string `json:"id"`
	Status string `json:"status"` // answered, completed or failed
	Answer string `json:"answer,omitempty"`
	Output string `json:"output,omitempty"` // what a script printed
	Error  *Error `json:"error,omitempty"`
	// Notes say what the worker changed of the task: a limit above the worker's, which the
	// task ran with instead.
	Notes     []string  `json:"notes,omitempty"`
	Usage     rlm.Usage `json:"usage"`             // the usage object (README: "Usage and cost in JSON")
	TaskID    string    `json:"task_id,omitempty"` // the run's id in the worker's audit trail
	Isolation string    `json:"isolation,omitempty"`
	Trace     string    `json:"trace,omitempty"` // the run's JSONL trace, on the worker's machine
	Workspace string    `json:"workspace,omitempty"`
	// Started and Finished are RFC 3339 times; DurationMS is the run's wall time.
	Started    string `json:"started,omitempty"`
	Finished   string `json:"finished,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Worker     string `json:"worker,omitempty"`  // host:pid of the process that ran it
	Attempt    int    `json:"attempt,omitempty"` // the delivery that produced this result, from 1
}

// Error is a failed task's error kind and message.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Unavailable says the model service was failing as a whole (its circuit breaker opened,
	// its quota was spent), not this task: llm.ErrUnavailable.
	Unavailable bool `json:"unavailable,omitempty"`
}

// Failed reports whether the task failed.
func (r Result) Failed() bool { return r.Status == "failed" }

// results is the results file, opened for appending: one JSON line per task, each written
// whole and synced before the next, so a crash or a signal loses no finished result; a task of
// the batch has at most one line. A flock keeps two batches from writing the same file. The
// lines stay in the file: what is kept in memory is one status per task of the batch, so a
// batch's memory does not grow with the results it writes.
type results struct {
	mu      sync.Mutex
	f       *os.File
	index   map[string]int // the batch's task ids, each to its status
	status  []status
	done    int  // tasks with a result
	created bool // the file did not exist: a new batch
}

// status is what the results file says of a task.
type status uint8

const (
	pending   status = iota // no result
	succeeded               // answered or completed
	failed
)

// openResults opens (or creates) the results file of the tasks ids and reads the results
// already in it, refusing a file that is not a results file before anything is written to it.
// A last line cut short by a crash is dropped (the file is truncated to the last whole line);
// a later duplicate of an id, and the results of tasks not in ids, are ignored.
func openResults(path string, ids []string) (*results, error) {
	f, created, err := lockResults(path)
	if err != nil {
		return nil, err
	}
	r := &results{f: f, index: make(map[string]int, len(ids)), status: make([]status, len(ids)), created: created}
	for i, id := range ids {
		r.index[id] = i
	}
	end, err := scanResults(f, path, func(_ []byte, id, st string) error { r.mark(id, st); return nil })
	if err == nil {
		err = cutTorn(f, path, end)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// mark records a result line read from the file (the first of an id counts).
func (r *results) mark(id, st string) {
	if i, ok := r.index[id]; ok && r.status[i] == pending {
		r.status[i] = statusOf(st)
		r.done++
	}
}

func statusOf(s string) status {
	if s == "failed" {
		return failed
	}
	return succeeded
}

// lockResults opens path, a results file or none, and takes its lock. A retry replaces the file
// by a rename while it holds the lock, so the lock is kept only if path still names the locked
// file. created says the open created it.
func lockResults(path string) (*os.File, bool, error) {
	for range 8 {
		f, created, err := openRegular(path, os.O_RDWR|os.O_APPEND)
		if err != nil {
			return nil, false, fault.Wrap(fault.Schema, err, "results file")
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			return nil, false, fault.New(fault.Limit, "%s is being written by another rlm batch; wait for it, or give this one another --out", path)
		}
		same, err := namesFile(path, f)
		switch {
		case err != nil:
			f.Close()
			return nil, false, fault.Wrap(fault.Schema, err, "results file")
		case same:
			return f, created, nil
		}
		f.Close() // replaced between the open and the lock: lock the new file
	}
	return nil, false, fault.New(fault.Limit, "%s keeps being replaced by another rlm batch; wait for it, or give this one another --out", path)
}

// openRegular opens path with flag (os.O_RDWR|os.O_APPEND for a file of results), creating it
// when it is missing, and refuses anything but a regular file. path is a link's target already (see
// resolveOut): a link put in its place since is refused, not followed, and opening a FIFO or a
// device neither blocks nor touches it.
func openRegular(path string, flag int) (*os.File, bool, error) {
	var f *os.File
	var err error
	created := false
	for range 2 { // the second time, after another process created it first
		f, err = os.OpenFile(path, flag|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
		f, err = os.OpenFile(path, flag|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o644)
		if created = err == nil; !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if errors.Is(err, unix.EISDIR) {
		err = fmt.Errorf("%s is a directory, not a regular file; give a file's path", path)
	}
	if err != nil {
		return nil, false, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is a %s, not a regular file; give a file's path", path, kindOf(st.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, created, nil
}

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// namesFile reports whether path names the open file f.
func namesFile(path string, f *os.File) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, now), nil
}

// resultPrefix is how every result line starts (json.Marshal writes Result's fields in order).
var resultPrefix = []byte(`{"id":`)

// scanResults reads f from its start, line by line, calling line with each result line, its id
// and its status, and returns the offset just past the last whole line. Every whole line must be a
// result line (or blank), and a last line without a newline the start of one (a line a crash
// cut short): anything else is an error that names the line, so that a file that is not a
// results file is refused before anything is written to it. One line is held at a time; a
// line that does not start as a result line is refused at its first 64 KiB.
func scanResults(f *os.File, path string, line func(raw []byte, id, status string) error) (int64, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	var end int64
	var buf []byte
	for n := 1; ; n++ {
		var err error
		buf, err = readLine(br, buf[:0])
		whole := len(buf) > 0 && buf[len(buf)-1] == '\n'
		text := bytes.TrimSpace(buf)
		switch {
		case errors.Is(err, errForeign), len(text) > 0 && !bytes.HasPrefix(text, resultPrefix) && (whole || !bytes.HasPrefix(resultPrefix, text)):
			return 0, notResult(path, n, "it does not start with "+string(resultPrefix))
		case err != nil && !errors.Is(err, io.EOF):
			return 0, fault.Wrap(fault.Schema, err, path)
		case len(text) == 0:
		case !whole: // the start of a result line a crash cut short: dropped
			return end, nil
		default:
			var head struct{ ID, Status string }
			if err := json.Unmarshal(text, &head); err != nil || head.ID == "" || !knownStatus(head.Status) {
				return 0, notResult(path, n, fmt.Sprintf("%v; want an id and a status", err))
			}
			if err := line(buf, head.ID, head.Status); err != nil {
				return 0, err
			}
		}
		if whole {
			end += int64(len(buf))
		}
		if err != nil {
			return end, nil
		}
	}
}

func notResult(path string, n int, why string) error {
	return fault.New(fault.Schema, "%s:%d: not a result line (%s); a results file holds only rlm batch's lines: give another --out, or remove the line", path, n, why)
}

func knownStatus(s string) bool { return s == "answered" || s == "completed" || s == "failed" }

// errForeign stops readLine at a line that cannot be a result line.
var errForeign = errors.New("not a result line")

// readLine appends the next line of br to buf, its newline included (none at the end of the
// file, where err is io.EOF). A line whose first 64 KiB do not start as a result line is
// returned cut there, with errForeign: a large file that is not a results file is never
// read whole.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err == nil {
				return buf, nil
			}
			return buf, err
		}
		if t := bytes.TrimLeft(buf, " \t\r"); !bytes.HasPrefix(t, resultPrefix) {
			return buf, errForeign
		}
	}
}

// cutTorn truncates f to end, the end of its last whole line, and leaves it open there for
// appending.
func cutTorn(f *os.File, path string, end int64) error {
	st, err := f.Stat()
	if err == nil && st.Size() > end {
		err = f.Truncate(end)
	}
	if err == nil {
		_, err = f.Seek(end, io.SeekStart)
	}
	if err != nil {
		return fault.Wrap(fault.Schema, err, path)
	}
	return nil
}

// addPast adds the results that the queue stored while no coordinator was writing them.
func (r *results) addPast(res Result) error {
	_, err := r.add(res)
	return err
}

// has reports whether the task id has a result.
func (r *results) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[id]
	return ok && r.status[i] != pending
}

// left is how many of the batch's tasks have no result.
func (r *results) left() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.status) - r.done
}

// add appends res and syncs the file; it reports false, writing nothing, when res.ID is not a
// task of the batch or already has a result (a redelivered task's second result).
func (r *results) add(res Result) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.index[res.ID]
	if !ok || r.status[i] != pending {
		return false, nil
	}
	line, err := json.Marshal(res)
	if err != nil {
		return false, err
	}
	if _, err := r.f.Write(append(line, '\n')); err != nil {
		return false, fmt.Errorf("writing the result of %q: %w", res.ID, err)
	}
	if err := r.f.Sync(); err != nil {
		return false, fmt.Errorf("syncing the result of %q: %w", res.ID, err)
	}
	r.status[i] = statusOf(res.Status)
	r.done++
	return true, nil
}

func (r *results) close() error { return r.f.Close() }
