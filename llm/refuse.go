package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
)

// refusedError is a 400 that refused an optional field the attempt sent: the
// model is asked again at once without it (or, for Anthropic's max_tokens
// above the model's maximum, with that maximum).
type refusedError struct {
	field string // a Sampling field's wire name or an Extra key; "max_tokens" with limit
	limit int    // the server's stated maximum for max_tokens
	err   *APIError
}

func (e *refusedError) Error() string { return e.err.Error() }
func (e *refusedError) Unwrap() error { return e.err }

// classifyAttempt classifies an attempt's error knowing what it sent: a 400
// that classify leaves as bad_request but that names an optional field the
// request carried becomes param_refused (a *refusedError).
func classifyAttempt(err, ctxErr error, br BackendRequest) (string, error) {
	cat := classify(err, ctxErr, br.Logprobs, br.MaxTokens > 0 && !br.MaxCompletionTokens)
	var api *APIError
	if cat != catBadRequest || !errors.As(err, &api) || api.Status != 400 {
		return cat, err
	}
	if rf := refusal(api, br); rf != nil {
		return catParamRefused, rf
	}
	return cat, err
}

// anthropicMaxRE reads Anthropic's "max_tokens: 100000 > 64000, which is the
// maximum allowed number of output tokens for …".
var anthropicMaxRE = regexp.MustCompile(`max_tokens: (\d+) > (\d+)`)

// refusal finds the optional field a 400 names: in OpenAI's words
// ("Unsupported parameter: 'temperature' …"), Anthropic's ("top_k: Extra
// inputs are not permitted"), vLLM's pydantic list ("('body', 'seed')") or
// llama.cpp's ("Unsupported param: seed"). A field is named when its wire
// name appears as a whole word in the message.
func refusal(api *APIError, br BackendRequest) *refusedError {
	msg := strings.ToLower(api.Message + " " + api.Code)
	if m := anthropicMaxRE.FindStringSubmatch(msg); m != nil {
		if limit, err := strconv.Atoi(m[2]); err == nil && limit > 0 && limit < br.MaxTokens {
			return &refusedError{field: "max_tokens", limit: limit, err: api}
		}
	}
	for _, f := range sentFields(br) {
		for _, w := range f.wire {
			if mentionsWord(msg, strings.ToLower(w)) {
				return &refusedError{field: f.name, err: api}
			}
		}
	}
	return nil
}

type sentField struct {
	name string   // the setting ("temperature", "reasoning_effort", an Extra key)
	wire []string // the words that name it in an error
}

// sentFields lists the optional fields of a request, extra keys first (the
// most likely to be refused).
func sentFields(br BackendRequest) []sentField {
	s := br.Sampling
	var out []sentField
	for _, k := range sortedKeys(s.Extra) {
		out = append(out, sentField{k, []string{k}})
	}
	if s.ReasoningEffort != "" {
		out = append(out, sentField{"reasoning_effort", []string{"reasoning_effort", "output_config", "effort"}})
	}
	if s.Seed != nil {
		out = append(out, sentField{"seed", []string{"seed"}})
	}
	if s.TopP != nil {
		out = append(out, sentField{"top_p", []string{"top_p"}})
	}
	if s.Temperature != nil {
		out = append(out, sentField{"temperature", []string{"temperature"}})
	}
	return out
}

// mentionsWord reports whether w occurs in s with no identifier character
// on either side.
func mentionsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !isIdent(s[j-1])) && (end == len(s) || !isIdent(s[end])) {
			return true
		}
		i = j + 1
	}
}

func isIdent(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// refuse remembers a refused field for the model and logs it once.
func (c *Client) refuse(m *model, rf *refusedError) {
	c.mu.Lock()
	st := c.stateOf(m)
	if rf.field == "max_tokens" {
		st.outCap = rf.limit
	} else {
		st.dropped[rf.field] = true
	}
	c.mu.Unlock()
	what := "sending it without " + rf.field + " from now on"
	if rf.field == "max_tokens" {
		what = fmt.Sprintf("capping max_tokens at %d from now on", rf.limit)
	}
	c.log(slog.LevelInfo, fmt.Sprintf("model %s refused %s (%s); %s", m.name, rf.field, rf.err.Error(), what))
}

// sampling returns the model's settings minus the fields it refused.
func (c *Client) sampling(m *model) Sampling {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, drop := m.set, c.stateOf(m).dropped
	if len(drop) == 0 {
		return s
	}
	if drop["temperature"] {
		s.Temperature = nil
	}
	if drop["top_p"] {
		s.TopP = nil
	}
	if drop["seed"] {
		s.Seed = nil
	}
	if drop["reasoning_effort"] {
		s.ReasoningEffort = ""
	}
	if len(s.Extra) > 0 {
		extra := map[string]any{}
		for k, v := range s.Extra {
			if !drop[k] {
				extra[k] = v
			}
		}
		s.Extra = extra
	}
	return s
}

// Refused lists the optional fields the model refused and is no longer
// sent, sorted; "max_tokens<=N" when the server stated a lower maximum.
func (c *Client) Refused(modelName string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.res.models[modelName]
	if m == nil {
		return nil
	}
	st := c.stateOf(m)
	out := sortedKeys(st.dropped)
	if st.outCap > 0 {
		out = append(out, "max_tokens<="+strconv.Itoa(st.outCap))
	}
	return out
}
