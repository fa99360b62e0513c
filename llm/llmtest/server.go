package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// Message is one chat message of a recorded request.
type Message = replay.Message

// RecordedRequest is one request the server received.
type RecordedRequest struct {
	N           int // 1-based arrival order
	Path        string
	Model       string
	Messages    []Message
	Logprobs    bool // logprobs: true was asked
	TopLogprobs int
	MaxTokens   int // max_tokens or max_completion_tokens, 0 if absent
	// MaxTokensField is "max_tokens", "max_completion_tokens" or "".
	MaxTokensField string
	Stream         bool
	IncludeUsage   bool
	// Authorization is the bearer token sent, or the x-api-key header on
	// the Anthropic server (fake keys only, in tests); Bearer is set when
	// an Authorization header came, on either server.
	Authorization string
	Bearer        bool
	// System is Anthropic's top-level system prompt; APIVersion its
	// anthropic-version header.
	System, APIVersion string
	// Fields holds the body's top-level fields as sent.
	Fields map[string]json.RawMessage
	Body   []byte
}

// Has reports whether the body had the top-level field.
func (r RecordedRequest) Has(field string) bool {
	_, ok := r.Fields[field]
	return ok
}

// LastUser returns the content of the last user message ("" if none).
func (r RecordedRequest) LastUser() string { return replay.LastUser(r.Messages) }

// Server is a fake OpenAI-compatible chat completions server over real HTTP
// and SSE. It is safe for concurrent use.
type Server struct {
	ts  *httptest.Server
	api string // "openai" or "anthropic"

	mu       sync.Mutex
	queue    replay.Queue[Reply]
	handler  func(RecordedRequest) Reply
	requests []RecordedRequest
}

// New starts an OpenAI-compatible server whose queue holds replies (see
// Push).
func New(replies ...Reply) *Server { return start("openai", replies) }

// NewAnthropic starts an Anthropic Messages API server whose queue holds
// replies (see Push).
func NewAnthropic(replies ...Reply) *Server { return start("anthropic", replies) }

func start(api string, replies []Reply) *Server {
	s := &Server{api: api}
	if err := s.Push(replies...); err != nil {
		panic("llmtest: " + err.Error())
	}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL to configure a client with: it ends in /v1 on the
// OpenAI-compatible server, and is the API root (as ANTHROPIC_BASE_URL) on
// the Anthropic one.
func (s *Server) URL() string {
	if s.api == "anthropic" {
		return s.ts.URL
	}
	return s.ts.URL + "/v1"
}

// Close shuts the server down, cutting open streams.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// Push appends replies to the queue. A request takes the first queued reply
// whose When and Model match it; the reply leaves the queue after Times uses.
func (s *Server) Push(replies ...Reply) error {
	var q replay.Queue[Reply] // checks every rule before any reply is queued
	for i, r := range replies {
		if !r.Kind.valid() {
			return fmt.Errorf("reply %d: %v", i+1, unknownKind(r.Kind))
		}
		if err := q.Push(r.rule(), r); err != nil {
			return fmt.Errorf("reply %d: %v", i+1, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range replies {
		s.queue.Push(r.rule(), r)
	}
	return nil
}

// SetHandler makes h answer every request (the queue is then ignored);
// nil restores the queue.
func (s *Server) SetHandler(h func(RecordedRequest) Reply) {
	s.mu.Lock()
	s.handler = h
	s.mu.Unlock()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RecordedRequest(nil), s.requests...)
}

// Pending returns the number of queued replies not used up.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queue.Len()
}

// pick records the request and chooses its reply; ok is false when nothing
// matches. A RejectLogprobs reply answering a logprobs request is not used up.
func (s *Server) pick(rr *RecordedRequest) (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rr.N = len(s.requests) + 1
	s.requests = append(s.requests, *rr)
	if h := s.handler; h != nil {
		s.mu.Unlock()
		rep := h(*rr)
		s.mu.Lock()
		return rep, true
	}
	return s.queue.Take(rr.Model, rr.LastUser(), func(rep Reply) bool { return rejects(rep, *rr) })
}

// rejects reports whether a reply answers the request with a 400 about a
// field it sent (the reply is then not used up).
func rejects(rep Reply, rr RecordedRequest) bool {
	return rep.RejectLogprobs && rr.Logprobs || rep.RejectMaxTokens && rr.MaxTokensField == "max_tokens" ||
		rep.RejectField != "" && rr.Has(rep.RejectField) || rep.MaxOutput > 0 && rr.MaxTokens > rep.MaxOutput
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.api == "anthropic" {
		s.serveAnthropic(w, r)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeError(w, OpenAI, http.StatusNotFound, "invalid_request_error", "not_found",
			fmt.Sprintf("llmtest serves POST /v1/chat/completions only, not %s %s", r.Method, r.URL.Path))
		return
	}
	rr, err := parseRequest(r)
	if err != nil {
		writeError(w, OpenAI, http.StatusBadRequest, "invalid_request_error", "invalid_json", err.Error())
		return
	}
	rep, ok := s.pick(&rr)
	if !ok {
		writeError(w, OpenAI, http.StatusInternalServerError, "server_error", "llmtest_unmatched",
			fmt.Sprintf("llmtest: no scripted reply matches request #%d (model %q, last user message %q); add a reply with a matching \"when\"/\"model\" to the script",
				rr.N, rr.Model, clip(rr.LastUser(), 120)))
		return
	}
	if !replay.Sleep(r.Context(), rep.Latency) {
		return
	}
	if rep.RejectLogprobs && rr.Logprobs {
		writeError(w, rep.Dialect, http.StatusBadRequest, "invalid_request_error", "logprobs_not_supported",
			"logprobs is not supported by this model")
		return
	}
	if rep.RejectMaxTokens && rr.MaxTokensField == "max_tokens" {
		writeError(w, rep.Dialect, http.StatusBadRequest, "invalid_request_error", "unsupported_parameter",
			"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.")
		return
	}
	if rep.RejectField != "" && rr.Has(rep.RejectField) {
		writeError(w, rep.Dialect, http.StatusBadRequest, "invalid_request_error", "unsupported_parameter",
			fieldRefusal(dialect(rep), rep.RejectField))
		return
	}
	if !rep.Kind.streamed() {
		writeErrorReply(w, rep)
		return
	}
	streamReply(w, r, rr, rep)
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// parseRequest reads a chat completions request body: what package replay reads of it, and the
// rest of what a test may look at.
func parseRequest(r *http.Request) (RecordedRequest, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return RecordedRequest{}, err
	}
	req, err := replay.ParseRequest(body)
	if err != nil {
		return RecordedRequest{}, err
	}
	var in struct {
		MaxTokens           int `json:"max_tokens"`
		MaxCompletionTokens int `json:"max_completion_tokens"`
	}
	json.Unmarshal(body, &in)
	rr := RecordedRequest{Path: r.URL.Path, Model: req.Model, Messages: req.Messages, Logprobs: req.Logprobs, TopLogprobs: req.TopLogprobs,
		MaxTokens: max(in.MaxTokens, in.MaxCompletionTokens), Stream: req.Stream,
		IncludeUsage: req.IncludeUsage, Body: body,
		Authorization: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
		Bearer:        r.Header.Get("Authorization") != ""}
	json.Unmarshal(body, &rr.Fields)
	switch {
	case in.MaxCompletionTokens > 0:
		rr.MaxTokensField = "max_completion_tokens"
	case in.MaxTokens > 0:
		rr.MaxTokensField = "max_tokens"
	}
	return rr, nil
}

// streamReply streams a completion reply, or a JSON completion when the
// request did not ask for a stream.
func streamReply(w http.ResponseWriter, r *http.Request, rr RecordedRequest, rep Reply) {
	k := rr.TopLogprobs
	if rep.TopK > 0 {
		k = rep.TopK
	}
	toks := generate(rep, max(k, 1), rr.LastUser())
	if !rr.Stream {
		writeCompletion(w, rr, rep, toks, k)
		return
	}
	usage := (rr.IncludeUsage || dialect(rep) == OpenRouter) && !rep.NoUsage
	st := newStream(w, rr, rep, usage)
	if st.Open() != nil {
		return
	}
	thinking := Split(rep.Thinking)
	for _, t := range thinking {
		if !replay.Sleep(r.Context(), rep.ChunkDelay) || st.Think(t) != nil {
			return
		}
	}
	stop := len(toks)
	if rep.Kind == Drop || rep.Kind == StreamError {
		stop = rep.DropAfter
		if stop <= 0 || stop > len(toks) {
			stop = max(1, len(toks)/2)
		}
	}
	withLP := rr.Logprobs && rep.Kind != NoLogprobs && !rep.NoLogprobs
	for _, t := range toks[:stop] {
		if !replay.Sleep(r.Context(), rep.ChunkDelay) || st.Say(t, k, withLP) != nil {
			return
		}
	}
	switch rep.Kind {
	case Drop:
		panic(http.ErrAbortHandler) // closes the connection mid-stream
	case StreamError:
		status, typ, code, msg := errorShape(ServerError)
		st.Event(map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "status": status}})
		return
	}
	if finish(st, rep, usage, promptTokens(rr, rep), len(thinking)+len(toks)) == nil {
		st.Done()
	}
}

func dialect(rep Reply) string {
	switch rep.Dialect {
	case VLLM, LlamaCPP, OpenRouter:
		return rep.Dialect
	}
	return OpenAI
}

func finishReason(rep Reply) string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case rep.Kind == Repetition:
		return "repetition"
	}
	return "stop"
}

func promptTokens(rr RecordedRequest, rep Reply) int {
	if rep.PromptTokens > 0 {
		return rep.PromptTokens
	}
	return replay.PromptTokens(rr.Messages)
}
