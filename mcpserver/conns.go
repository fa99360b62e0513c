package mcpserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// keepAlive probes an idle client connection, so that a client whose machine vanished without
// closing it (no FIN, no RST) is noticed: after about Idle + Count*Interval (30 s) of silence
// the kernel gives up on it, and the requests on it end.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// The client connections of ServeHTTP, at most max of them open at once, so that a flood of
// connections (stalled or not) costs the server no more than max descriptors. A connection
// proves itself with a request that arrives whole within its deadlines and, when the server has
// a token, carries it; until then anyone could have opened it. At the bound, a new connection
// takes the place of the one that has waited longest for its client (since it was opened, or
// since its last response), among those that may be closed:
//   - with a token, those that have not proved themselves: connections that send nothing, or
//     stall their headers or their first body, cannot keep a client that has the token out,
//     nor close its connections; a new connection is closed in its turn only after max-1
//     newer ones have come, by which time a client that sends its request at once has proved
//     itself;
//   - without a token (loopback only), where any local process can send whole requests, every
//     connection idle between requests as well: closing one costs its client a reconnection,
//     and a new connection, the last to be closed, has the time of max-1 newer ones to send
//     its request;
//
// never one whose request is being handled or answered, so long tool calls and event streams
// are not cut. When there is none to close, the new connection is answered 503 and closed.
type pool struct {
	net.Listener
	max       int
	evictIdle bool // no token: a proved idle connection may be closed for a new one

	mu    sync.Mutex
	conns map[*conn]bool
}

// conn is an accepted connection; its state is kept under its pool's lock.
type conn struct {
	net.Conn
	p      *pool
	since  time.Time // when it was opened, or its last response was done
	proved bool      // a request arrived whole (with the token, when there is one)
	busy   bool      // a request is being handled or answered
	once   sync.Once
}

// listen listens on addr, with keepAlive on every accepted connection and at most max of them
// open at once (see pool); a proved idle connection may be closed for a new one when
// evictIdle is set (a server without a token).
func listen(ctx context.Context, addr string, max int, evictIdle bool) (*pool, error) {
	lc := net.ListenConfig{KeepAliveConfig: keepAlive}
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listening on %s: %w", addr, err)
	}
	return &pool{Listener: ln, max: max, evictIdle: evictIdle, conns: map[*conn]bool{}}, nil
}

// busyAnswer is the answer to a connection past the bound when none can be closed for it.
const busyAnswer = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\nContent-Length: %d\r\n\r\n%s"

func (p *pool) Accept() (net.Conn, error) {
	for {
		c, err := p.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := p.admit(c); tc != nil {
			return tc, nil
		}
		go refuseConn(c, p.max)
	}
}

// admit tracks c, closing another connection for it at the bound; nil: none could be closed.
func (p *pool) admit(c net.Conn) *conn {
	tc := &conn{Conn: c, p: p, since: time.Now()}
	p.mu.Lock()
	var victim *conn
	if len(p.conns) >= p.max {
		if victim = p.victim(); victim == nil {
			p.mu.Unlock()
			return nil
		}
		delete(p.conns, victim)
	}
	p.conns[tc] = true
	p.mu.Unlock()
	if victim != nil {
		_ = victim.Conn.Close() // its server goroutine's read fails, and it ends
	}
	return tc
}

// victim is the connection to close for a new one (see pool), or nil. It is called with p.mu
// held.
func (p *pool) victim() *conn {
	var best *conn
	for c := range p.conns {
		if c.busy || (c.proved && !p.evictIdle) {
			continue
		}
		if best == nil || c.since.Before(best.since) {
			best = c
		}
	}
	return best
}

// state follows http.Server's view of the connection: once its request is answered, it is idle.
func (p *pool) state(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok || st != http.StateIdle {
		return
	}
	p.mu.Lock()
	c.busy, c.since = false, time.Now()
	p.mu.Unlock()
}

// connKey is the context key of a request's connection (http.Server.ConnContext).
type connKey struct{}

func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// proved marks the connection of r as proved and busy until its response is done: its request
// arrived whole, with the token if there is one.
func proved(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(*conn)
	if !ok {
		return
	}
	c.p.mu.Lock()
	c.proved, c.busy = true, true
	c.p.mu.Unlock()
}

// refuseConn answers a connection past the bound and closes it, without reading from it.
func refuseConn(c net.Conn, max int) {
	msg := fmt.Sprintf("this server has %d client connections open, the most it allows, all in use by clients that sent whole requests; try again shortly\n", max)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c, busyAnswer, len(msg), msg)
	_ = c.Close()
}

// Close closes the connection and gives its place back, once.
func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
	return err
}
