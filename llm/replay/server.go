package replay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// maxRequest is the largest request body read.
const maxRequest = 32 << 20

// Server serves scripted replies on a loopback port as an OpenAI-compatible chat completions
// server. It is safe for concurrent use.
type Server struct {
	file string // where the replies came from, for messages
	url  string
	srv  *http.Server

	mu    sync.Mutex
	queue Queue[Reply]
	n     int // requests received
}

// Open loads the reply file at path (Load) and serves its replies (Serve).
func Open(path string) (*Server, error) {
	replies, err := Load(path)
	if err != nil {
		return nil, err
	}
	return Serve(path, replies)
}

// Serve serves replies on a loopback port until Close. file names where they came from in the
// answer to a request that no reply matches ("" for none).
func Serve(file string, replies []Reply) (*Server, error) {
	s := &Server{file: file}
	for i, r := range replies {
		if err := s.queue.Push(r.Rule, r); err != nil {
			return nil, &Error{File: file, Reply: i + 1, Msg: err.Error()}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("replay: cannot listen on a loopback port (%w); check that the loopback interface is up", err)
	}
	s.url = "http://" + ln.Addr().String() + "/v1"
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the base URL to point a client at; it ends in /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server, cutting open streams.
func (s *Server) Close() error { return s.srv.Close() }

// Pending is the number of replies not used up.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue.Len()
}

// take numbers the request and chooses its reply; ok is false when none matches.
func (s *Server) take(req Request) (n int, rep Reply, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	rep, ok = s.queue.Take(req.Model, LastUser(req.Messages), nil)
	return s.n, rep, ok
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		WriteError(w, http.StatusNotFound, "invalid_request_error", "not_found",
			fmt.Sprintf("the replay model serves POST /v1/chat/completions only, not %s %s; point the client's base URL at %s", r.Method, r.URL.Path, s.url))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err == nil && len(body) > maxRequest {
		err = errors.New("request body is larger than 32 MiB, the most the replay model reads; send a shorter prompt")
	}
	var req Request
	if err == nil {
		req, err = ParseRequest(body)
	}
	if err == nil && !req.Stream {
		err = errors.New(`the replay model streams its answers only; send "stream": true`)
	}
	if err != nil {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", err.Error())
		return
	}
	n, rep, ok := s.take(req)
	if !ok {
		WriteError(w, http.StatusBadRequest, "invalid_request_error", "replay_unmatched", s.unmatched(n, req))
		return
	}
	s.answer(w, r, n, req, rep)
}

// unmatched is the message for request n, which no reply matches.
func (s *Server) unmatched(n int, req Request) string {
	file := s.file
	if file == "" {
		file = "the replies"
	}
	last := LastUser(req.Messages)
	if utf8.RuneCountInString(last) > 120 {
		last = string([]rune(last)[:120]) + "…"
	}
	return fmt.Sprintf(`replay: no reply of %s matches request #%d (model %q, last user message %q): each reply was used up or its "when" or "model" does not match; add a reply for it to %s (with "times": -1 to answer every such request)`,
		file, n, req.Model, last, file)
}

// answer streams rep: after its latency, the thinking tokens, then the answer's, each after its
// chunk delay, the finish chunk and the usage when asked.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, n int, req Request, rep Reply) {
	ctx := r.Context()
	if !Sleep(ctx, rep.Latency) {
		return
	}
	text := rep.Text
	if text == "" {
		text = "OK."
	}
	k := req.TopLogprobs
	toks := Tokens(NewRand(LastUser(req.Messages)+"\x00"+rep.Text), text, max(k, 1))
	thinking := Split(rep.Thinking)
	st := NewStream(w, fmt.Sprintf("chatcmpl-replay-%d", n), req.Model)
	if st.Open() != nil {
		return
	}
	for _, t := range thinking {
		if !Sleep(ctx, rep.ChunkDelay) || st.Think(t) != nil {
			return
		}
	}
	for _, t := range toks {
		if !Sleep(ctx, rep.ChunkDelay) || st.Say(t, k, req.Logprobs) != nil {
			return
		}
	}
	var usage map[string]any
	if req.IncludeUsage {
		usage = Usage(PromptTokens(req.Messages), len(thinking)+len(toks))
	}
	if st.Finish("stop", usage) == nil {
		st.Done()
	}
}
