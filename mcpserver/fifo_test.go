package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

// TestFifoOpen: sandbox_open of a fifo (whose open(2) blocks until a writer comes) returns an
// error at once, and as many of them as the server has slots leave every slot free: the next
// open of a real file succeeds.
func TestFifoOpen(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("plain\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fifos []string
	for i := range limits.MCPSessions {
		p := filepath.Join(root, fmt.Sprintf("fifo%d", i))
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	_, cs := start(t, mcpserver.Options{Roots: []string{root}})
	for _, p := range fifos {
		for _, name := range []string{filepath.Base(p), p} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_open", Arguments: map[string]any{"files": []string{name}}})
			cancel()
			if err != nil {
				unblock(fifos) // let the blocked open return, so that the server can close
				t.Fatalf("sandbox_open of the fifo %s: %v; want an error at once", name, err)
			}
			if !res.IsError || !strings.Contains(text(res), "is a named pipe (fifo)") {
				t.Errorf("sandbox_open of the fifo %s: %q; want it refused as a fifo", name, text(res))
			}
		}
	}
	o := open(t, cs, map[string]any{"files": []string{"in.txt"}, "lang": "js"})
	call(t, cs, "sandbox_close", map[string]any{"session": o.Session}, nil)
}

// unblock opens each fifo for writing, so that a reader blocked in open(2) gets it.
func unblock(fifos []string) {
	for _, p := range fifos {
		if fd, err := syscall.Open(p, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	}
}
