package traceview

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/rlm-sandbox/rlm/trace"
)

// iteration adds one iteration line.
func (m *model) iteration(rec rawLine) {
	d := detail{Response: string(rec.Response), Final: finalAnswer(rec.FinalAnswer)}
	row := iterationRow{N: len(m.details) + 1, Final: d.Final != nil, Lead: lead(d.Response), Stamp: string(rec.Timestamp)}
	m.prompt(&d, &row, messages(rec.Prompt))
	if t, ok := number(rec.IterationTime); ok {
		row.Time = &t
	}
	if forced, _ := number(rec.ForcedFinal); forced != 0 || string(rec.ForcedFinal) == "true" {
		row.Forced = true
	}
	if u := rec.Usage; u != nil {
		row.Prompt, row.Completion = integer(u.PromptTokens), integer(u.CompletionTokens)
		row.Cost = addCost(row.Cost, u.Cost)
	}
	for _, rb := range rec.CodeBlocks {
		b := m.block(rb, &row)
		d.Blocks = append(d.Blocks, b)
	}
	if d.Blocks == nil {
		d.Blocks = []block{}
	}
	if row.Cost != nil {
		m.index.HasCost = true
	}
	m.details = append(m.details, d)
	m.index.Iterations = append(m.index.Iterations, row)
}

// prompt stores a prompt as message ids: a prompt repeats the conversation so far (or a window
// of it), so each message is kept once, in the iteration whose prompt first had it.
func (m *model) prompt(d *detail, row *iterationRow, prompt []message) {
	row.M0, row.PromptLen = len(m.ids), len(prompt)
	d.Prompt, d.Msgs = [][2]int{}, []message{}
	for _, msg := range prompt {
		id, ok := m.ids[msg]
		if !ok {
			id = len(m.ids)
			m.ids[msg] = id
			d.Msgs = append(d.Msgs, msg)
		}
		if k := len(d.Prompt) - 1; k >= 0 && d.Prompt[k][0]+d.Prompt[k][1] == id {
			d.Prompt[k][1]++
		} else {
			d.Prompt = append(d.Prompt, [2]int{id, 1})
		}
	}
}

func (m *model) block(rb rawBlock, row *iterationRow) block {
	b := block{Code: string(rb.Code), Locals: [][3]string{}, Calls: []call{}}
	row.Blocks++
	res := rb.Result
	if res == nil {
		return b
	}
	b.Stdout, b.Stderr = string(res.Stdout), string(res.Stderr)
	b.Time, _ = number(res.ExecutionTime)
	row.CodeTime += b.Time
	b.Final = finalAnswer(res.FinalAnswer)
	if res.Error != nil {
		b.ErrKind, b.ErrMsg = string(res.Error.Kind), string(res.Error.Message)
		// rlm appends "\n<kind>: <message>" to stderr, the reference's way; it is shown once.
		b.Stderr = strings.TrimSuffix(b.Stderr, "\n"+b.ErrKind+": "+b.ErrMsg)
	}
	if b.ErrKind != "" || b.ErrMsg != "" || b.Stderr != "" {
		row.Errors++
	}
	names := make([]string, 0, len(res.Locals))
	for k := range res.Locals {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b.Locals = append(b.Locals, [3]string{k, string(res.LocalTypes[k]), localValue(res.Locals[k])})
	}
	b.LocalsOmitted = integer(res.LocalsOmitted)
	for _, rc := range res.RLMCalls {
		c := m.call(rc)
		row.Calls++
		if c.Error != "" {
			row.CallErrors++
		}
		row.SubPrompt += c.PromptTokens
		row.SubCompl += c.CompletionTokens
		row.Cost = sumCost(row.Cost, c.Cost)
		b.Calls = append(b.Calls, c)
	}
	return b
}

func (m *model) call(rc rawCall) call {
	c := call{Model: string(rc.RootModel), Prompt: string(rc.Prompt), Response: string(rc.Response), Error: string(rc.Error)}
	c.Time, _ = number(rc.ExecutionTime)
	c.PromptTokens, c.CompletionTokens = integer(rc.PromptTokens), integer(rc.CompletionTokens)
	if us := rc.UsageSummary; us != nil {
		in, out := 0, 0
		for _, u := range us.Models {
			in += integer(u.In)
			out += integer(u.Out)
			c.Cost = addCost(c.Cost, u.Cost)
		}
		if len(rc.PromptTokens) == 0 && len(rc.CompletionTokens) == 0 {
			c.PromptTokens, c.CompletionTokens = in, out // the reference writes only the usage summary
		}
		if c.Cost == nil {
			c.Cost = addCost(nil, us.TotalCost)
		}
	}
	return c
}

func addCost(sum *float64, raw json.RawMessage) *float64 {
	f, ok := number(raw)
	if !ok {
		return sum
	}
	if sum != nil {
		f += *sum
	}
	return &f
}

func sumCost(a, b *float64) *float64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	s := *a + *b
	return &s
}

// localValue renders a locals value: a string as itself (rlm writes reprs), anything else (the
// reference writes numbers, lists, objects) as its JSON, cut to the trace's cap.
func localValue(raw json.RawMessage) string {
	return clip(text(raw), trace.MaxReprChars*4)
}

// messages reads a prompt: a list of {role, content}, a bare string (a user message), or any
// other value (shown as its JSON).
func messages(raw json.RawMessage) []message {
	var list []struct {
		Role    loose `json:"role"`
		Content loose `json:"content"`
	}
	if json.Unmarshal(raw, &list) == nil {
		out := make([]message, 0, len(list))
		for _, x := range list {
			out = append(out, message{Role: string(x.Role), Content: string(x.Content)})
		}
		return out
	}
	if t := text(raw); t != "" {
		return []message{{Role: "user", Content: t}}
	}
	return []message{}
}

// finalAnswer reads a final_answer: null, a string, or the reference's [variable, value] pair.
func finalAnswer(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var pair []loose
	if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
		s := string(pair[1])
		return &s
	}
	s := text(raw)
	return &s
}

// finish sets the answer, the question and the outcome.
func (m *model) finish(o *trace.Outcome) {
	ix := &m.index
	for i := len(m.details) - 1; i >= 0; i-- {
		if m.details[i].Final != nil {
			ix.Final, ix.FinalFrom = m.details[i].Final, i+1
			break
		}
	}
	if o != nil {
		ix.Outcome = &outcome{Status: o.Status, ErrKind: string(o.ErrKind), ErrMsg: o.ErrMsg,
			Prompt: o.Usage.PromptTokens, Completion: o.Usage.CompletionTokens, Tokens: o.Tokens,
			Calls: o.Calls, Wall: o.WallTime.Seconds()}
		if o.Cost != nil {
			ix.Outcome.Cost = o.Cost.String()
		}
		if o.Answer != "" || o.Status == "ANSWERED" {
			a := o.Answer
			ix.Outcome.Answer = &a
			ix.Final, ix.FinalFrom = &a, 0
		}
	}
	if ix.Question == "" && len(m.details) > 0 {
		ix.Question = questionFrom(m.details[0].Msgs)
	}
}

// questionFrom finds the question of a trace without rlm's "question" key (the reference's):
// the first user message, cut.
func questionFrom(prompt []message) string {
	for _, msg := range prompt {
		if msg.Role == "user" && strings.TrimSpace(msg.Content) != "" {
			return clip(strings.TrimSpace(msg.Content), 300)
		}
	}
	return ""
}
