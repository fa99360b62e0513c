package batch

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// Queue carries a batch's jobs to workers and their results back. The coordinator (Run)
// stores inputs, publishes jobs and reads results; workers (Work) take jobs, fetch their
// inputs and finish them with a result. Delivery is at least once: a job whose worker goes
// quiet is delivered again, so a job may produce more than one result, and the coordinator
// keeps the first.
type Queue interface {
	// Store makes a local file available to workers and returns its reference.
	Store(ctx context.Context, path string) (Input, error)
	// Fetch returns a local path holding in's content, on the worker's machine.
	Fetch(ctx context.Context, in Input) (string, error)
	// Publish queues a job.
	Publish(ctx context.Context, j Job) error
	// Take waits for the next job of any batch.
	Take(ctx context.Context) (Delivery, error)
	// Results calls past with each of the batch's results published before the call (while
	// no coordinator was reading them), one at a time, and returns a channel of those
	// published after, until ctx is done.
	Results(ctx context.Context, batch string, past func(Result) error) (live <-chan Result, err error)
	// Drop removes the batch's jobs that no worker has started.
	Drop(ctx context.Context, batch string) error
	// Reset removes the batch's jobs and its stored results: a batch whose results file is new
	// starts afresh.
	Reset(ctx context.Context, batch string) error
	// Forget removes the stored results of the batch's tasks ids, so that Results does not
	// return them again: their tasks are run again (Config.RetryFailed).
	Forget(ctx context.Context, batch string, ids []string) error
	Close() error
}

// Delivery is one job handed to a worker.
type Delivery interface {
	Job() Job
	// Attempt is this delivery's number, from 1.
	Attempt() int
	// Touch tells the queue the job is still being worked on, so that it is not delivered
	// again; Heartbeat is how often to call it.
	Touch() error
	Heartbeat() time.Duration
	// Finish publishes the job's result and then acknowledges the job.
	Finish(ctx context.Context, r Result) error
	// Release hands the job back unfinished, for another worker.
	Release() error
}

// Job is a task as a worker receives it: its inputs are references, not paths.
type Job struct {
	Batch    string  `json:"batch"`
	ID       string  `json:"id"`
	Question string  `json:"question,omitempty"`
	Script   *Script `json:"script,omitempty"`
	Files    []Input `json:"files,omitempty"`
	Lang     string  `json:"lang,omitempty"`
	Limits   Limits  `json:"limits,omitzero"`

	bad error // why a job from the queue could not be read (Job.check)
}

// Script is a script job's source, carried in the job.
type Script struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// Input is an input file: its name, and where its content is (a path for an in-process
// queue; a content hash, "sha256-HEX", for JetStream).
type Input struct {
	Name string `json:"name"`
	Hash string `json:"hash,omitempty"`
	Size int64  `json:"size"`
	Path string `json:"path,omitempty"`
}

// ErrClosed is returned by a closed queue.
var ErrClosed = errors.New("queue closed")

// memQueue is the in-process queue: channels, no persistence, no redelivery. Workers share
// the coordinator's files.
type memQueue struct {
	jobs    chan Job
	mu      sync.Mutex
	subs    map[string][]chan Result
	backlog map[string][]Result
	done    chan struct{}
	once    sync.Once
}

// NewMemQueue returns an in-process queue that holds up to capacity waiting jobs.
func NewMemQueue(capacity int) Queue {
	return &memQueue{jobs: make(chan Job, max(capacity, 1)), subs: map[string][]chan Result{},
		backlog: map[string][]Result{}, done: make(chan struct{})}
}

func (q *memQueue) Store(_ context.Context, path string) (Input, error) {
	return localInput(path)
}

func (q *memQueue) Fetch(_ context.Context, in Input) (string, error) { return in.Path, nil }

func (q *memQueue) Publish(ctx context.Context, j Job) error {
	select {
	case q.jobs <- j:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-q.done:
		return ErrClosed
	}
}

func (q *memQueue) Take(ctx context.Context) (Delivery, error) {
	select {
	case j := <-q.jobs:
		return &memDelivery{q: q, job: j}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-q.done:
		return nil, ErrClosed
	}
}

func (q *memQueue) Results(_ context.Context, batch string, past func(Result) error) (<-chan Result, error) {
	ch := make(chan Result, 64)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.subs[batch] = append(q.subs[batch], ch)
	backlog := q.backlog[batch]
	delete(q.backlog, batch)
	for _, r := range backlog {
		if err := past(r); err != nil {
			return nil, err
		}
	}
	return ch, nil
}

func (q *memQueue) Drop(context.Context, string) error {
	for {
		select {
		case <-q.jobs:
		default:
			return nil
		}
	}
}

func (q *memQueue) Reset(ctx context.Context, batch string) error {
	q.mu.Lock()
	delete(q.backlog, batch)
	q.mu.Unlock()
	return q.Drop(ctx, batch)
}

func (q *memQueue) Forget(_ context.Context, batch string, ids []string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	drop := setOf(ids)
	q.backlog[batch] = slices.DeleteFunc(q.backlog[batch], func(r Result) bool { return drop[r.ID] })
	return nil
}

func (q *memQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *memQueue) deliver(batch string, r Result) {
	q.mu.Lock()
	subs := q.subs[batch]
	if len(subs) == 0 {
		q.backlog[batch] = append(q.backlog[batch], r)
	}
	q.mu.Unlock()
	for _, ch := range subs {
		select {
		case ch <- r:
		case <-q.done:
		}
	}
}

type memDelivery struct {
	q   *memQueue
	job Job
}

func (d *memDelivery) Job() Job                 { return d.job }
func (d *memDelivery) Attempt() int             { return 1 }
func (d *memDelivery) Touch() error             { return nil }
func (d *memDelivery) Heartbeat() time.Duration { return time.Hour }
func (d *memDelivery) Finish(_ context.Context, r Result) error {
	d.q.deliver(d.job.Batch, r)
	return nil
}

// Release puts the job back at the end of the queue.
func (d *memDelivery) Release() error {
	select {
	case d.q.jobs <- d.job:
		return nil
	default:
		return errors.New("in-process queue full: the job was not handed back")
	}
}
