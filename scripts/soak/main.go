// Command soak puts `rlm mcp --http` under load and reports what held: the figures of the
// acceptance of issue 17 (SECURITY.md, "Under load").
//
//	go run ./scripts/soak mcp   --url http://127.0.0.1:8765/ --pid PID --clients 16 --duration 8m
//	go run ./scripts/soak stall --addr 127.0.0.1:8765 --pid PID --conns 1000 --watch 60s
//
// mcp: each client opens a sandbox session, runs trivial cells (timed), one failing cell and one
// cell past a 1 s deadline per cycle, and closes it; every --crash-every cycles a client vanishes
// instead of closing (its HTTP connections are dropped, no DELETE), then comes back as a new
// client. It prints requests and errors by kind, the p50/p99 of a trivial exec, how long a
// vanished client's slot took to come back, and the server's memory and descriptors over time.
//
// stall: opens --conns connections that send a request's headers with a Content-Length and then
// nothing, and prints, every few seconds, how many the server has closed and how many
// descriptors it holds.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: soak mcp|stall [flags] (see the package doc)")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "mcp":
		err = soakMCP(os.Args[2:])
	case "stall":
		err = stall(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want mcp or stall", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// sample is the server's memory and descriptors at one time.
type sample struct {
	at       time.Duration
	rssKB    int
	fds      int
	children int
}

// watch samples pid every interval until ctx ends.
func watch(ctx context.Context, pid int, every time.Duration) func() []sample {
	var mu sync.Mutex
	var out []sample
	start := time.Now()
	take := func() {
		s := sample{at: time.Since(start).Round(time.Second), rssKB: rss(pid), fds: fds(pid), children: children(pid)}
		mu.Lock()
		out = append(out, s)
		mu.Unlock()
	}
	take()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				take()
				return
			case <-t.C:
				take()
			}
		}
	}()
	return func() []sample {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(out)
	}
}

func rss(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmRSS:")), "%d", &kb)
			return kb
		}
	}
	return -1
}

func fds(pid int) int {
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(es)
}

// children counts the processes whose parent is pid (the server's workers).
func children(pid int) int {
	ms, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		fmt.Sscanf(s[i+1:], " %s %d", &state, &ppid)
		if ppid == pid {
			n++
		}
	}
	return n
}

func printSamples(ss []sample) {
	fmt.Printf("%8s %10s %6s %8s\n", "time", "RSS MiB", "fds", "workers")
	for _, s := range ss {
		fmt.Printf("%8s %10.1f %6d %8d\n", s.at, float64(s.rssKB)/1024, s.fds, s.children)
	}
}

// stats counts what the clients saw.
type stats struct {
	mu       sync.Mutex
	requests map[string]int
	errors   map[string]int // "tool: kind"
	exec     []time.Duration
	regain   []time.Duration // a vanished client's new open: time until it succeeded
	crashes  int
}

func (s *stats) count(tool string) {
	s.mu.Lock()
	s.requests[tool]++
	s.mu.Unlock()
}

func (s *stats) fail(tool, kind string) {
	s.mu.Lock()
	s.errors[tool+": "+kind]++
	s.mu.Unlock()
}

func soakMCP(args []string) error {
	fs := flag.NewFlagSet("mcp", flag.ExitOnError)
	url := fs.String("url", "http://127.0.0.1:8765/", "the server's streamable HTTP endpoint")
	pid := fs.Int("pid", 0, "the server's process id (memory and descriptors are read from /proc)")
	clients := fs.Int("clients", 16, "clients at once")
	duration := fs.Duration("duration", 8*time.Minute, "how long")
	cells := fs.Int("cells", 20, "trivial cells per session")
	crashEvery := fs.Int("crash-every", 5, "a client vanishes instead of closing every N cycles (0: never)")
	token := fs.String("token", "", "bearer token")
	every := fs.Duration("sample", 30*time.Second, "sampling interval of the server's memory")
	fs.Parse(args)
	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var samples func() []sample
	if *pid > 0 {
		samples = watch(ctx, *pid, *every)
	}
	st := &stats{requests: map[string]int{}, errors: map[string]int{}}
	var wg sync.WaitGroup
	for i := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &client{id: i, url: *url, token: *token, st: st, cells: *cells, crashEvery: *crashEvery}
			c.loop(ctx)
		}()
	}
	wg.Wait()
	report(st, *clients, *duration)
	if samples != nil {
		printSamples(samples())
	}
	return nil
}

func report(st *stats, clients int, d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	total := 0
	for _, n := range st.requests {
		total += n
	}
	fmt.Printf("%d clients for %s: %d requests (%s)\n", clients, d, total, mapLine(st.requests))
	fmt.Printf("errors by tool and kind: %s\n", mapLine(st.errors))
	fmt.Printf("vanished clients: %d; their next open succeeded after: %s\n", st.crashes, durLine(st.regain))
	if len(st.exec) > 0 {
		e := slices.Clone(st.exec)
		slices.Sort(e)
		fmt.Printf("trivial exec (%d): p50 %s, p99 %s, max %s\n", len(e), e[len(e)/2].Round(time.Microsecond),
			e[len(e)*99/100].Round(time.Microsecond), e[len(e)-1].Round(time.Microsecond))
	}
}

func mapLine(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func durLine(ds []time.Duration) string {
	if len(ds) == 0 {
		return "-"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("median %s, max %s", s[len(s)/2].Round(10*time.Millisecond), s[len(s)-1].Round(10*time.Millisecond))
}

// client is one MCP client's loop.
type client struct {
	id, cells, crashEvery int
	url, token            string
	st                    *stats
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

// conns is one client's connections, so that it can vanish as a killed process does: every
// connection closed at once, none opened again, no DELETE sent.
type conns struct {
	mu     sync.Mutex
	open   []net.Conn
	killed bool
}

func (k *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed {
		return nil, errors.New("soak: this client has vanished")
	}
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		k.open = append(k.open, c)
	}
	return c, err
}

func (k *conns) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.killed = true
	for _, c := range k.open {
		c.Close()
	}
}

func (c *client) connect(ctx context.Context) (*mcp.ClientSession, *conns, error) {
	k := &conns{}
	tr := &http.Transport{MaxIdleConnsPerHost: 4, DialContext: k.dial}
	t := &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: &http.Client{Transport: bearer{c.token, tr}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("soak-%d", c.id), Version: "1"}, nil).Connect(ctx, t, nil)
	if err != nil {
		k.kill()
		return nil, nil, err
	}
	return cs, k, nil
}

func (c *client) loop(ctx context.Context) {
	var vanishedAt time.Time
	for cycle := 1; ctx.Err() == nil; cycle++ {
		cs, k, err := c.connect(ctx)
		if err != nil {
			c.st.fail("connect", short(err.Error()))
			sleep(ctx, time.Second)
			continue
		}
		crash := c.crashEvery > 0 && cycle%c.crashEvery == 0
		regained := c.session(ctx, cs, cycle, crash)
		if regained && !vanishedAt.IsZero() {
			c.st.mu.Lock()
			c.st.regain = append(c.st.regain, time.Since(vanishedAt))
			c.st.mu.Unlock()
			vanishedAt = time.Time{}
		}
		if crash && ctx.Err() == nil {
			// Vanish: every connection dropped at once, none reopened, no DELETE.
			k.kill()
			c.st.mu.Lock()
			c.st.crashes++
			c.st.mu.Unlock()
			vanishedAt = time.Now()
			continue
		}
		cs.Close()
		k.kill()
	}
}

// session runs one cycle; it reports whether the session opened.
func (c *client) session(ctx context.Context, cs *mcp.ClientSession, cycle int, vanish bool) bool {
	lang := []string{"js", "go"}[(c.id+cycle)%2]
	var id string
	for ctx.Err() == nil {
		out, err := c.call(ctx, cs, "sandbox_open", map[string]any{"lang": lang, "cell_timeout_seconds": 1})
		if err == nil {
			id, _ = out["session"].(string)
			break
		}
		sleep(ctx, 200*time.Millisecond)
	}
	if id == "" {
		return false
	}
	// busy runs past the 1 s cell deadline (a loop the validator accepts: it has an exit).
	decl, incr, bad, busy := "let x = 0", "x += 1", "undefinedName + 1", "const t0 = Date.now(); while (Date.now() - t0 < 60000) {}"
	if lang == "go" {
		decl, incr, bad, busy = "x := 0", "x++", "y := undefinedName + 1", "t0 := time.Now()\nfor time.Since(t0) < time.Minute {\n}"
	}
	c.exec(ctx, cs, id, decl, false)
	for range c.cells {
		c.exec(ctx, cs, id, incr, true)
	}
	c.exec(ctx, cs, id, bad, false)
	if cycle%3 == 0 {
		c.exec(ctx, cs, id, busy, false)
	}
	if !vanish {
		c.call(ctx, cs, "sandbox_close", map[string]any{"session": id})
	}
	return true
}

func (c *client) exec(ctx context.Context, cs *mcp.ClientSession, id, code string, timed bool) {
	start := time.Now()
	out, err := c.call(ctx, cs, "sandbox_exec", map[string]any{"session": id, "code": code})
	if err != nil {
		return
	}
	if e, ok := out["error"].(map[string]any); ok {
		c.st.fail("cell", fmt.Sprint(e["kind"]))
		return
	}
	if timed {
		c.st.mu.Lock()
		c.st.exec = append(c.st.exec, time.Since(start))
		c.st.mu.Unlock()
	}
}

// call calls a tool; a failed call is counted by its kind ("limit", "transport", ...).
func (c *client) call(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, error) {
	c.st.count(tool)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() == nil {
			c.st.fail(tool, "transport: "+short(err.Error()))
		}
		return nil, err
	}
	out, _ := res.StructuredContent.(map[string]any)
	if _, ok := out["error"].(map[string]any); ok && res.IsError {
		return out, nil // a cell that failed: exec counts it by its kind
	}
	if res.IsError {
		msg := ""
		if len(res.Content) > 0 {
			if t, ok := res.Content[0].(*mcp.TextContent); ok {
				msg = t.Text
			}
		}
		c.st.fail(tool, short(msg))
		return nil, errors.New(msg)
	}
	return out, nil
}

// short keeps the start of a message, so that errors of one kind count together.
func short(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if i := strings.IndexAny(s, ":;("); i > 0 && i < 60 {
		return s[:i]
	}
	if len(s) > 60 {
		return s[:60]
	}
	return s
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func stall(args []string) error {
	fs := flag.NewFlagSet("stall", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8765", "the server's address")
	pid := fs.Int("pid", 0, "the server's process id")
	conns := fs.Int("conns", 1000, "stalled connections")
	watchFor := fs.Duration("watch", 60*time.Second, "how long to watch")
	every := fs.Duration("sample", 5*time.Second, "sampling interval")
	fs.Parse(args)
	var closed atomic.Int64
	var opened []net.Conn
	defer func() {
		for _, c := range opened {
			c.Close()
		}
	}()
	before := fds(*pid)
	for range *conns {
		c, err := net.DialTimeout("tcp", *addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("after %d connections: %w", len(opened), err)
		}
		req := "POST / HTTP/1.1\r\nHost: " + *addr + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{"
		if _, err := c.Write([]byte(req)); err != nil {
			return err
		}
		opened = append(opened, c)
		go func() {
			buf := make([]byte, 4096)
			for {
				if _, err := c.Read(buf); err != nil {
					closed.Add(1)
					return
				}
			}
		}()
	}
	fmt.Printf("%d connections stalled after their headers; server descriptors before: %d\n", len(opened), before)
	fmt.Printf("%8s %10s %6s %10s\n", "time", "closed", "fds", "RSS MiB")
	start := time.Now()
	for {
		el := time.Since(start)
		fmt.Printf("%8s %10d %6d %10.1f\n", el.Round(time.Second), closed.Load(), fds(*pid), float64(rss(*pid))/1024)
		if el >= *watchFor {
			return nil
		}
		time.Sleep(*every)
	}
}
