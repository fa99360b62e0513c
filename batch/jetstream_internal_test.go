package batch

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestResultsOnOneSubject: a batch's results share one subject, so the server's subject index
// does not grow with its tasks; Forget deletes the results of the ids it names, whether stored
// on that subject or, by an earlier version, on a subject per task.
func TestResultsOnOneSubject(t *testing.T) {
	dir := t.TempDir()
	srv, err := Embedded(filepath.Join(dir, "nats"), "")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := srv.Conn()
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, err := NewJetStream(ctx, nc, JetStreamOptions{Coordinator: true, CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	js := q.(*jsQueue)
	publish := func(subject, id string) {
		data, _ := json.Marshal(Result{ID: id, Status: "failed"})
		if _, err := js.js.Publish(ctx, subject, data); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		publish(resultSubject("b1"), id)
	}
	publish(resultSubj+"b1.0123456789abcdef01234567", "old") // an earlier version's subject per task
	publish(resultSubject("b2"), "a")                        // another batch
	if err := q.Forget(ctx, "b1", []string{"b", "old"}); err != nil {
		t.Fatal(err)
	}
	stream, err := js.js.Stream(ctx, resultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(">"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(info.State.Subjects); n != 2 {
		t.Errorf("subjects %v, want one per batch", info.State.Subjects)
	}
	var got []string
	live, err := q.Results(ctx, "b1", func(r Result) error { got = append(got, r.ID); return nil })
	if err != nil || live == nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("results of b1 after Forget(b, old): %v, want a, c", got)
	}
}
