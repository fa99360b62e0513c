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

	"github.com/rlm-sandbox/rlm/fault"
)

// Result is one line of the results file: a task's outcome in rlm run --json's shape, with
// the task's id, its timing and where it ran.
type Result struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // answered, completed or failed
	Answer    string `json:"answer,omitempty"`
	Output    string `json:"output,omitempty"` // what a script printed
	Error     *Error `json:"error,omitempty"`
	Usage     Usage  `json:"usage"`
	TaskID    string `json:"task_id,omitempty"` // the run's id in the worker's audit trail
	Isolation string `json:"isolation,omitempty"`
	Trace     string `json:"trace,omitempty"` // the run's JSONL trace, on the worker's machine
	Workspace string `json:"workspace,omitempty"`
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

// Usage is what a task spent.
type Usage struct {
	Calls      int     `json:"api_calls"`
	Tokens     int     `json:"tokens"`
	CostUSD    float64 `json:"cost_usd"`
	CostKnown  bool    `json:"cost_known"` // false when some call's price was unknown
	Iterations int     `json:"iterations"`
	SubCalls   int     `json:"sub_calls"`
}

// Failed reports whether the task failed.
func (r Result) Failed() bool { return r.Status == "failed" }

// results is the results file, opened for appending: one JSON line per task, each written
// whole and synced before the next, so a crash or a signal loses no finished result; ids are
// kept unique. A flock keeps two batches from writing the same file.
type results struct {
	mu      sync.Mutex
	f       *os.File
	done    map[string]Result
	created bool // the file did not exist: a new batch
}

// openResults opens (or creates) the results file and reads the results already in it. A
// last line cut short by a crash is dropped (the file is truncated to the last whole line);
// a later duplicate of an id is ignored.
func openResults(path string) (*results, error) {
	_, statErr := os.Stat(path)
	f, err := lockResults(path)
	if err != nil {
		return nil, err
	}
	r := &results{f: f, done: map[string]Result{}, created: errors.Is(statErr, fs.ErrNotExist)}
	if err := r.load(path); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// lockResults opens path and takes its lock. A retry replaces the file by a rename while it
// holds the lock, so the lock is kept only if path still names the locked file.
func lockResults(path string) (*os.File, error) {
	for range 8 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fault.Wrap(fault.Schema, err, "results file")
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			return nil, fault.New(fault.Limit, "%s is being written by another rlm batch; wait for it, or give this one another --out", path)
		}
		same, err := namesFile(path, f)
		switch {
		case err != nil:
			f.Close()
			return nil, fault.Wrap(fault.Schema, err, "results file")
		case same:
			return f, nil
		}
		f.Close() // replaced between the open and the lock: lock the new file
	}
	return nil, fault.New(fault.Limit, "%s keeps being replaced by another rlm batch; wait for it, or give this one another --out", path)
}

// namesFile reports whether path names the open file f.
func namesFile(path string, f *os.File) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, now), nil
}

func (r *results) load(path string) error {
	data, err := io.ReadAll(r.f)
	if err != nil {
		return fault.Wrap(fault.Schema, err, path)
	}
	whole := bytes.LastIndexByte(data, '\n') + 1
	if whole < len(data) { // a torn last line: the process died while writing it
		if err := r.f.Truncate(int64(whole)); err != nil {
			return fault.Wrap(fault.Schema, err, path)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data[:whole]))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var res Result
		if err := json.Unmarshal(line, &res); err != nil || res.ID == "" {
			return fault.New(fault.Schema, "%s:%d: not a result line (%v); the results file holds only rlm batch's lines: give another --out, or remove the line", path, n, err)
		}
		if _, dup := r.done[res.ID]; !dup {
			r.done[res.ID] = res
		}
	}
	_, err = r.f.Seek(0, io.SeekEnd)
	return err
}

// addPast adds the results of tasks in want that the queue stored while no coordinator was
// writing them.
func (r *results) addPast(past []Result, want map[string]bool) error {
	for _, res := range past {
		if want[res.ID] {
			if _, err := r.add(res); err != nil {
				return err
			}
		}
	}
	return nil
}

// has reports whether id has a result.
func (r *results) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.done[id]
	return ok
}

// add appends res and syncs the file; it reports false, writing nothing, when res.ID already
// has a result (a redelivered task's second result).
func (r *results) add(res Result) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.done[res.ID]; dup {
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
	r.done[res.ID] = res
	return true, nil
}

func (r *results) close() error { return r.f.Close() }
