package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/mcpserver"
)

// flood keeps n connections to addr open, each reopened as soon as the server closes it, until
// stop is called, which waits for them and returns how many were opened. What each sends:
// "silent" nothing; "stall" a POST's headers announcing a body, and one byte of it; "whole" a
// whole request, then nothing more (which proves a connection to a server without a token).
func flood(addr, mode string, n int) (stop func() int64) {
	var opened atomic.Int64
	var wg sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	live := map[net.Conn]bool{}
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				c, err := net.Dial("tcp", addr)
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				mu.Lock()
				live[c] = true
				mu.Unlock()
				opened.Add(1)
				switch mode {
				case "stall":
					fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr)
				case "whole":
					fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
				}
				_, _ = io.Copy(io.Discard, c) // until the server closes it
				mu.Lock()
				delete(live, c)
				mu.Unlock()
				c.Close()
			}
		})
	}
	return func() int64 {
		close(done)
		mu.Lock()
		for c := range live {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
		return opened.Load()
	}
}

// legit is a client that connects with go-sdk, opens a sandbox, runs a cell and closes it,
// within budget; it returns how many event streams (GET) it opened.
func legit(url, tok string, budget time.Duration) (streams int64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	var rt http.RoundTripper = http.DefaultTransport
	if tok != "" {
		rt = bearer{tok}
	}
	cr := &counting{base: rt}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "legit", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: cr}}, nil)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_open", Arguments: map[string]any{"lang": "js"}})
	if err != nil || res.IsError {
		return 0, fmt.Errorf("sandbox_open: %v %v", err, res)
	}
	sess, _ := res.StructuredContent.(map[string]any)["session"].(string)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_exec", Arguments: map[string]any{"session": sess, "code": "print(6*7)"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "42") {
		return 0, fmt.Errorf("sandbox_exec: %v %v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sandbox_close", Arguments: map[string]any{"session": sess}}); err != nil {
		return 0, fmt.Errorf("sandbox_close: %w", err)
	}
	return cr.gets.Load(), nil
}

// TestHTTPConnFlood: connections that never prove themselves (they send nothing, or stall their
// request, reopened as soon as the server closes them), as many as the server's bound, do not
// keep out a client that sends whole requests with the token, or without a token any client:
// it connects, opens a sandbox and runs a cell within seconds, and its event stream is never
// cut. Without a token the same holds against connections that send one whole request and then
// stay idle. Before, the flood held every connection slot and the client got 503 (the red
// team's connlock: 25 of 26 requests with the token refused).
func TestHTTPConnFlood(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const budget = 10 * time.Second
	for _, tok := range []string{token, ""} {
		url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: tok})
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
		for _, mode := range []string{"silent", "stall", "whole"} {
			name := fmt.Sprintf("token %v, %s flood", tok != "", mode)
			stop := flood(addr, mode, limits.HTTPConns)
			time.Sleep(time.Second) // the flood holds every slot
			for try := range 2 {
				start := time.Now()
				streams, err := legit(url, tok, budget)
				took := time.Since(start)
				switch {
				case err != nil:
					t.Errorf("%s, try %d: after %v: %v; want the client served within %v", name, try, took.Round(time.Millisecond), err, budget)
				case streams != 1:
					t.Errorf("%s, try %d: the client opened %d event streams; want 1, never cut", name, try, streams)
				default:
					t.Logf("%s, try %d: served in %v", name, try, took.Round(time.Millisecond))
				}
			}
			t.Logf("%s: %d hostile connections opened", name, stop())
		}
	}
}

// request sends a whole POST (initialize) on c, with the token when tok is set, and reads the
// answer: its status line, "closed" when the server closed the connection, "no answer".
// An answer the server sends before reading anything (503) is read before the request is sent.
func request(c net.Conn, r *bufio.Reader, addr, tok string) string {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	auth := ""
	if tok != "" {
		auth = "Authorization: Bearer " + tok + "\r\n"
	}
	_ = c.SetDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := r.Peek(1); err != nil {
		if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return "closed"
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n%s", addr, auth, len(init), init)
	}
	resp, err := http.ReadResponse(r, nil)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return "no answer"
	}
	if err != nil {
		return "closed"
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Status
}

// TestHTTPConnBound: at the bound, a new connection takes the place of a connection that has
// proved itself only on a server without a token, the one idle longest; with a token, it is
// answered 503, and the proved connections stay open.
func TestHTTPConnBound(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const max = 4
	tests := []struct {
		token  string
		newest string   // the answer to a connection past the bound
		kept   []string // then, the answers to a request on each proved connection, oldest first
	}{
		{token, "503 Service Unavailable", []string{"200 OK", "200 OK", "200 OK", "200 OK"}},
		{"", "200 OK", []string{"closed", "200 OK", "200 OK", "200 OK"}},
	}
	for _, tt := range tests {
		url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: tt.token, MaxConns: max})
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
		var conns []net.Conn
		var readers []*bufio.Reader
		for i := range max {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r := bufio.NewReader(c)
			if got := request(c, r, addr, tt.token); got != "200 OK" {
				t.Fatalf("token %v: connection %d: %q", tt.token != "", i, got)
			}
			conns, readers = append(conns, c), append(readers, r)
			time.Sleep(10 * time.Millisecond) // idle since different times
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		newest := request(c, bufio.NewReader(c), addr, tt.token)
		c.Close()
		var kept []string
		for i, c := range conns {
			kept = append(kept, request(c, readers[i], addr, tt.token))
		}
		if newest != tt.newest || strings.Join(kept, ",") != strings.Join(tt.kept, ",") {
			t.Errorf("token %v: past the bound %q, then the proved connections %q; want %q, then %q", tt.token != "", newest, kept, tt.newest, tt.kept)
		}
	}
}
