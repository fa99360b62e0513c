package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
)

// entry is one open sandbox session.
type entry struct {
	id    string
	lang  string
	s     *rlm.Session
	owner *mcp.ServerSession // the client connection that opened it; only it may use it
	task  string             // its audit task ("" if recording it failed)
	slot  *slot              // its worker slot, released when it ends
	timer *time.Timer        // the idle timeout, stopped while a cell runs

	// guarded by Server.mu
	busy     int
	lastUsed time.Time

	mu    sync.Mutex // orders cells and guards what follows
	cells int
	final string
}

// newID is a new session id: 128 random bits, so that one client cannot guess another's (each
// is bound to its connection anyway, and "belongs to another client" must tell a guesser
// nothing), and not one that is open.
func (s *Server) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		var b [16]byte
		_, _ = rand.Read(b[:])
		if id := "s-" + hex.EncodeToString(b[:]); s.sessions[id] == nil {
			return id
		}
	}
}

// add registers an opened session and starts its idle timer.
func (s *Server) add(e *entry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fault.New(fault.Limit, "the server is shutting down")
	}
	e.lastUsed = time.Now()
	s.sessions[e.id] = e
	e.timer = time.AfterFunc(s.opts.IdleTimeout, func() { s.reap(e) })
	if e.owner != nil && !s.watched[e.owner] {
		s.watched[e.owner] = true
		go s.watch(e.owner)
	}
	return nil
}

// watch closes the sessions of a client connection once it ends (stdio's end of input, an
// HTTP session deleted, timed out or taken for gone), so that they free their workers at once.
func (s *Server) watch(owner *mcp.ServerSession) {
	_ = owner.Wait()
	s.mu.Lock()
	delete(s.watched, owner)
	s.mu.Unlock()
	s.closeOwned(owner)
}

// closeOwned closes the sessions owner opened, recorded as closed when their client
// disconnected.
func (s *Server) closeOwned(owner *mcp.ServerSession) {
	s.mu.Lock()
	var gone []*entry
	for id, e := range s.sessions {
		if e.owner == owner {
			delete(s.sessions, id)
			e.timer.Stop()
			gone = append(gone, e)
		}
	}
	s.mu.Unlock()
	for _, e := range gone {
		s.finishSession(e, rlm.Failure{Kind: fault.Limit, Message: "closed when its client disconnected"})
	}
}

// acquire finds the session id for a call from owner and marks it busy (its idle timer
// stopped) until done is called.
func (s *Server) acquire(id string, owner *mcp.ServerSession) (e *entry, done func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[id]
	switch {
	case !ok:
		return nil, nil, fault.New(fault.Schema, "no open session %q: it was closed (by sandbox_close, or after %s idle) or never opened; open one with sandbox_open (state is not kept across sessions)",
			id, s.opts.IdleTimeout)
	case e.owner != owner:
		return nil, nil, fault.New(fault.Denied, "session %q belongs to another client connection; open your own with sandbox_open", id)
	}
	e.busy++
	e.timer.Stop()
	return e, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		e.busy--
		e.lastUsed = time.Now()
		if e.busy == 0 && s.sessions[e.id] == e {
			e.timer.Reset(s.opts.IdleTimeout)
		}
	}, nil
}

// remove takes the session out of the server; false if it was not there.
func (s *Server) remove(e *entry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[e.id] != e {
		return false
	}
	delete(s.sessions, e.id)
	e.timer.Stop()
	return true
}

// reap closes a session that stayed idle for the idle timeout.
func (s *Server) reap(e *entry) {
	s.mu.Lock()
	idle := s.sessions[e.id] == e && e.busy == 0 && time.Since(e.lastUsed) >= s.opts.IdleTimeout
	if idle {
		delete(s.sessions, e.id)
	}
	s.mu.Unlock()
	if idle {
		s.finishSession(e, rlm.Failure{Kind: fault.Limit, Message: fmt.Sprintf("closed after %s idle", s.opts.IdleTimeout)})
	}
}

// finishSession closes a session taken out of the server, records how it ended (why nil: the
// client closed it) and frees its slot.
func (s *Server) finishSession(e *entry, why rlm.Failure) { s.endSession(e, &why) }

func (s *Server) endSession(e *entry, why *rlm.Failure) error {
	err := e.s.Close()
	e.mu.Lock()
	final := e.final
	e.mu.Unlock()
	s.rec.endSession(e.task, final, why)
	e.slot.release()
	return err
}

// exec runs one cell in the session and records it.
func (s *Server) exec(ctx context.Context, e *entry, code string) (rlm.ExecResult, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cells++
	n := e.cells
	res := e.s.Exec(ctx, code)
	if res.Final != nil {
		e.final = *res.Final
	}
	s.rec.cell(e.task, n, code, res)
	return res, n
}
