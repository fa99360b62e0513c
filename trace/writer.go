package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/rlm-sandbox/rlm/redact"
)

// The records below fix the field order of each line; see doc.go for where each field comes
// from. Fields marked "ext" are rlm's additions.

type metadataRecord struct {
	Type              string         `json:"type"`
	Timestamp         string         `json:"timestamp"`
	RootModel         string         `json:"root_model"`
	MaxDepth          int            `json:"max_depth"`
	MaxIterations     int            `json:"max_iterations"`
	Backend           string         `json:"backend"`
	BackendKwargs     map[string]any `json:"backend_kwargs"`
	EnvironmentType   string         `json:"environment_type"`
	EnvironmentKwargs map[string]any `json:"environment_kwargs"`
	OtherBackends     []string       `json:"other_backends"`
	TaskID            string         `json:"task_id,omitempty"`  // ext
	Question          string         `json:"question,omitempty"` // ext
	Lang              string         `json:"lang,omitempty"`     // ext
}

// outcomeRecord is the content of the outcome file beside the trace. Traces written before it
// existed carry the same object as "outcome" on a second metadata line; Summarize reads both.
type outcomeRecord struct {
	Type             string       `json:"type"` // "outcome"
	Timestamp        string       `json:"timestamp"`
	TaskID           string       `json:"task_id,omitempty"`
	Status           string       `json:"status"`
	Answer           *string      `json:"answer"`
	Error            *errorRecord `json:"error"`
	PromptTokens     int          `json:"prompt_tokens"`
	CompletionTokens int          `json:"completion_tokens"`
	TotalTokens      int          `json:"total_tokens"`
	APICalls         int          `json:"api_calls"`
	WallTime         float64      `json:"wall_time"`
	Cost             *costRecord  `json:"cost,omitempty"`
}

// costRecord is the task's cost: usd is the dollars of the calls of known cost (null when no
// call's cost is known but some were made), unknown_calls the number of the others.
type costRecord struct {
	USD          *float64 `json:"usd"`
	UnknownCalls int      `json:"unknown_calls"`
}

type errorRecord struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

type iterationRecord struct {
	Type          string            `json:"type"`
	Iteration     int               `json:"iteration"`
	Timestamp     string            `json:"timestamp"`
	Prompt        []Message         `json:"prompt"`
	Response      string            `json:"response"`
	CodeBlocks    []codeBlockRecord `json:"code_blocks"`
	FinalAnswer   *string           `json:"final_answer"`
	IterationTime *float64          `json:"iteration_time"`
	Usage         *Usage            `json:"usage,omitempty"`        // ext
	ForcedFinal   bool              `json:"forced_final,omitempty"` // ext
}

type codeBlockRecord struct {
	Code   string       `json:"code"`
	Result resultRecord `json:"result"`
}

type resultRecord struct {
	Stdout        string            `json:"stdout"`
	Stderr        string            `json:"stderr"`
	Locals        map[string]string `json:"locals"`
	ExecutionTime float64           `json:"execution_time"`
	RLMCalls      []subCallRecord   `json:"rlm_calls"`
	FinalAnswer   *string           `json:"final_answer"`
	Error         *errorRecord      `json:"error,omitempty"`          // ext
	LocalTypes    map[string]string `json:"local_types,omitempty"`    // ext: variable → type
	LocalsOmitted int               `json:"locals_omitted,omitempty"` // ext: variables past MaxLocals
}

type subCallRecord struct {
	RootModel        string       `json:"root_model"`
	Prompt           string       `json:"prompt"`
	Response         string       `json:"response"`
	UsageSummary     usageSummary `json:"usage_summary"`
	ExecutionTime    float64      `json:"execution_time"`
	Error            *string      `json:"error,omitempty"`
	PromptTokens     int          `json:"prompt_tokens"`     // ext: what the visualizer reads
	CompletionTokens int          `json:"completion_tokens"` // ext: what the visualizer reads
	Backend          string       `json:"backend,omitempty"` // ext
}

type usageSummary struct {
	ModelUsageSummaries map[string]modelUsage `json:"model_usage_summaries"`
}

type modelUsage struct {
	TotalCalls        int      `json:"total_calls"`
	TotalInputTokens  int      `json:"total_input_tokens"`
	TotalOutputTokens int      `json:"total_output_tokens"`
	TotalCost         *float64 `json:"total_cost,omitempty"` // the reference's key; absent when unknown
}

// stamp formats t like Python's datetime.isoformat() with an explicit UTC offset.
func stamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000-07:00")
}

func seconds(d time.Duration) float64 { return d.Seconds() }

func create(path string, meta Metadata, r *redact.Redactor, now func() time.Time) (*Writer, error) {
	if r == nil {
		r = redact.New()
	}
	w := &Writer{path: path, red: r, now: now}
	rec, err := w.metadataRecord(meta)
	if err != nil {
		return nil, fmt.Errorf("trace %s: metadata: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("trace %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trace: create %w", err)
	}
	w.f, w.meta = f, rec
	rec.Timestamp = stamp(now())
	if err := w.writeLine(rec, "metadata"); err != nil {
		_ = f.Close()
		return nil, err
	}
	return w, nil
}

// writeLine encodes rec as one line, writes it with a single write and syncs the file.
func (w *Writer) writeLine(rec any, what string) error {
	if w.f == nil {
		return fmt.Errorf("trace %s: %s: %w", w.path, what, ErrFinished)
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("trace %s: encode %s: %w", w.path, what, err)
	}
	line = append(line, '\n')
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("trace %s: write %s: %w", w.path, what, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("trace %s: sync %s: %w", w.path, what, err)
	}
	return nil
}

func (w *Writer) metadataRecord(m Metadata) (metadataRecord, error) {
	bk, err := redactObject(w.red, m.BackendKwargs)
	if err != nil {
		return metadataRecord{}, fmt.Errorf("backend_kwargs: %w", err)
	}
	ek, err := redactObject(w.red, m.EnvironmentKwargs)
	if err != nil {
		return metadataRecord{}, fmt.Errorf("environment_kwargs: %w", err)
	}
	env := m.EnvironmentType
	if env == "" {
		env = "rlm-sandbox"
	}
	var others []string
	for _, o := range m.OtherBackends {
		others = append(others, w.red.String(o))
	}
	s := w.red.String
	return metadataRecord{Type: "metadata", RootModel: s(m.RootModel), MaxDepth: m.MaxDepth,
		MaxIterations: m.MaxIterations, Backend: s(m.Backend), BackendKwargs: bk,
		EnvironmentType: s(env), EnvironmentKwargs: ek, OtherBackends: others,
		TaskID: s(m.TaskID), Question: s(m.Question), Lang: s(m.Lang)}, nil
}

func (w *Writer) iterationRecord(it Iteration) iterationRecord {
	rec := iterationRecord{Type: "iteration", Iteration: w.n, Timestamp: stamp(w.now()),
		Prompt: []Message{}, Response: w.red.String(it.Response), CodeBlocks: []codeBlockRecord{},
		FinalAnswer: w.optional(it.FinalAnswer)}
	for _, m := range it.Prompt {
		rec.Prompt = append(rec.Prompt, Message{Role: w.red.String(m.Role), Content: w.red.String(m.Content)})
	}
	for _, b := range it.CodeBlocks {
		rec.CodeBlocks = append(rec.CodeBlocks, w.codeBlockRecord(b))
	}
	if it.Time > 0 {
		t := seconds(it.Time)
		rec.IterationTime = &t
	}
	if it.Usage != (Usage{}) {
		u := it.Usage
		u.Cost = finiteCost(u.Cost)
		rec.Usage = &u
	}
	rec.ForcedFinal = it.Forced
	return rec
}

func (w *Writer) codeBlockRecord(b CodeBlock) codeBlockRecord {
	res := resultRecord{Stdout: w.red.String(b.Stdout), Stderr: b.Stderr,
		Locals: map[string]string{}, ExecutionTime: seconds(b.Time),
		RLMCalls: []subCallRecord{}, FinalAnswer: w.optional(b.Final)}
	if b.ErrKind != "" || b.ErrMsg != "" {
		res.Error = &errorRecord{Kind: string(b.ErrKind), Message: w.red.String(b.ErrMsg)}
		res.Stderr += fmt.Sprintf("\n%s: %s", b.ErrKind, b.ErrMsg) // the reference's convention
	}
	res.Stderr = w.red.String(res.Stderr)
	w.locals(&res, b.Locals)
	for _, c := range b.SubCalls {
		res.RLMCalls = append(res.RLMCalls, subCallFor(w.red, c))
	}
	return codeBlockRecord{Code: w.red.String(b.Code), Result: res}
}

// locals writes vars into res under the caps documented on Var.
func (w *Writer) locals(res *resultRecord, vars []Var) {
	if len(vars) > MaxLocals {
		res.LocalsOmitted = len(vars) - MaxLocals
		vars = vars[:MaxLocals]
	}
	for _, v := range vars {
		name := w.red.String(clip(v.Name, MaxNameChars))
		res.Locals[name] = w.red.String(clip(v.Repr, MaxReprChars))
		if v.Type != "" {
			if res.LocalTypes == nil {
				res.LocalTypes = map[string]string{}
			}
			res.LocalTypes[name] = w.red.String(clip(v.Type, MaxTypeChars))
		}
	}
}

func subCallFor(r *redact.Redactor, c SubCall) subCallRecord {
	model := r.String(c.Model)
	if model == "" {
		model = "unknown" // the reference's placeholder for a missing model name
	}
	rec := subCallRecord{RootModel: model, Prompt: r.String(c.Prompt), Response: r.String(c.Response),
		UsageSummary: usageSummary{ModelUsageSummaries: map[string]modelUsage{model: {TotalCalls: 1,
			TotalInputTokens: c.Usage.PromptTokens, TotalOutputTokens: c.Usage.CompletionTokens, TotalCost: finiteCost(c.Usage.Cost)}}},
		ExecutionTime: seconds(c.Time), PromptTokens: c.Usage.PromptTokens,
		CompletionTokens: c.Usage.CompletionTokens, Backend: r.String(c.Backend)}
	if c.Error != "" {
		e := r.String(c.Error)
		rec.Error = &e
	}
	return rec
}

func (w *Writer) outcomeRecord(o Outcome) *outcomeRecord {
	rec := &outcomeRecord{Type: "outcome", TaskID: w.red.String(o.TaskID), Status: w.red.String(o.Status),
		PromptTokens: o.Usage.PromptTokens, CompletionTokens: o.Usage.CompletionTokens,
		TotalTokens: max(o.Tokens, o.Usage.PromptTokens+o.Usage.CompletionTokens), APICalls: o.Calls,
		WallTime: seconds(o.WallTime)}
	if o.Answer != "" || o.Status == "ANSWERED" {
		a := w.red.String(o.Answer)
		rec.Answer = &a
	}
	if o.ErrKind != "" || o.ErrMsg != "" {
		rec.Error = &errorRecord{Kind: string(o.ErrKind), Message: w.red.String(o.ErrMsg)}
	}
	rec.Cost = costRecordOf(o.Cost)
	return rec
}

func costRecordOf(c *Cost) *costRecord {
	if c == nil {
		return nil
	}
	rec := &costRecord{UnknownCalls: max(c.Unknown, 0)}
	if c.Unknown == 0 || c.USD != 0 {
		rec.USD = finiteCost(&c.USD)
	}
	return rec
}

// finiteCost is a copy of a cost that JSON can hold (a finite amount), else nil.
func finiteCost(c *float64) *float64 {
	if c == nil || math.IsNaN(*c) || math.IsInf(*c, 0) {
		return nil
	}
	v := *c
	return &v
}

func (w *Writer) optional(s *string) *string {
	if s == nil {
		return nil
	}
	r := w.red.String(*s)
	return &r
}

// redactObject returns m as decoded JSON with every string (keys included) redacted; a nil
// map gives an empty object, as the reference writes.
func redactObject(r *redact.Redactor, m map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if len(m) == 0 {
		return out, nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	v, _ := redactValue(r, out).(map[string]any)
	if v == nil {
		return nil, errors.New("not an object")
	}
	return v, nil
}

func redactValue(r *redact.Redactor, v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		for i := range x {
			x[i] = redactValue(r, x[i])
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[r.String(k)] = redactValue(r, e)
		}
		return m
	}
	return v
}
