package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/tools"
)

// lineRecord decodes any line of a trace, ours or the reference's, keeping what a summary needs.
type lineRecord struct {
	Type      string         `json:"type"`
	TaskID    string         `json:"task_id"`
	RootModel string         `json:"root_model"`
	Question  string         `json:"question"`
	Outcome   *outcomeRecord `json:"outcome"`

	CodeBlocks    []codeBlockLine `json:"code_blocks"`
	FinalAnswer   json.RawMessage `json:"final_answer"`
	IterationTime *float64        `json:"iteration_time"`
	Usage         *Usage          `json:"usage"`
}

type codeBlockLine struct {
	Result *struct {
		Stderr        string        `json:"stderr"`
		ExecutionTime float64       `json:"execution_time"`
		RLMCalls      []subCallLine `json:"rlm_calls"`
		Error         *errorRecord  `json:"error"`
	} `json:"result"`
}

type subCallLine struct {
	PromptTokens     *int          `json:"prompt_tokens"`
	CompletionTokens *int          `json:"completion_tokens"`
	UsageSummary     *usageSummary `json:"usage_summary"`
	Error            *string       `json:"error"`
}

// summarizer accumulates a Summary line by line.
type summarizer struct {
	s        Summary
	metaSeen bool
	outcome  *outcomeRecord
	wall     time.Duration
	prompt   int
	complete int
}

func summarize(r io.Reader) (Summary, error) {
	br := bufio.NewReader(r)
	z := summarizer{s: Summary{Errors: map[string]int{}}}
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return Summary{}, fmt.Errorf("trace: read line %d: %w", n, err)
		}
		last := err != nil
		if len(bytes.TrimSpace(line)) > 0 {
			var rec lineRecord
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				if last && !bytes.HasSuffix(line, []byte("\n")) {
					z.s.TruncatedBytes = len(line)
					break
				}
				return Summary{}, fmt.Errorf("trace: line %d is not a JSON record: %w", n, jerr)
			}
			z.add(rec)
		}
		if last {
			break
		}
	}
	z.finish()
	return z.s, nil
}

func summarizeFile(path string) (Summary, error) {
	f, err := tools.OpenRegular(path) // a path the user may name: never wait on a fifo
	if err != nil {
		return Summary{}, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	s, err := summarize(f)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	o, ok, err := ReadOutcome(path)
	if err != nil {
		return Summary{}, err
	}
	if ok {
		rec := outcomeRecord{Status: o.Status, PromptTokens: o.Usage.PromptTokens,
			CompletionTokens: o.Usage.CompletionTokens, TotalTokens: o.Tokens, APICalls: o.Calls,
			WallTime: o.WallTime.Seconds()}
		if o.Status == "ANSWERED" || o.Answer != "" {
			rec.Answer = &o.Answer
		}
		if o.ErrKind != "" || o.ErrMsg != "" {
			rec.Error = &errorRecord{Kind: string(o.ErrKind), Message: o.ErrMsg}
		}
		rec.Cost = costRecordOf(o.Cost)
		s.applyOutcome(&rec)
	}
	return s, nil
}

func (z *summarizer) add(rec lineRecord) {
	if rec.Type == "metadata" {
		if !z.metaSeen {
			z.metaSeen = true
			z.s.TaskID, z.s.RootModel, z.s.Question = rec.TaskID, rec.RootModel, rec.Question
		}
		if rec.Outcome != nil {
			z.outcome = rec.Outcome
		}
		return
	}
	z.s.Iterations++
	z.s.CodeBlocks += len(rec.CodeBlocks)
	if rec.Usage != nil {
		z.prompt += rec.Usage.PromptTokens
		z.complete += rec.Usage.CompletionTokens
	}
	var blockTime time.Duration
	for _, b := range rec.CodeBlocks {
		if b.Result != nil {
			blockTime += time.Duration(b.Result.ExecutionTime * float64(time.Second))
			z.addBlock(b)
		}
	}
	if rec.IterationTime != nil {
		blockTime = time.Duration(*rec.IterationTime * float64(time.Second))
	}
	z.wall += blockTime
	if a, ok := finalAnswer(rec.FinalAnswer); ok {
		z.s.FinalAnswer, z.s.HasFinal = a, true
	}
}

func (z *summarizer) addBlock(b codeBlockLine) {
	switch {
	case b.Result.Error != nil && b.Result.Error.Kind != "":
		z.s.Errors[b.Result.Error.Kind]++
	case b.Result.Stderr != "":
		z.s.Errors["stderr"]++
	}
	for _, c := range b.Result.RLMCalls {
		z.s.SubCalls++
		if c.Error != nil && *c.Error != "" {
			z.s.SubCallErrors++
		}
		switch {
		case c.PromptTokens != nil || c.CompletionTokens != nil:
			z.prompt += deref(c.PromptTokens)
			z.complete += deref(c.CompletionTokens)
		case c.UsageSummary != nil:
			for _, u := range c.UsageSummary.ModelUsageSummaries {
				z.prompt += u.TotalInputTokens
				z.complete += u.TotalOutputTokens
			}
		}
	}
}

func (z *summarizer) finish() {
	z.s.PromptTokens, z.s.CompletionTokens, z.s.WallTime = z.prompt, z.complete, z.wall
	if z.outcome != nil {
		z.s.applyOutcome(z.outcome)
	}
}

// applyOutcome takes the end-of-run figures over the ones summed from the records.
func (s *Summary) applyOutcome(o *outcomeRecord) {
	s.Status = o.Status
	s.ErrKind, s.ErrMsg = "", ""
	if o.Error != nil {
		s.ErrKind, s.ErrMsg = o.Error.Kind, o.Error.Message
	}
	if o.Answer != nil {
		s.FinalAnswer, s.HasFinal = *o.Answer, true
	}
	if o.PromptTokens+o.CompletionTokens > 0 {
		s.PromptTokens, s.CompletionTokens = o.PromptTokens, o.CompletionTokens
	}
	s.Tokens, s.Calls = o.TotalTokens, o.APICalls
	if c := o.Cost; c != nil {
		s.Cost = &Cost{Unknown: c.UnknownCalls}
		if c.USD != nil {
			s.Cost.USD = *c.USD
		}
	}
	if o.WallTime > 0 {
		s.WallTime = time.Duration(o.WallTime * float64(time.Second))
	}
}

// finalAnswer decodes a final_answer: null, a string, or the visualizer's [variable, value] pair.
func finalAnswer(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil && string(raw) != "null" && len(raw) > 0 {
		return s, true
	}
	var pair []string
	if json.Unmarshal(raw, &pair) == nil && len(pair) == 2 {
		return pair[1], true
	}
	return "", false
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func (s Summary) format(w io.Writer) error {
	var b strings.Builder
	row := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-14s"+format+"\n", append([]any{k + ":"}, args...)...)
	}
	if s.TaskID != "" {
		row("task", "%s", s.TaskID)
	}
	if s.RootModel != "" {
		row("root model", "%s", s.RootModel)
	}
	if s.Status == "" {
		row("status", "unfinished (no outcome record)")
	} else {
		row("status", "%s", s.Status)
	}
	if s.ErrKind != "" || s.ErrMsg != "" {
		row("error", "%s: %s", s.ErrKind, s.ErrMsg)
	}
	row("iterations", "%d", s.Iterations)
	row("code blocks", "%d", s.CodeBlocks)
	row("errors", "%s", s.errorList())
	row("sub-calls", "%d (%d failed)", s.SubCalls, s.SubCallErrors)
	row("tokens", "%d (prompt %d, completion %d)", s.PromptTokens+s.CompletionTokens,
		s.PromptTokens, s.CompletionTokens)
	if s.Calls > 0 || s.Tokens > s.PromptTokens+s.CompletionTokens {
		calls := "API calls"
		if s.Calls == 1 {
			calls = "API call"
		}
		row("task total", "%d tokens in %d %s (sub-runs included)", s.Tokens, s.Calls, calls)
	}
	if s.Cost != nil {
		row("cost", "%s", s.Cost)
	}
	row("wall time", "%s", s.WallTime.Round(time.Millisecond))
	if s.HasFinal {
		row("final answer", "%q", clip(s.FinalAnswer, 200))
	} else {
		row("final answer", "none")
	}
	if s.TruncatedBytes > 0 {
		row("warning", "the last line is cut short (%d bytes ignored): the run stopped while writing it",
			s.TruncatedBytes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (s Summary) errorList() string {
	if len(s.Errors) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Errors)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.Errors[k]))
	}
	return strings.Join(parts, ", ")
}

// clip keeps the first n code points of s, marking a cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
