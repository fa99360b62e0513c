package traceview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/trace"
)

// The view model: what the page's script reads. The index is small and read at once; each
// iteration's detail is its own JSON block, parsed when it is shown.

type index struct {
	Name       string         `json:"name"`
	Meta       meta           `json:"meta"`
	Question   string         `json:"question"`
	Outcome    *outcome       `json:"outcome"`
	Final      *string        `json:"final"`      // the outcome's answer, else the last final_answer
	FinalFrom  int            `json:"final_from"` // the iteration that recorded Final (from 1); 0: the outcome
	Warnings   []string       `json:"warnings"`
	Iterations []iterationRow `json:"iterations"`
	HasCost    bool           `json:"has_cost"`
}

type meta struct {
	RootModel     string `json:"root_model"`
	Backend       string `json:"backend"`
	Environment   string `json:"environment"`
	MaxIterations int    `json:"max_iterations"`
	MaxDepth      int    `json:"max_depth"`
	TaskID        string `json:"task_id"`
	Lang          string `json:"lang"`
	Started       string `json:"started"`
	Kwargs        string `json:"kwargs"` // backend_kwargs as JSON text
}

type outcome struct {
	Status     string  `json:"status"`
	Answer     *string `json:"answer"`
	ErrKind    string  `json:"err_kind"`
	ErrMsg     string  `json:"err_msg"`
	Prompt     int     `json:"prompt_tokens"`
	Completion int     `json:"completion_tokens"`
	Tokens     int     `json:"tokens"`
	Calls      int     `json:"calls"`
	Wall       float64 `json:"wall"`
	Cost       string  `json:"cost"` // the task's cost as rlm states it ("≥ $0.12 (3 calls of unknown cost)"); "" when not recorded
}

// iterationRow is one iteration in the index: enough for the timeline and the usage chart.
type iterationRow struct {
	N          int      `json:"n"`
	Time       *float64 `json:"time"` // iteration_time; null when not recorded
	CodeTime   float64  `json:"code_time"`
	Blocks     int      `json:"blocks"`
	Calls      int      `json:"calls"`
	CallErrors int      `json:"call_errors"`
	Errors     int      `json:"errors"` // blocks with an error or stderr
	Final      bool     `json:"final"`
	Forced     bool     `json:"forced"`
	Prompt     int      `json:"pt"` // root call tokens
	Completion int      `json:"ct"`
	SubPrompt  int      `json:"spt"` // sub-call tokens
	SubCompl   int      `json:"sct"`
	Cost       *float64 `json:"cost"` // root and sub-calls, where the trace records any
	Lead       string   `json:"lead"` // the response's first line, cut
	M0         int      `json:"m0"`   // id of the first message this iteration's prompt brought
	PromptLen  int      `json:"plen"` // messages in the prompt
	Stamp      string   `json:"ts"`
}

// detail is one iteration, whole.
type detail struct {
	Prompt   [][2]int  `json:"prompt"` // the prompt, as runs [first id, count] of message ids
	Msgs     []message `json:"msgs"`   // the messages first seen in this prompt, ids from the row's m0
	Response string    `json:"response"`
	Final    *string   `json:"final"`
	Blocks   []block   `json:"blocks"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type block struct {
	Code          string      `json:"code"`
	Stdout        string      `json:"stdout"`
	Stderr        string      `json:"stderr"`
	ErrKind       string      `json:"err_kind"`
	ErrMsg        string      `json:"err_msg"`
	Time          float64     `json:"time"`
	Locals        [][3]string `json:"locals"` // name, type, repr
	LocalsOmitted int         `json:"locals_omitted"`
	Final         *string     `json:"final"`
	Calls         []call      `json:"calls"`
}

type call struct {
	Model            string   `json:"model"`
	Prompt           string   `json:"prompt"`
	Response         string   `json:"response"`
	Error            string   `json:"error"`
	PromptTokens     int      `json:"pt"`
	CompletionTokens int      `json:"ct"`
	Time             float64  `json:"time"`
	Cost             *float64 `json:"cost"`
}

// model is a whole trace, read.
type model struct {
	index   index
	details []detail
	ids     map[message]int // every prompt message seen, by id
}

// rawLine decodes any line loosely: a field of an unexpected type is read as text, never an
// error, since traces come from other writers too and are hostile data.
type rawLine struct {
	Type          loose           `json:"type"`
	Timestamp     loose           `json:"timestamp"`
	RootModel     loose           `json:"root_model"`
	MaxDepth      json.RawMessage `json:"max_depth"`
	MaxIterations json.RawMessage `json:"max_iterations"`
	Backend       loose           `json:"backend"`
	BackendKwargs json.RawMessage `json:"backend_kwargs"`
	Environment   loose           `json:"environment_type"`
	TaskID        loose           `json:"task_id"`
	Question      loose           `json:"question"`
	Lang          loose           `json:"lang"`
	Outcome       json.RawMessage `json:"outcome"`

	Prompt        json.RawMessage `json:"prompt"`
	Response      loose           `json:"response"`
	CodeBlocks    []rawBlock      `json:"code_blocks"`
	FinalAnswer   json.RawMessage `json:"final_answer"`
	IterationTime json.RawMessage `json:"iteration_time"`
	Usage         *rawUsage       `json:"usage"`
	ForcedFinal   json.RawMessage `json:"forced_final"`
}

type rawUsage struct {
	PromptTokens     json.RawMessage `json:"prompt_tokens"`
	CompletionTokens json.RawMessage `json:"completion_tokens"`
	Cost             json.RawMessage `json:"cost"`
}

type rawBlock struct {
	Code   loose `json:"code"`
	Result *struct {
		Stdout        loose                      `json:"stdout"`
		Stderr        loose                      `json:"stderr"`
		Locals        map[string]json.RawMessage `json:"locals"`
		LocalTypes    map[string]loose           `json:"local_types"`
		LocalsOmitted json.RawMessage            `json:"locals_omitted"`
		ExecutionTime json.RawMessage            `json:"execution_time"`
		RLMCalls      []rawCall                  `json:"rlm_calls"`
		FinalAnswer   json.RawMessage            `json:"final_answer"`
		Error         *struct {
			Kind    loose `json:"kind"`
			Message loose `json:"message"`
		} `json:"error"`
	} `json:"result"`
}

type rawCall struct {
	RootModel        loose           `json:"root_model"`
	Prompt           loose           `json:"prompt"`
	Response         loose           `json:"response"`
	Error            loose           `json:"error"`
	PromptTokens     json.RawMessage `json:"prompt_tokens"`
	CompletionTokens json.RawMessage `json:"completion_tokens"`
	ExecutionTime    json.RawMessage `json:"execution_time"`
	UsageSummary     *struct {
		TotalCost json.RawMessage `json:"total_cost"`
		Models    map[string]struct {
			In   json.RawMessage `json:"total_input_tokens"`
			Out  json.RawMessage `json:"total_output_tokens"`
			Cost json.RawMessage `json:"total_cost"`
		} `json:"model_usage_summaries"`
	} `json:"usage_summary"`
}

// loose is a JSON value read as text: a string as itself, null as "", anything else as its
// compact JSON.
type loose string

func (l *loose) UnmarshalJSON(b []byte) error {
	*l = loose(text(b))
	return nil
}

func text(b json.RawMessage) string {
	if len(b) == 0 || string(b) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	var c bytes.Buffer
	if json.Compact(&c, b) == nil {
		return c.String()
	}
	return string(b)
}

func number(b json.RawMessage) (float64, bool) {
	var f float64
	if len(b) == 0 || json.Unmarshal(b, &f) != nil {
		return 0, false
	}
	return f, true
}

func integer(b json.RawMessage) int {
	f, _ := number(b)
	if f > 1e15 || f < -1e15 {
		return 0
	}
	return int(f)
}

// read builds the model from a trace and its outcome (nil when there is none).
func read(r io.Reader, name string, o *trace.Outcome) (*model, error) {
	m := &model{index: index{Name: name, Warnings: []string{}, Iterations: []iterationRow{}}, ids: map[message]int{}}
	var legacy *trace.Outcome
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("traceview: read line %d: %w", n, err)
		}
		last := err != nil
		if len(bytes.TrimSpace(line)) > 0 {
			var rec rawLine
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				m.warn(n, last, len(line), jerr)
			} else if rec.Type == "metadata" {
				if l := m.metadata(rec); l != nil {
					legacy = l
				}
			} else {
				m.iteration(rec)
			}
		}
		if last {
			break
		}
	}
	if o == nil {
		o = legacy
	}
	m.finish(o)
	return m, nil
}

func (m *model) warn(n int, last bool, size int, err error) {
	if last {
		m.index.Warnings = append(m.index.Warnings, fmt.Sprintf("the last line (%d) is cut short (%d bytes ignored): the run stopped while writing it", n, size))
		return
	}
	m.index.Warnings = append(m.index.Warnings, fmt.Sprintf("line %d is not a JSON record and was skipped: %s", n, clip(err.Error(), 200)))
}

// metadata reads a metadata line; the first one describes the run. A legacy end-of-run line
// (the metadata again with "outcome") gives the outcome.
func (m *model) metadata(rec rawLine) *trace.Outcome {
	if len(rec.Outcome) > 0 && string(rec.Outcome) != "null" {
		return legacyOutcome(rec.Outcome)
	}
	if m.index.Meta.Started != "" || m.index.Meta.RootModel != "" {
		m.index.Warnings = append(m.index.Warnings, "the trace has more than one metadata line; the first is shown")
		return nil
	}
	mi, _ := number(rec.MaxIterations)
	md, _ := number(rec.MaxDepth)
	m.index.Meta = meta{RootModel: string(rec.RootModel), Backend: string(rec.Backend),
		Environment: string(rec.Environment), MaxIterations: int(mi), MaxDepth: int(md),
		TaskID: string(rec.TaskID), Lang: string(rec.Lang), Started: string(rec.Timestamp),
		Kwargs: clip(text(rec.BackendKwargs), 2000)}
	m.index.Question = string(rec.Question)
	return nil
}

func legacyOutcome(raw json.RawMessage) *trace.Outcome {
	var r struct {
		Status           loose           `json:"status"`
		Answer           *loose          `json:"answer"`
		PromptTokens     json.RawMessage `json:"prompt_tokens"`
		CompletionTokens json.RawMessage `json:"completion_tokens"`
		Error            *struct {
			Kind    loose `json:"kind"`
			Message loose `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return nil
	}
	o := &trace.Outcome{Status: string(r.Status), Usage: trace.Usage{PromptTokens: integer(r.PromptTokens), CompletionTokens: integer(r.CompletionTokens)}}
	if r.Answer != nil {
		o.Answer = string(*r.Answer)
	}
	if r.Error != nil {
		o.ErrKind, o.ErrMsg = fault.Kind(r.Error.Kind), string(r.Error.Message)
	}
	return o
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// lead is the first non-blank line of s, cut to 120 bytes.
func lead(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return clip(t, 120)
		}
	}
	return ""
}
