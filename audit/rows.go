package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/fault"
)

// timeLayout is fixed-width, so stored times compare correctly as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// maxJSONString caps each string inside a JSON column (tool arguments, findings, metadata).
const maxJSONString = 2000

// stamp formats t (or now, when t is zero) for storage.
func (d *DB) stamp(t time.Time) string {
	if t.IsZero() {
		t = d.now()
	}
	return t.UTC().Format(timeLayout)
}

// text redacts s, then truncates it to MaxText characters.
func (d *DB) text(s string) string {
	return truncate(d.red.String(s), MaxText)
}

// truncate keeps the first max code points of s and appends a marker stating the true length.
func truncate(s string, max int) string {
	if len(s) <= max { // bytes >= code points
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	cut, i := 0, 0
	for cut = range s {
		if i == max {
			break
		}
		i++
	}
	return s[:cut] + fmt.Sprintf("\n…[truncated: %d of %d chars shown]", max, n)
}

// jsonText encodes v as JSON with every string in it redacted and capped, or returns empty
// when v is nil. A result longer than MaxText is stored as a JSON string holding its truncation.
func (d *DB) jsonText(v any, empty string) (string, error) {
	if v == nil {
		return empty, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return "", err
	}
	if generic == nil {
		return empty, nil
	}
	out, err := json.Marshal(d.redactJSON(generic))
	if err != nil {
		return "", err
	}
	if utf8.RuneCount(out) > MaxText {
		out, err = json.Marshal(truncate(string(out), MaxText))
	}
	return string(out), err
}

// redactJSON returns v (decoded JSON) with every string, keys included, redacted and capped.
func (d *DB) redactJSON(v any) any {
	switch x := v.(type) {
	case string:
		return truncate(d.red.String(x), maxJSONString)
	case []any:
		for i := range x {
			x[i] = d.redactJSON(x[i])
		}
		return x
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[d.red.String(k)] = d.redactJSON(e)
		}
		return m
	}
	return v
}

// errf wraps a non-nil err with what was being done and where; it returns nil for nil.
func (d *DB) errf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("audit %s: %s: %w", d.path, fmt.Sprintf(format, args...), err)
}

// affected turns an update that matched no row into ErrNotFound.
func affected(res sql.Result, err error, id string) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(timeLayout, s)
}

const taskColumns = `id, question, status, answer, error_kind, error_message, calls, tokens, pid,
	started_at, ended_at, ctx_files, ctx_metadata, lang, model, cost_usd, cost_unknown`

func (d *DB) queryTasks(ctx context.Context, tail string, args ...any) ([]Task, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+taskColumns+` FROM tasks `+tail, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Task
	for rows.Next() {
		var t Task
		var started, ended, files, meta string
		if err := rows.Scan(&t.ID, &t.Question, &t.Status, &t.Answer, &t.ErrorKind,
			&t.ErrorMessage, &t.Calls, &t.Tokens, &t.PID, &started, &ended, &files, &meta,
			&t.Lang, &t.Model, &t.CostUSD, &t.CostUnknown); err != nil {
			return nil, err
		}
		if err := scanTaskText(&t, started, ended, files, meta); err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func scanTaskText(t *Task, started, ended, files, meta string) (err error) {
	if t.StartedAt, err = parseTime(started); err != nil {
		return err
	}
	if t.EndedAt, err = parseTime(ended); err != nil {
		return err
	}
	if err = json.Unmarshal([]byte(files), &t.CtxFiles); err != nil {
		return fmt.Errorf("ctx_files: %w", err)
	}
	if err = json.Unmarshal([]byte(meta), &t.CtxMetadata); err != nil {
		return fmt.Errorf("ctx_metadata: %w", err)
	}
	return nil
}

func (d *DB) queryCalls(ctx context.Context, task string) ([]APICall, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT task, agent, model, backend, prompt_tokens,
		completion_tokens, cached_tokens, source, cost_usd, latency_ms, status, error, at FROM api_calls WHERE task = ? ORDER BY id`, task)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []APICall
	for rows.Next() {
		var c APICall
		var ms int64
		var at string
		var cost sql.NullFloat64
		if err := rows.Scan(&c.Task, &c.Agent, &c.Model, &c.Backend, &c.PromptTokens, &c.CompletionTokens,
			&c.CachedTokens, &c.Source, &cost, &ms, &c.Status, &c.Error, &at); err != nil {
			return nil, err
		}
		if cost.Valid {
			c.CostUSD = &cost.Float64
		}
		c.Latency = time.Duration(ms) * time.Millisecond
		if c.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (d *DB) querySteps(ctx context.Context, task string) ([]Step, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT task, step, attempt, code, output, decision,
		findings, error_kind, at FROM steps WHERE task = ? ORDER BY id`, task)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Step
	for rows.Next() {
		var s Step
		var findings, at, kind string
		if err := rows.Scan(&s.Task, &s.Step, &s.Attempt, &s.Code, &s.Output, &s.Decision,
			&findings, &kind, &at); err != nil {
			return nil, err
		}
		s.Findings, s.ErrorKind = json.RawMessage(findings), fault.Kind(kind)
		if s.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func (d *DB) queryTools(ctx context.Context, task string) ([]ToolCall, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT task, step, name, args, result, error,
		duration_ms, at FROM tool_calls WHERE task = ? ORDER BY id`, task)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ToolCall
	for rows.Next() {
		var c ToolCall
		var args, at string
		var ms int64
		if err := rows.Scan(&c.Task, &c.Step, &c.Name, &args, &c.Result, &c.Error, &ms,
			&at); err != nil {
			return nil, err
		}
		c.Args, c.Duration = json.RawMessage(args), time.Duration(ms)*time.Millisecond
		if c.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
