package mcpserver_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/mcpserver"
)

// fds counts this process's open descriptors.
func fds(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(es)
}

// stall opens n connections to addr, each sending the headers of a POST that announces a body of
// 100,000 bytes and then nothing more. It returns, per connection, the time the server closed it
// and the status line it answered (empty if none), once every one is closed or after wait.
func stall(t *testing.T, addr, auth string, n int, wait time.Duration) (closedAfter []time.Duration, status []string) {
	t.Helper()
	start := time.Now()
	closedAfter, status = make([]time.Duration, n), make([]string, n)
	var wg sync.WaitGroup
	conns := make([]net.Conn, 0, n)
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 100000\r\n\r\n{", addr, auth)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.SetReadDeadline(start.Add(wait))
			r := bufio.NewReader(c)
			line, _ := r.ReadString('\n')
			status[i] = strings.TrimSpace(line)
			for {
				if _, err := r.ReadByte(); err != nil {
					if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
						closedAfter[i] = time.Since(start)
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		c.Close()
	}
	return closedAfter, status
}

// TestHTTPStalledClients: a client that sends a request's headers, announces a body and then
// stalls is cut off: at once when it has no valid token (the body is never waited for), and when
// its body has not arrived within 30 s otherwise. Connections past the bound take the places of
// the oldest ones, which are closed at once without an answer (none of them has proved itself:
// see TestHTTPConnFlood). Every descriptor comes back. Before, 1,000 such connections held 1,000
// descriptors for as long as their clients liked.
func TestHTTPStalledClients(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const n = 200
	url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: token, MaxConns: n})
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")
	base := fds(t)
	tests := []struct {
		name   string
		auth   string
		n      int
		within time.Duration
		status string // of the first n connections
	}{
		{"no token", "", n, 3 * time.Second, "HTTP/1.1 401 Unauthorized"},
		{"a wrong token", "Authorization: Bearer " + strings.Repeat("x", len(token)) + "\r\n", n, 3 * time.Second, "HTTP/1.1 401 Unauthorized"},
		{"the token", "Authorization: Bearer " + token + "\r\n", n, 36 * time.Second, "HTTP/1.1 408 Request Timeout"},
		{"past the bound", "Authorization: Bearer " + token + "\r\n", n + 50, 36 * time.Second, "HTTP/1.1 408 Request Timeout"},
	}
	for _, tt := range tests {
		start := time.Now()
		closed, status := stall(t, addr, tt.auth, tt.n, tt.within+10*time.Second)
		open, late, evicted := 0, 0, 0
		for i := range tt.n {
			switch {
			case closed[i] == 0:
				open++
			case closed[i] > tt.within:
				late++
			}
			switch {
			case status[i] == "":
				evicted++
			case status[i] != tt.status:
				t.Errorf("%s: connection %d answered %q; want %q", tt.name, i, status[i], tt.status)
			}
		}
		if open > 0 || late > 0 || evicted != tt.n-n {
			t.Errorf("%s: of %d stalled connections, %d still open and %d closed after %v, %d closed without an answer; want all closed within %v and %d without an answer",
				tt.name, tt.n, open, late, tt.within, evicted, tt.within, tt.n-n)
			continue
		}
		t.Logf("%s: %d stalled connections closed by the server within %v (%d without an answer)", tt.name, tt.n, time.Since(start).Round(100*time.Millisecond), evicted)
	}
	var now int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if now = fds(t); now <= base+2 || time.Now().After(deadline) {
			break
		}
	}
	if now > base+2 {
		t.Errorf("%d descriptors open after the stalled connections, %d before", now, base)
	}
}

// counting is an http.RoundTripper that counts the GET requests (event streams) it makes.
type counting struct {
	base http.RoundTripper
	gets atomic.Int64
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.gets.Add(1)
	}
	return c.base.RoundTrip(r)
}

// TestHTTPLongCall: the read deadlines do not cut what is legitimately long: a tool call that
// runs 35 s (past the 30 s body deadline) answers, and the client's event stream, open all the
// while, is never cut (the client opened it once).
func TestHTTPLongCall(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http", CellTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: token})
	rt := &counting{base: bearer{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "long", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	o := open(t, cs, map[string]any{"lang": "js"})
	start := time.Now()
	var r execOut
	res := call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 35000) {}; print('woke')"}, &r)
	if res.IsError || r.Output != "woke\n" {
		t.Errorf("a 35 s call: %s", text(res))
	}
	call(t, cs, "sandbox_exec", map[string]any{"session": o.Session, "code": "print('after')"}, &r)
	if r.Output != "after\n" || rt.gets.Load() != 1 {
		t.Errorf("after %v: output %q, %d event streams opened; want the session and its one stream alive", time.Since(start).Round(time.Second), r.Output, rt.gets.Load())
	}
}

// vanishing dials connections it can cut all at once, after which it dials no more: a client
// whose process died, or whose machine left the network, without closing its MCP session.
type vanishing struct {
	mu    sync.Mutex
	conns []net.Conn
	gone  bool
}

func (v *vanishing) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gone {
		return nil, fmt.Errorf("the client is gone")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err == nil {
		v.conns = append(v.conns, c)
	}
	return c, err
}

func (v *vanishing) vanish() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gone = true
	for _, c := range v.conns {
		c.Close()
	}
}

// TestHTTPVanishedClient: over streamable HTTP, a client that opened a sandbox, started a long
// cell and then vanished (its connections closed, no DELETE of its MCP session) frees its
// worker slot within seconds, not at the idle timeout (10 min) nor at the cell's end; the
// session's record says why it ended. A client
// that is alive but idle for longer than that keeps its session.
func TestHTTPVanishedClient(t *testing.T) {
	home := t.TempDir()
	srv, err := mcpserver.New(mcpserver.Options{Home: home, Roots: []string{demoDir}, Transport: "http", MaxSessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := serveHTTP(t, srv, mcpserver.HTTPOptions{})
	connectHTTP := func(tr http.RoundTripper) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: tr}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	v := &vanishing{}
	a := connectHTTP(&http.Transport{DialContext: v.dial})
	idle := connectHTTP(http.DefaultTransport)
	defer idle.Close()
	sa := open(t, a, map[string]any{"lang": "js"})
	si := open(t, idle, map[string]any{"lang": "js"})
	b := connectHTTP(http.DefaultTransport)
	defer b.Close()
	if res := call(t, b, "sandbox_open", map[string]any{"lang": "js"}, nil); !res.IsError {
		t.Fatalf("a third session opened on a server of 2")
	}
	// The vanished client leaves a cell running: a minute of work nobody will read.
	go func() {
		_, _ = a.CallTool(context.Background(), &mcp.CallToolParams{Name: "sandbox_exec",
			Arguments: map[string]any{"session": sa.Session, "code": "const t0 = Date.now(); while (Date.now() - t0 < 60000) {}"}})
	}()
	time.Sleep(500 * time.Millisecond)
	v.vanish()
	start := time.Now()
	var res *mcp.CallToolResult
	var o openOut
	for deadline := start.Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if res = call(t, b, "sandbox_open", map[string]any{"lang": "js"}, &o); !res.IsError || time.Now().After(deadline) {
			break
		}
	}
	if res.IsError {
		t.Fatalf("15 s after its client vanished, the session still holds its slot: %s", text(res))
	}
	t.Logf("the vanished client's slot was free after %v", time.Since(start).Round(100*time.Millisecond))
	if task := sessionTask(t, home, sa.Session); !strings.Contains(task.ErrorMessage, "disconnected") {
		t.Errorf("the vanished client's session record: %s %q; want closed as its client disconnected", task.Status, task.ErrorMessage)
	}
	var r execOut
	call(t, idle, "sandbox_exec", map[string]any{"session": si.Session, "code": "print('still here')"}, &r)
	if r.Output != "still here\n" {
		t.Errorf("the idle client's session after %v: %+v; want it alive", time.Since(start).Round(time.Second), r)
	}
}

// TestHTTPSizes: a request's headers and body are read up to their caps, no further.
func TestHTTPSizes(t *testing.T) {
	srv, err := mcpserver.New(mcpserver.Options{Home: t.TempDir(), Roots: []string{demoDir}, Transport: "http"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	url := serveHTTP(t, srv, mcpserver.HTTPOptions{Token: token})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name   string
		header string
		body   string
		status int
	}{
		{"a request", "", init, http.StatusOK},
		{"a body of 1 MiB and a byte", "", init + strings.Repeat(" ", 1<<20+1-len(init)), http.StatusRequestEntityTooLarge},
		{"headers of 64 KiB", strings.Repeat("x", 64<<10), init, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("POST", url, strings.NewReader(tt.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if tt.header != "" {
			req.Header.Set("X-Padding", tt.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d; want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}

// TestHTTPSlowReader: a client that stops reading what the server sends it (here 64 MiB, more
// than the kernel's buffers hold) is cut off: the server's write fails within the 30 s write
// deadline instead of blocking the writer, and with it the session's later writes, for good.
func TestHTTPSlowReader(t *testing.T) {
	wrote := make(chan error, 1)
	chunk := []byte(strings.Repeat("x", 64<<10))
	h := mcpserver.Bounded("", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 1024 {
			if _, err := w.Write(chunk); err != nil {
				wrote <- err
				return
			}
			http.NewResponseController(w).Flush()
		}
		wrote <- nil
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", ln.Addr())
	start := time.Now()
	select { // the client reads nothing
	case err := <-wrote:
		if err == nil {
			t.Fatal("64 MiB went to a client that reads nothing")
		}
		if took := time.Since(start); took > 40*time.Second {
			t.Errorf("the write failed after %v; want within the 30 s write deadline", took)
		}
		t.Logf("the server's write failed after %v: %v", time.Since(start).Round(100*time.Millisecond), err)
	case <-time.After(60 * time.Second):
		t.Error("the server's write to a client that reads nothing still blocks after 60 s")
	}
}
