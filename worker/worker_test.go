package worker

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/wire"
)

// echoRunner prints each cell's source.
type echoRunner struct{}

func (echoRunner) Run(_ context.Context, src []byte, _ bool) engine.Result {
	return engine.Result{Stdout: string(src) + "\n"}
}
func (echoRunner) Vars() []string       { return nil }
func (echoRunner) Locals() []engine.Var { return nil }

// serving runs ServeWith with echoRunner on pipes and returns the parent's end of them, and
// the channel ServeWith's error comes back on.
func serving(t *testing.T) (*wire.Conn, io.Closer, <-chan error) {
	t.Helper()
	toWorker, fromParent := io.Pipe()
	toParent, fromWorker := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := ServeWith(toWorker, fromWorker, func(Config, engine.Host) (Runner, Isolation, error) {
			return echoRunner{}, Isolation{Verdict: "none"}, nil
		})
		fromWorker.Close()
		errc <- err
	}()
	t.Cleanup(func() { fromParent.Close(); toParent.Close() })
	return wire.NewConn(toParent, fromParent), fromParent, errc
}

func recv(t *testing.T, c *wire.Conn) wire.Message {
	t.Helper()
	m, err := c.Recv()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestReadyNamesVersionAndBuild: the worker answers init with the protocol version and its
// build's BuildID, which the parent checks before it sends any code; then it serves execs.
func TestReadyNamesVersionAndBuild(t *testing.T) {
	c, stdin, errc := serving(t)
	if err := c.Send(wire.Message{Op: wire.OpInit, Init: &wire.Init{Version: wire.Version, Lang: "js"}}); err != nil {
		t.Fatal(err)
	}
	m := recv(t, c)
	build, _ := wire.BuildID()
	if m.Op != wire.OpReady || m.Ready == nil || m.Ready.Version != wire.Version || m.Ready.Build != build || m.Ready.Isolation != "none" {
		t.Fatalf("got %+v (ready %+v); want ready, version %d, build %q, isolation none", m, m.Ready, wire.Version, build)
	}
	if err := c.Send(wire.Message{Op: wire.OpExec, ID: 1, Code: "hello", CellRoom: 1 << 20, SessionRoom: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, c); m.Op != wire.OpResult || m.ID != 1 || m.Result == nil || m.Result.Stdout != "hello\n" {
		t.Fatalf("got %+v; want the result of exec 1, hello", m)
	}
	stdin.Close()
	if err := waitErr(t, errc); err != nil {
		t.Errorf("ServeWith after the parent closed stdin: %v; want nil", err)
	}
}

// TestRefusesAnotherVersion: a parent of another protocol version gets a refusal that names
// both versions, with this worker's version in it, and the worker stops without building an
// engine or running anything.
func TestRefusesAnotherVersion(t *testing.T) {
	c, _, errc := serving(t)
	if err := c.Send(wire.Message{Op: wire.OpInit, Init: &wire.Init{Version: wire.Version + 1, Lang: "js"}}); err != nil {
		t.Fatal(err)
	}
	m := recv(t, c)
	if m.Ready == nil || m.Ready.Isolation != "refused" || m.Ready.Version != wire.Version ||
		len(m.Ready.Layers) != 1 || !strings.Contains(m.Ready.Layers[0], "protocol version") {
		t.Fatalf("got %+v; want a refusal naming the protocol versions", m.Ready)
	}
	if err := waitErr(t, errc); err == nil {
		t.Error("ServeWith returned nil; want the version error")
	}
}

func waitErr(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("the worker did not stop")
		return nil
	}
}
