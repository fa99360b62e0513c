package llm

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/monitor"
)

// lpState is what the client knows about logprobs for a model.
type lpState int

const (
	lpUnknown lpState = iota // ask for them
	lpWorks                  // ask for them
	lpRefused                // the server rejected the request with logprobs
	lpAbsent                 // the server accepted but sent none
)

// TopLogprobs is the number of alternatives requested per token (OpenAI's
// maximum).
const TopLogprobs = 20

// useMaxCompletion reports whether the model wants max_completion_tokens.
func (c *Client) useMaxCompletion(m *model) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stateOf(m).maxCompletion
}

func (c *Client) setMaxCompletion(m *model) {
	c.mu.Lock()
	c.stateOf(m).maxCompletion = true
	c.mu.Unlock()
	c.log(slog.LevelInfo, "model "+m.name+" refuses max_tokens; sending max_completion_tokens from now on")
}

// wantLogprobs reports whether to ask the model for logprobs: never on an
// Anthropic backend (the API has none), else until the model refused them
// or sent none.
func (c *Client) wantLogprobs(m *model) bool {
	if m.ep.provider == ProviderAnthropic {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stateOf(m).lp
	return s == lpUnknown || s == lpWorks
}

func (c *Client) setLogprobs(m *model, s lpState) {
	c.mu.Lock()
	st := c.stateOf(m)
	old := st.lp
	st.lp = s
	c.mu.Unlock()
	if old != s && s != lpWorks {
		what := map[lpState]string{lpRefused: "the server refused them", lpAbsent: "the stream had none"}[s]
		c.log(slog.LevelInfo, "logprobs off for model "+m.name+" at "+m.ep.baseURL+": "+what+"; the monitor uses its text-only detectors")
	}
}

// LogprobsKnown reports what the client remembers about logprobs for a
// model: "unknown", "works", "refused" (400 when asked) or "absent" (never
// sent; always so on an Anthropic backend).
func (c *Client) LogprobsKnown(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.res.models[name]
	if m == nil {
		return "unknown"
	}
	if m.ep.provider == ProviderAnthropic {
		return "absent"
	}
	return [...]string{"unknown", "works", "refused", "absent"}[c.stateOf(m).lp]
}

// attempt makes one HTTP attempt and reports it to the Observer. It returns
// the error category ("" on success).
func (c *Client) attempt(ctx context.Context, req Request, m *model, tier, maxTok int) (Response, string, error) {
	ask := c.wantLogprobs(m)
	st := newStreamState(c.monitorFor(req, tier))
	br := BackendRequest{Model: m.id, Messages: req.Messages, MaxTokens: maxTok, Logprobs: ask,
		MaxCompletionTokens: c.useMaxCompletion(m), Sampling: c.sampling(m)}
	if ask {
		br.TopLogprobs = TopLogprobs
	}
	start := time.Now()
	err := c.explain(m.ep, c.stream(ctx, m.ep, br, st.add))
	lat := time.Since(start)
	if err == nil {
		err = st.end()
	}
	cat := ""
	if err != nil {
		cat, err = classifyAttempt(err, ctx.Err(), br)
	}
	if ask && (err == nil || cat == catEarlyAbort) {
		c.setLogprobs(m, map[bool]lpState{true: lpWorks, false: lpAbsent}[st.sawLogprobs])
	}
	u := st.usage(req.Messages)
	if err != nil && !st.started {
		u = Usage{Source: "none"}
	}
	cost := costOf(m, u, st.cost)
	c.addTokens(u)
	c.noteCost(m, cost)
	c.report(Call{Agent: req.Agent, Model: m.name, Backend: m.ep.name, PromptTokens: u.PromptTokens,
		CompletionTokens: u.CompletionTokens, CachedTokens: u.CachedTokens, Source: u.Source, Cost: cost,
		Latency: lat, Status: status(cat), Err: errText(err)})
	if err != nil {
		return Response{}, cat, err
	}
	return Response{Text: st.text.String(), Model: m.name, Backend: m.ep.name, FinishReason: st.finish, Usage: u,
		Cost: cost, Latency: lat, Logprobs: st.sawLogprobs}, "", nil
}

// stream runs one backend stream under the idle timer: the attempt is
// cancelled when no chunk arrives for IdleTimeout (the wait for the first
// byte included), and the error is then an *idleError.
func (c *Client) stream(ctx context.Context, ep *endpoint, br BackendRequest, onChunk func(Chunk) error) error {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := c.cfg.IdleTimeout
	timer := time.AfterFunc(idle, func() { cancel(&idleError{d: idle}) })
	defer timer.Stop()
	err := ep.backend.Stream(actx, br, func(ch Chunk) error {
		timer.Reset(idle)
		return onChunk(ch)
	})
	var ie *idleError
	if cause := context.Cause(actx); errors.As(cause, &ie) && ctx.Err() == nil {
		return ie
	}
	return err
}

func status(cat string) string {
	switch cat {
	case "":
		return "ok"
	case catEarlyAbort:
		return "early_abort"
	}
	return "error:" + cat
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// addTokens adds an attempt's tokens to the spent figures.
func (c *Client) addTokens(u Usage) {
	c.mu.Lock()
	c.spent.Tokens += u.Total()
	c.spent.PromptTokens += u.PromptTokens
	c.spent.CompletionTokens += u.CompletionTokens
	c.mu.Unlock()
}

// report redacts and sends a Call to the Observer.
func (c *Client) report(call Call) {
	call.Err = c.red(call.Err)
	if call.At.IsZero() {
		call.At = c.cfg.Now()
	}
	if c.cfg.Observer != nil {
		c.cfg.Observer(call)
	}
}

// monitorFor returns a fresh monitor for the tier and task, nil when off.
func (c *Client) monitorFor(req Request, tier int) *monitor.Monitor {
	if c.cfg.NoMonitor {
		return nil
	}
	cfg := monitor.ForTier(tierOf(tier))
	if req.Task != "" {
		cfg = cfg.WithTask(req.Task)
	}
	return monitor.New(cfg, req.ExpectedTokens)
}

// streamState accumulates one attempt's stream and feeds the monitor.
type streamState struct {
	mon         *monitor.Monitor
	text        strings.Builder
	reasoning   int // runes of reasoning text
	finish      string
	started     bool // a chunk arrived
	sawLogprobs bool
	lpTokens    int
	reported    *Usage
	cost        *float64 // reported by the server
}

func newStreamState(m *monitor.Monitor) *streamState { return &streamState{mon: m} }

func (s *streamState) add(ch Chunk) error {
	s.started = true
	if ch.Usage != nil {
		u := *ch.Usage
		s.reported = &u
	}
	if ch.Cost != nil {
		v := *ch.Cost
		s.cost = &v
	}
	if ch.FinishReason != "" {
		s.finish = ch.FinishReason
	}
	s.reasoning += utf8.RuneCountInString(ch.Reasoning)
	s.text.WriteString(ch.Text)
	if len(ch.Logprobs) > 0 {
		s.sawLogprobs = true
		for _, lp := range ch.Logprobs {
			s.lpTokens++
			tok := monitor.Token{Text: lp.Token, Logprob: lp.Logprob, TopLogprobs: lp.Top, HasLogprobs: true}
			if err := s.observe(tok); err != nil {
				return err
			}
		}
		return nil
	}
	if ch.Text != "" {
		return s.observe(monitor.Token{Text: ch.Text})
	}
	return nil
}

func (s *streamState) observe(t monitor.Token) error {
	if s.mon == nil {
		return nil
	}
	if v := s.mon.Observe(t); v.Abort {
		return &abortError{reason: string(v.Reason), detail: v.Detail}
	}
	return nil
}

// end checks a stream that ended without error: no finish reason means the
// connection dropped; then the monitor sees the finish reason (vLLM's
// "repetition" aborts).
func (s *streamState) end() error {
	if s.finish == "" {
		return errDropped
	}
	if s.mon != nil {
		if v := s.mon.Finish(s.finish); v.Abort {
			return &abortError{reason: string(v.Reason), detail: v.Detail}
		}
	}
	if s.finish == "repetition" {
		return &abortError{reason: string(monitor.ReasonBackendRepetition), detail: "the server stopped the generation on repetition"}
	}
	return nil
}

// usage returns the attempt's usage: the server's usage chunk, else the
// logprob entries counted (prompt estimated), else an estimate (reasoning
// text included). A stream cut before its final usage (Anthropic reports the
// prompt at the start) keeps the reported prompt and counts the completion
// as the larger of the reported and the streamed.
func (s *streamState) usage(msgs []Message) Usage {
	counted := Usage{PromptTokens: estimatePrompt(msgs), CompletionTokens: s.lpTokens, Source: "logprobs"}
	if s.lpTokens == 0 {
		counted.CompletionTokens = estimateTokens(s.text.String()) + (s.reasoning+3)/4
		counted.Source = "estimate"
	}
	if s.reported == nil {
		return counted
	}
	u := *s.reported
	u.Source = "usage"
	if s.finish == "" && counted.CompletionTokens > u.CompletionTokens {
		u.CompletionTokens, u.Source = counted.CompletionTokens, counted.Source
	}
	return u
}

// estimateTokens is characters / 4, rounded up.
func estimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// estimatePrompt estimates a prompt: its characters / 4 plus 4 tokens of
// framing per message.
func estimatePrompt(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += estimateTokens(m.Content) + 4
	}
	return n
}
