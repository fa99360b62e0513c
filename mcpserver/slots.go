package mcpserver

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm/fault"
)

// slot is one of the MaxSessions worker slots, held by an open session or a run in flight.
// release gives it back once, however often and from wherever it is called.
type slot struct {
	s    *Server
	once sync.Once
}

func (sl *slot) release() {
	sl.once.Do(func() {
		sl.s.mu.Lock()
		sl.s.slots--
		sl.s.mu.Unlock()
	})
}

// reserve takes a worker slot for a call from owner, or says what holds them and what to do:
// owner's own sessions by id, and only how many the other clients hold.
func (s *Server) reserve(owner *mcp.ServerSession) (*slot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, fault.New(fault.Limit, "the server is shutting down")
	case s.abandoned >= maxAbandoned:
		return nil, fault.New(fault.Limit, "%d cancelled sandbox_open or rlm_ask calls are still blocked opening their files (a FIFO, or a file system that does not answer?); this server starts nothing more until they end: ask the user to check the files under its roots", s.abandoned)
	case s.slots >= s.opts.MaxSessions:
		return nil, fault.New(fault.Limit, "this server already holds %d sandbox sessions and runs, the most it allows; %s", s.slots, s.heldBy(owner))
	}
	s.slots++
	return &slot{s: s}, nil
}

// heldBy says what holds the slots, for a refusal to owner, and what to do: owner's own sessions
// by id, language and idle time, and only the number of the others' sessions and runs; s.mu is
// held.
func (s *Server) heldBy(owner *mcp.ServerSession) string {
	var mine []string
	for id, e := range s.sessions {
		if e.owner == owner {
			mine = append(mine, fmt.Sprintf("%s (%s, idle %s)", id, e.lang, time.Since(e.lastUsed).Round(time.Second)))
		}
	}
	sort.Strings(mine)
	others := s.slots - len(mine)
	if len(mine) == 0 {
		return fmt.Sprintf("none of them yours: other clients' sessions and rlm_ask runs hold all %d; try again later (a session idle for %s is closed)", others, s.opts.IdleTimeout)
	}
	held := "yours: " + strings.Join(mine, ", ")
	if others > 0 {
		held += fmt.Sprintf(", and %d held by other clients' sessions and rlm_ask runs", others)
	}
	return held + "; close a session you no longer need with sandbox_close, or reuse one with sandbox_exec"
}

// maxAbandoned bounds the calls whose client cancelled them while their files were opening and
// that are still blocked there: each holds a thread of the server.
const maxAbandoned = 16

// abandonGrace is how long a cancelled call may take to stop before it is abandoned and its
// slot given back.
const abandonGrace = 2 * time.Second

// await runs f, which ends with ctx when it can, and returns what it returns. When ctx ends first
// it gives f abandonGrace to stop, then returns ctx's cause and leaves f running: f may be
// blocked where a cancellation does not reach (open(2) of a FIFO). What f returns after that is
// handed to drop, to be closed or recorded. An abandoned f is counted until it ends, and reserve refuses past maxAbandoned.
func await[T any](s *Server, ctx context.Context, f func() (T, error), drop func(T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
	}
	select {
	case r := <-done:
		return r.v, r.err
	case <-time.After(abandonGrace):
	}
	s.mu.Lock()
	s.abandoned++
	s.mu.Unlock()
	go func() {
		r := <-done
		drop(r.v, r.err)
		s.mu.Lock()
		s.abandoned--
		s.mu.Unlock()
	}()
	var zero T
	return zero, fault.Wrap(fault.Limit, context.Cause(ctx), "the call was cancelled before it had opened its files; its worker slot is free again")
}
