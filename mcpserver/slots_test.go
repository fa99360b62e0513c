package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestFullRefusal: the refusal of a full server names the caller's own sessions, and only counts
// the others': a client learns nothing of another's session ids.
func TestFullRefusal(t *testing.T) {
	srv, a := start(t, mcpserver.Options{MaxSessions: 2})
	b, c := connect(t, srv, nil), connect(t, srv, nil)
	sa := open(t, a, map[string]any{"lang": "js"})
	sb := open(t, b, map[string]any{"lang": "go"})
	tests := []struct {
		name    string
		cs      *mcp.ClientSession
		want    []string
		mustNot []string
	}{
		{"a", a, []string{"yours: " + sa.Session + " (js, idle ", "and 1 held by other clients' sessions and rlm_ask runs", "sandbox_close"}, []string{sb.Session}},
		{"b", b, []string{"yours: " + sb.Session + " (go, idle ", "and 1 held by other clients'"}, []string{sa.Session}},
		{"c", c, []string{"none of them yours: other clients' sessions and rlm_ask runs hold all 2; try again later (a session idle for 10m0s is closed)"}, []string{sa.Session, sb.Session, "s-"}},
	}
	for _, tt := range tests {
		res := call(t, tt.cs, "sandbox_open", map[string]any{"lang": "js"}, nil)
		got := text(res)
		if !res.IsError {
			t.Errorf("client %s opened a third session on a server of 2", tt.name)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("client %s: %q; want %q in it", tt.name, got, w)
			}
		}
		for _, w := range tt.mustNot {
			if strings.Contains(got, w) {
				t.Errorf("client %s: %q names %q, another client's", tt.name, got, w)
			}
		}
	}
}

// fifo makes a named pipe in dir: opening it for reading blocks in open(2) until a writer
// comes, and no cancellation reaches it there. unblock opens its writing end, which lets every
// blocked reader go on, puts an empty regular file in its place (so that a later open by name
// does not block again), then closes the writing end (the readers read nothing). Defer it, so
// that it runs before the server's cleanup, which waits for the calls in flight.
func fifo(t *testing.T, dir string) (path string, unblock func()) {
	t.Helper()
	path = filepath.Join(dir, "pipe.txt")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	var once sync.Once
	unblock = func() {
		once.Do(func() {
			plain := filepath.Join(t.TempDir(), "plain.txt")
			if err := os.WriteFile(plain, nil, 0o644); err != nil {
				t.Error(err)
			}
			// O_RDWR never blocks on a FIFO (Linux), and it is a writer for the blocked readers.
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(plain, path); err != nil {
				t.Error(err)
			}
			time.Sleep(50 * time.Millisecond)
			f.Close()
		})
	}
	return path, unblock
}

// TestOpenCancelled: a sandbox_open that blocks opening a file, and that its client cancels,
// gives its worker slot back (within a couple of seconds) although the open itself stays
// blocked; the next open succeeds. Once the blocked open ends, what it opened is closed.
// Blocked in two ways: a FIFO named as a context file (the path a client controls), and an open
// of a FIFO in front of the session's own open, which shows the cancellation path whatever
// the file layer does with FIFOs.
func TestOpenCancelled(t *testing.T) {
	for _, direct := range []bool{false, true} {
		name := map[bool]string{false: "fifo as a context file", true: "a blocked open before the session's"}[direct]
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path, unblock := fifo(t, root)
			defer unblock()
			args := map[string]any{"lang": "js", "files": []string{"pipe.txt"}}
			if direct {
				args = map[string]any{"lang": "js"}
				var first atomic.Bool
				first.Store(true)
				defer mcpserver.SetOpenSession(func(ctx context.Context, o rlm.SessionOptions) (*rlm.Session, error) {
					if first.Swap(false) {
						if f, err := os.Open(path); err == nil { // blocks until unblock
							f.Close()
						}
					}
					return rlm.OpenSession(ctx, o)
				})()
			}
			_, cs := start(t, mcpserver.Options{MaxSessions: 1, Roots: []string{root}})
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_open", Arguments: args})
			if err == nil && direct {
				t.Fatal("the blocked open was not cancelled")
			}
			// The slot is free again while the first open is still blocked.
			var o openOut
			var res *mcp.CallToolResult
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				if res = call(t, cs, "sandbox_open", map[string]any{"lang": "js"}, &o); !res.IsError || time.Now().After(deadline) {
					break
				}
			}
			if res.IsError {
				t.Fatalf("10 s after a cancelled open, the next one is still refused: %s", text(res))
			}
			call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
			unblock()
		})
	}
}

// TestOpenAbandonedBound: cancelled opens still blocked in the file system are bounded (each
// holds a thread); past the bound, sandbox_open says why it refuses, and once they end it opens
// again.
func TestOpenAbandonedBound(t *testing.T) {
	const bound = 16 // mcpserver's maxAbandoned
	root := t.TempDir()
	path, unblock := fifo(t, root)
	defer unblock()
	defer mcpserver.SetOpenSession(func(ctx context.Context, o rlm.SessionOptions) (*rlm.Session, error) {
		if len(o.Files) > 0 { // the blocked ones name a file; the last one does not
			if f, err := os.Open(path); err == nil {
				f.Close()
			}
		}
		return rlm.OpenSession(ctx, o)
	})()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, cs := start(t, mcpserver.Options{MaxSessions: bound, Roots: []string{root}})
	var wg sync.WaitGroup
	for range bound {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_open", Arguments: map[string]any{"lang": "js", "files": []string{"a.txt"}}})
		}()
	}
	wg.Wait()
	var res *mcp.CallToolResult
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res = call(t, cs, "sandbox_open", map[string]any{"lang": "js"}, nil)
		if strings.Contains(text(res), "16 cancelled sandbox_open or rlm_ask calls are still blocked opening their files") || time.Now().After(deadline) {
			break
		}
	}
	if !res.IsError || !strings.Contains(text(res), "still blocked opening their files") {
		t.Errorf("with %d cancelled opens blocked: %q; want a refusal that says so", bound, text(res))
	}
	unblock()
	var o openOut
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if res = call(t, cs, "sandbox_open", map[string]any{"lang": "js"}, &o); !res.IsError || time.Now().After(deadline) {
			break
		}
	}
	if res.IsError {
		t.Errorf("after the blocked opens ended: %q; want a session", text(res))
	}
}
