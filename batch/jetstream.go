package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// Names in JetStream. Jobs of every batch share one work-queue stream and one durable
// consumer, so a worker serves whichever batch has work; a batch's subjects end in its Name
// (results: its Name, then ".r").
const (
	jobStream    = "RLM_JOBS"
	jobSubject   = "rlm.jobs."
	resultStream = "RLM_RESULTS"
	resultSubj   = "rlm.results."
	consumerName = "rlm-workers"
	inputBucket  = "rlm_inputs"
	// retention of results and inputs in the server: long enough to resume a batch.
	retention = 14 * 24 * time.Hour
)

// JetStreamOptions configure NewJetStream; the zero value is usable.
type JetStreamOptions struct {
	// AckWait is limits.AckWait when 0. The consumer is created (or updated) with it by the
	// coordinator; a worker uses the consumer's.
	AckWait time.Duration
	// Coordinator makes the queue create or update the consumer with AckWait; a worker only
	// creates it when it is missing.
	Coordinator bool
	// CacheDir is where a worker keeps fetched inputs, by hash (required to Fetch). Inputs
	// no job has used for 7 days are removed when a queue is opened on it.
	CacheDir string
	// Replicas is the number of copies of the streams and inputs in a JetStream cluster
	// (default 1; 3 survives the loss of a node). Set by the coordinator.
	Replicas int
}

type jsQueue struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	jobs    jetstream.Stream
	cons    jetstream.Consumer
	inputs  jetstream.ObjectStore
	ackWait time.Duration
	cache   string
	fetchMu sync.Mutex
}

// NewJetStream returns a queue on the JetStream of nc, creating its streams, consumer and
// object store when they are missing. Close does not close nc.
func NewJetStream(ctx context.Context, nc *nats.Conn, o JetStreamOptions) (Queue, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	q := &jsQueue{nc: nc, js: js, cache: o.CacheDir}
	if err := q.streams(ctx, o); err != nil {
		return nil, err
	}
	if err := q.consumer(ctx, o); err != nil {
		return nil, err
	}
	if o.CacheDir != "" {
		pruneCache(o.CacheDir, time.Now().Add(-cacheAge))
	}
	return q, nil
}

// cacheAge is how long a cached input unused by any job is kept.
const cacheAge = 7 * 24 * time.Hour

// pruneCache removes the cached inputs not used since before.
func pruneCache(dir string, before time.Time) {
	hashes, _ := os.ReadDir(dir)
	for _, h := range hashes {
		files, _ := os.ReadDir(filepath.Join(dir, h.Name()))
		for _, f := range files {
			if info, err := f.Info(); err == nil && info.ModTime().Before(before) {
				os.Remove(filepath.Join(dir, h.Name(), f.Name()))
			}
		}
		os.Remove(filepath.Join(dir, h.Name())) // only when empty
	}
}

// streams creates the streams and the object store, or finds them. A worker takes them as the
// coordinator made them; it creates one only when it comes first.
func (q *jsQueue) streams(ctx context.Context, o JetStreamOptions) error {
	r := max(o.Replicas, 1)
	jobs := jetstream.StreamConfig{Name: jobStream, Subjects: []string{jobSubject + ">"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, MaxAge: retention, Replicas: r}
	results := jetstream.StreamConfig{Name: resultStream, Subjects: []string{resultSubj + ">"}, Storage: jetstream.FileStorage, MaxAge: retention, Replicas: r}
	inputs := jetstream.ObjectStoreConfig{Bucket: inputBucket, Storage: jetstream.FileStorage, TTL: retention, Replicas: r}
	var err error
	if o.Coordinator {
		q.jobs, err = q.js.CreateOrUpdateStream(ctx, jobs)
	} else if q.jobs, err = q.js.Stream(ctx, jobStream); errors.Is(err, jetstream.ErrStreamNotFound) {
		q.jobs, err = q.js.CreateStream(ctx, jobs)
	}
	if err != nil {
		return fmt.Errorf("JetStream stream %s: %w", jobStream, err)
	}
	if o.Coordinator {
		_, err = q.js.CreateOrUpdateStream(ctx, results)
	} else if _, err = q.js.Stream(ctx, resultStream); errors.Is(err, jetstream.ErrStreamNotFound) {
		_, err = q.js.CreateStream(ctx, results)
	}
	if err != nil {
		return fmt.Errorf("JetStream stream %s: %w", resultStream, err)
	}
	if o.Coordinator {
		q.inputs, err = q.js.CreateOrUpdateObjectStore(ctx, inputs)
	} else if q.inputs, err = q.js.ObjectStore(ctx, inputBucket); errors.Is(err, jetstream.ErrBucketNotFound) {
		q.inputs, err = q.js.CreateObjectStore(ctx, inputs)
	}
	if err != nil {
		return fmt.Errorf("JetStream object store %s: %w", inputBucket, err)
	}
	return nil
}

func (q *jsQueue) consumer(ctx context.Context, o JetStreamOptions) error {
	cfg := jetstream.ConsumerConfig{Durable: consumerName, AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: o.AckWait, FilterSubject: jobSubject + ">", MaxAckPending: 10_000}
	if cfg.AckWait <= 0 {
		cfg.AckWait = limits.AckWait
	}
	var err error
	if !o.Coordinator {
		q.cons, err = q.js.Consumer(ctx, jobStream, consumerName)
	}
	if o.Coordinator || errors.Is(err, jetstream.ErrConsumerNotFound) {
		q.cons, err = q.js.CreateOrUpdateConsumer(ctx, jobStream, cfg)
	}
	if err != nil {
		return fmt.Errorf("JetStream consumer %s: %w", consumerName, err)
	}
	q.ackWait = q.cons.CachedInfo().Config.AckWait
	return nil
}

// Store puts the file in the object store under its SHA-256, unless it is there already.
func (q *jsQueue) Store(ctx context.Context, path string) (Input, error) {
	f, err := tools.OpenRegular(path) // checked when the tasks were read, but it may have been swapped since
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return Input{}, err
	}
	in := Input{Name: filepath.Base(path), Hash: "sha256-" + hex.EncodeToString(h.Sum(nil)), Size: size}
	if info, err := q.inputs.GetInfo(ctx, in.Hash); err == nil && info.Size == uint64(size) {
		return in, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Input{}, err
	}
	if _, err := q.inputs.Put(ctx, jetstream.ObjectMeta{Name: in.Hash}, f); err != nil {
		return Input{}, err
	}
	return in, nil
}

// Fetch returns the cached copy of the input, downloading it (and checking its hash) first
// when this worker has none.
func (q *jsQueue) Fetch(ctx context.Context, in Input) (string, error) {
	hash, ok := strings.CutPrefix(in.Hash, "sha256-")
	if !ok || len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		return "", fmt.Errorf("input reference %q is not sha256-HEX", in.Hash)
	}
	if q.cache == "" {
		return "", errors.New("no input cache directory")
	}
	name := filepath.Base(in.Name)
	if name == "." || name == ".." || name == "/" {
		name = "input"
	}
	dir := filepath.Join(q.cache, hash)
	path := filepath.Join(dir, name)
	q.fetchMu.Lock()
	defer q.fetchMu.Unlock()
	if st, err := os.Stat(path); err == nil && st.Size() == in.Size {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // used: keep it past the next pruning
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, q.download(ctx, in.Hash, hash, path)
}

// download copies the object to path through a temporary file, checking its SHA-256.
func (q *jsQueue) download(ctx context.Context, object, hash, path string) error {
	obj, err := q.inputs.Get(ctx, object)
	if err != nil {
		return err
	}
	defer obj.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), obj)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return err
	case hex.EncodeToString(h.Sum(nil)) != hash:
		return fmt.Errorf("the object store's copy of %s does not match its hash", object)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (q *jsQueue) Publish(ctx context.Context, j Job) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	_, err = q.js.Publish(ctx, jobSubject+j.Batch, data)
	return err
}

func (q *jsQueue) Take(ctx context.Context) (Delivery, error) {
	for {
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		msg, err := q.cons.Next(jetstream.FetchContext(fctx))
		cancel()
		switch {
		case err == nil:
			j, ok := readJob(msg.Data())
			if !ok {
				_ = msg.Term() // not a job: never deliver it again
				continue
			}
			return &jsDelivery{q: q, msg: msg, job: j}, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout), errors.Is(err, jetstream.ErrNoMessages):
			continue
		case errors.Is(err, nats.ErrConnectionClosed):
			return nil, ErrClosed
		default:
			// a reconnect in progress, a leader election: wait and ask again
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
}

// readJob reads a job from the queue. A message that names a batch and an id but is not a job
// (a limit this worker does not know, a bad duration) is a job that check refuses, so that its
// batch gets a failed result that says why; ok is false for a message without them.
func readJob(data []byte) (j Job, ok bool) {
	err := json.Unmarshal(data, &j)
	if err == nil {
		return j, true
	}
	var id struct{ Batch, ID string }
	if json.Unmarshal(data, &id) != nil || id.Batch == "" || id.ID == "" {
		return Job{}, false
	}
	var fe *fieldError
	if !errors.As(err, &fe) {
		err = errors.New(jsonErr(err))
	}
	return Job{Batch: id.Batch, ID: id.ID, bad: err}, true
}

// Results reads the batch's result subject from its start: what is there now goes to past, the
// rest to the channel.
func (q *jsQueue) Results(ctx context.Context, batch string, past func(Result) error) (<-chan Result, error) {
	it, err := q.stored(ctx, batch, func(msg jetstream.Msg) error {
		var r Result
		if json.Unmarshal(msg.Data(), &r) != nil || r.ID == "" {
			return nil
		}
		return past(r)
	})
	if err != nil {
		return nil, err
	}
	live := make(chan Result, 64)
	go func() {
		<-ctx.Done()
		it.Stop()
	}()
	go func() {
		defer close(live)
		for {
			msg, err := it.Next()
			if err != nil {
				if errors.Is(err, jetstream.ErrMsgIteratorClosed) || ctx.Err() != nil {
					return
				}
				continue
			}
			var r Result
			if json.Unmarshal(msg.Data(), &r) != nil || r.ID == "" {
				continue
			}
			select {
			case live <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return live, nil
}

func (q *jsQueue) Drop(ctx context.Context, batch string) error {
	return q.jobs.Purge(ctx, jetstream.WithPurgeSubject(jobSubject+batch))
}

func (q *jsQueue) Reset(ctx context.Context, batch string) error {
	if err := q.Drop(ctx, batch); err != nil {
		return err
	}
	results, err := q.js.Stream(ctx, resultStream)
	if err != nil {
		return err
	}
	return results.Purge(ctx, jetstream.WithPurgeSubject(resultSubj+batch+".>"))
}

// stored reads the results stored for the batch now, from the first, passing each to fn, and
// returns the iterator, which goes on with those stored later. On an error it is stopped.
func (q *jsQueue) stored(ctx context.Context, batch string, fn func(jetstream.Msg) error) (jetstream.MessagesContext, error) {
	cons, err := q.js.OrderedConsumer(ctx, resultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultSubj + batch + ".>"}})
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	it, err := cons.Messages()
	if err != nil {
		return nil, err
	}
	for n := info.NumPending; n > 0; n-- {
		msg, err := it.Next()
		if err == nil {
			err = fn(msg)
		}
		if err != nil {
			it.Stop()
			return nil, err
		}
	}
	return it, nil
}

// Forget reads the batch's stored results once and deletes those of ids, one message at a time.
func (q *jsQueue) Forget(ctx context.Context, batch string, ids []string) error {
	results, err := q.js.Stream(ctx, resultStream)
	if err != nil {
		return err
	}
	drop := setOf(ids)
	it, err := q.stored(ctx, batch, func(msg jetstream.Msg) error {
		var r struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(msg.Data(), &r) != nil || !drop[r.ID] {
			return nil
		}
		md, err := msg.Metadata()
		if err == nil {
			err = results.DeleteMsg(ctx, md.Sequence.Stream)
		}
		if err != nil {
			return fmt.Errorf("forgetting the result of %s: %w", r.ID, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	it.Stop()
	return nil
}

// resultSubject is where the results of the batch are published: one subject for the batch,
// so that the server's index of subjects does not grow with its tasks (a subject per task cost
// it about 180 bytes each). Forget deletes a task's results by their sequence numbers; results
// stored by earlier versions, one subject per task under the same prefix, are read and
// forgotten the same way.
func resultSubject(batch string) string { return resultSubj + batch + ".r" }

func (q *jsQueue) Close() error { return nil }

type jsDelivery struct {
	q   *jsQueue
	msg jetstream.Msg
	job Job
}

func (d *jsDelivery) Job() Job { return d.job }

func (d *jsDelivery) Attempt() int {
	md, err := d.msg.Metadata()
	if err != nil {
		return 1
	}
	return int(md.NumDelivered)
}

func (d *jsDelivery) Touch() error             { return d.msg.InProgress() }
func (d *jsDelivery) Heartbeat() time.Duration { return max(d.q.ackWait/3, 100*time.Millisecond) }
func (d *jsDelivery) Release() error           { return d.msg.Nak() }

// Finish publishes the result (waiting for the server to store it), then acknowledges the
// job; a job whose ack is lost is delivered again, and its second result is dropped by the
// coordinator.
func (d *jsDelivery) Finish(ctx context.Context, r Result) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := d.q.js.Publish(ctx, resultSubject(d.job.Batch), data); err != nil {
		return fmt.Errorf("publishing the result of %s: %w", d.job.ID, err)
	}
	return d.msg.DoubleAck(ctx)
}
