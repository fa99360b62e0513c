package mcpserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/fault"
)

// linger is how long an HTTP session that has had an event stream may go without any request
// open before it is taken for gone and closed, which closes its sandbox sessions and frees their
// workers. A client reconnects a dropped event stream at once (go-sdk) or within about a
// second (the TypeScript SDK); a client that vanished does not.
const linger = 5 * time.Second

// liveness notices HTTP sessions whose client is gone. Streamable HTTP has no connection per
// session: a client holds a session by its requests, the standalone event stream (GET) above
// all, which it keeps open for as long as it runs. A session that had one, and has had no
// request open for linger, is closed. A client that never opens an event stream cannot be told
// from an idle one: its sessions end by the idle timeout.
type liveness struct {
	srv  *mcp.Server
	gone func(*mcp.ServerSession) // what to do first with a session taken for gone

	mu       sync.Mutex
	sessions map[string]*presence // by Mcp-Session-Id
}

type presence struct {
	open   int         // requests in flight
	stream bool        // it has had an event stream
	timer  *time.Timer // running while nothing is open
	ended  int         // requests ended: a timer is for the last one only
}

const sessionHeader = "Mcp-Session-Id"

func newLiveness(srv *mcp.Server, gone func(*mcp.ServerSession)) *liveness {
	return &liveness{srv: srv, gone: gone, sessions: map[string]*presence{}}
}

// track counts the requests of each session around next.
func (l *liveness) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionHeader)
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		l.begin(id, r.Method == http.MethodGet)
		defer l.end(id)
		next.ServeHTTP(w, r)
	})
}

func (l *liveness) begin(id string, stream bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.sessions[id]
	if p == nil {
		p = &presence{}
		l.sessions[id] = p
	}
	p.open++
	p.stream = p.stream || stream
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

func (l *liveness) end(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.sessions[id]
	p.open--
	p.ended++
	switch {
	case p.open > 0:
	case !p.stream:
		delete(l.sessions, id) // nothing to watch: the idle timeout ends it
	default:
		ended := p.ended
		p.timer = time.AfterFunc(linger, func() { l.expire(id, p, ended) })
	}
}

// expire closes the session id if nothing of it was opened again since its last request
// ended: gone first (ServerSession.Close waits for the calls in flight), then the session.
func (l *liveness) expire(id string, p *presence, ended int) {
	l.mu.Lock()
	gone := l.sessions[id] == p && p.open == 0 && p.ended == ended
	if gone {
		delete(l.sessions, id)
	}
	l.mu.Unlock()
	if !gone {
		return
	}
	for ss := range l.srv.Sessions() {
		if ss.ID() == id {
			l.gone(ss)
			_ = ss.Close()
		}
	}
}

// call is a tool call in flight.
type call struct{ cancel context.CancelCauseFunc }

// begin registers a tool call of owner, which clientGone can stop; done unregisters it.
func (s *Server) begin(ctx context.Context, owner *mcp.ServerSession) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	c := &call{cancel: cancel}
	s.mu.Lock()
	if s.inflight[owner] == nil {
		s.inflight[owner] = map[*call]bool{}
	}
	s.inflight[owner][c] = true
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.inflight[owner], c)
		if len(s.inflight[owner]) == 0 {
			delete(s.inflight, owner)
		}
		s.mu.Unlock()
		cancel(nil)
	}
}

// errGone is why the calls of a client taken for gone are stopped.
var errGone = fault.New(fault.Limit, "the MCP client is gone: its connections closed and it did not come back within %s", linger)

// clientGone stops owner's calls in flight (an rlm_ask run would go on for its whole time
// limit) and closes its sandbox sessions, so that their workers are free at once.
func (s *Server) clientGone(owner *mcp.ServerSession) {
	s.mu.Lock()
	var calls []*call
	for c := range s.inflight[owner] {
		calls = append(calls, c)
	}
	s.mu.Unlock()
	for _, c := range calls {
		c.cancel(errGone)
	}
	s.closeOwned(owner)
}
