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

// lpState is what the client knows about logprobs for a base URL and model.
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

func (c *Client) lpKey(model string) string { return c.cfg.BaseURL + "\x00" + model }

// useMaxCompletion reports whether model wants max_completion_tokens.
func (c *Client) useMaxCompletion(model string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.maxCompletion[c.lpKey(model)]
}

func (c *Client) setMaxCompletion(model string) {
	c.mu.Lock()
	c.maxCompletion[c.lpKey(model)] = true
	c.mu.Unlock()
	c.log(slog.LevelInfo, "model "+model+" refuses max_tokens; sending max_completion_tokens from now on")
}

func (c *Client) wantLogprobs(model string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.lp[c.lpKey(model)]
	return s == lpUnknown || s == lpWorks
}

func (c *Client) setLogprobs(model string, s lpState) {
	c.mu.Lock()
	old := c.lp[c.lpKey(model)]
	c.lp[c.lpKey(model)] = s
	c.mu.Unlock()
	if old != s && s != lpWorks {
		what := map[lpState]string{lpRefused: "the server refused them", lpAbsent: "the stream had none"}[s]
		c.log(slog.LevelInfo, "logprobs off for model "+model+" at "+c.cfg.BaseURL+": "+what+"; the monitor uses its text-only detectors")
	}
}

// LogprobsKnown reports what the client remembers about logprobs for model:
// "unknown", "works", "refused" (400 when asked) or "absent" (never sent).
func (c *Client) LogprobsKnown(model string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return [...]string{"unknown", "works", "refused", "absent"}[c.lp[c.lpKey(model)]]
}

// attempt makes one HTTP attempt and reports it to the Observer. It returns
// the error category ("" on success).
func (c *Client) attempt(ctx context.Context, req Request, tier, maxTok int) (Response, string, error) {
	model := c.cfg.Models[tier]
	ask := c.wantLogprobs(model)
	st := newStreamState(c.monitorFor(req, tier))
	br := BackendRequest{Model: model, Messages: req.Messages, MaxTokens: maxTok, Logprobs: ask,
		MaxCompletionTokens: c.useMaxCompletion(model)}
	if ask {
		br.TopLogprobs = TopLogprobs
	}
	start := time.Now()
	err := c.stream(ctx, br, st.add)
	lat := time.Since(start)
	if err == nil {
		err = st.end()
	}
	cat := ""
	if err != nil {
		cat = classify(err, ctx.Err(), ask, maxTok > 0 && !br.MaxCompletionTokens)
	}
	if ask && (err == nil || cat == catEarlyAbort) {
		c.setLogprobs(model, map[bool]lpState{true: lpWorks, false: lpAbsent}[st.sawLogprobs])
	}
	u := st.usage(req.Messages)
	if err != nil && !st.started {
		u = Usage{Source: "none"}
	}
	c.addTokens(u.Total())
	c.report(Call{Agent: req.Agent, Model: model, PromptTokens: u.PromptTokens,
		CompletionTokens: u.CompletionTokens, Latency: lat, Status: status(cat), Err: errText(err)})
	if err != nil {
		return Response{}, cat, err
	}
	return Response{Text: st.text.String(), Model: model, FinishReason: st.finish, Usage: u,
		Latency: lat, Logprobs: st.sawLogprobs}, "", nil
}

// stream runs one backend stream under the idle timer: the attempt is
// cancelled when no chunk arrives for IdleTimeout (the wait for the first
// byte included), and the error is then an *idleError.
func (c *Client) stream(ctx context.Context, br BackendRequest, onChunk func(Chunk) error) error {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := c.cfg.IdleTimeout
	timer := time.AfterFunc(idle, func() { cancel(&idleError{d: idle}) })
	defer timer.Stop()
	err := c.backend.Stream(actx, br, func(ch Chunk) error {
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

func (c *Client) addTokens(n int) {
	c.mu.Lock()
	c.spent.Tokens += n
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
	finish      string
	started     bool // a chunk arrived
	sawLogprobs bool
	lpTokens    int
	reported    *Usage
}

func newStreamState(m *monitor.Monitor) *streamState { return &streamState{mon: m} }

func (s *streamState) add(ch Chunk) error {
	s.started = true
	if ch.Usage != nil {
		u := *ch.Usage
		s.reported = &u
	}
	if ch.FinishReason != "" {
		s.finish = ch.FinishReason
	}
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
// logprob entries counted (prompt estimated), else an estimate.
func (s *streamState) usage(msgs []Message) Usage {
	if s.reported != nil {
		u := *s.reported
		u.Source = "usage"
		return u
	}
	prompt := estimatePrompt(msgs)
	if s.lpTokens > 0 {
		return Usage{PromptTokens: prompt, CompletionTokens: s.lpTokens, Source: "logprobs"}
	}
	return Usage{PromptTokens: prompt, CompletionTokens: estimateTokens(s.text.String()), Source: "estimate"}
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
