package mcpserver

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// keepAlive probes an idle client connection, so that a client whose machine vanished without
// closing it (no FIN, no RST) is noticed: after about Idle + Count*Interval (30 s) of silence
// the kernel gives up on it, and the requests on it end.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 5 * time.Second, Count: 3}

// listen listens on addr, with keepAlive on every accepted connection and at most max of them
// open at once: past that, a connection is answered 503 and closed at once, so that a flood of
// connections (stalled or not) costs the server no more than max descriptors.
func listen(ctx context.Context, addr string, max int) (net.Listener, error) {
	lc := net.ListenConfig{KeepAliveConfig: keepAlive}
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: listening on %s: %w", addr, err)
	}
	return &limited{Listener: ln, slots: make(chan struct{}, max)}, nil
}

// limited is a listener with a bound on its open connections.
type limited struct {
	net.Listener
	slots chan struct{}
}

// busy is the answer to a connection past the bound.
const busy = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: 5\r\nContent-Length: %d\r\n\r\n%s"

func (l *limited) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &counted{Conn: c, release: func() { <-l.slots }}, nil
		default:
		}
		go refuseConn(c, cap(l.slots))
	}
}

// refuseConn answers a connection past the bound and closes it, without reading from it.
func refuseConn(c net.Conn, max int) {
	msg := fmt.Sprintf("this server has %d client connections open, the most it allows; try again shortly\n", max)
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c, busy, len(msg), msg)
	_ = c.Close()
}

// counted gives its slot back when it is closed, once.
type counted struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *counted) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
