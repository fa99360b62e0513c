package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/tools"
)

// Reply is one scripted answer of a reply file.
type Reply struct {
	Text     string // the answer, streamed a token at a time; "" = "OK."
	Thinking string // reasoning streamed before the answer
	// Latency delays the response; ChunkDelay delays every token.
	Latency    time.Duration
	ChunkDelay time.Duration
	Rule
}

// maxFile is the largest reply file read.
const maxFile = 64 << 20

// healthy are the fields of a reply that this package reads, in the order the messages list
// them.
var healthy = []string{"text", "thinking", "when", "model", "times", "latency", "chunk_delay"}

// testOnly are the other fields of llm/llmtest's reply files: faults (kind, status, drop_after,
// …) and other servers' quirks (dialect, cost, …). llmtest's TestTestOnlyFields keeps the list
// equal to the fields it reads.
var testOnly = []string{"kind", "tokens", "top_k", "dialect", "finish_reason", "status", "retry_after", "message",
	"drop_after", "no_logprobs", "no_usage", "prompt_tokens", "reject_logprobs", "reject_max_tokens", "reject_field",
	"max_output", "cached_tokens", "cost", "error_type"}

// Error is a mistake in a reply file: where it is, what is wrong and what to write instead.
type Error struct {
	File  string // "" when the replies came as bytes
	Line  int    // 1-based; 0 = the file as a whole
	Reply int    // 1-based; 0 = not one reply
	Msg   string
}

func (e *Error) Error() string {
	var where []string
	switch {
	case e.File != "" && e.Line > 0:
		where = append(where, fmt.Sprintf("%s:%d", e.File, e.Line))
	case e.File != "":
		where = append(where, e.File)
	case e.Line > 0:
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Reply > 0 {
		where = append(where, fmt.Sprintf("reply %d", e.Reply))
	}
	return strings.Join(append(where, e.Msg), ": ")
}

// Entry is one reply as its file has it: its place, the fields this package reads, and the
// others by name, unjudged (Parse refuses them; llm/llmtest reads them).
type Entry struct {
	File    string // "" when the replies came as bytes
	N, Line int    // the reply's number and the line it starts on, both 1-based
	Reply   Reply
	Other   map[string]json.RawMessage
}

// Errorf is an error about the entry, at its place.
func (e Entry) Errorf(format string, a ...any) *Error {
	return &Error{File: e.File, Line: e.Line, Reply: e.N, Msg: fmt.Sprintf(format, a...)}
}

// Load reads the reply file at path (see the package documentation): a regular file (a fifo is
// refused, never waited on) of at most 64 MiB, with one reply at least and only the fields
// this package plays.
func Load(path string) ([]Reply, error) {
	es, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return check(es, &Error{File: path})
}

// Parse reads a reply file's content, as Load does.
func Parse(b []byte) ([]Reply, error) {
	es, err := Read(b)
	if err != nil {
		return nil, err
	}
	return check(es, &Error{})
}

// check refuses a file without replies and a reply with a field this package does not play.
func check(es []Entry, whole *Error) ([]Reply, error) {
	if len(es) == 0 {
		whole.Msg = `no replies, so every request would fail; add one such as {"text": "OK."}`
		return nil, whole
	}
	out := make([]Reply, len(es))
	for i, e := range es {
		for _, name := range slices.Sorted(maps.Keys(e.Other)) {
			if slices.Contains(testOnly, name) {
				return nil, e.Errorf("%q is a test-only field: llm/llmtest's fake servers read it (faults, other servers' quirks), and a replay plays healthy replies only (%s); remove it, or play the file with llmtest in a test", name, fieldList())
			}
			return nil, e.Errorf("unknown field %q; a reply has the fields %s", name, fieldList())
		}
		out[i] = e.Reply
	}
	return out, nil
}

func fieldList() string {
	return strings.Join(healthy[:len(healthy)-1], ", ") + " and " + healthy[len(healthy)-1]
}

// Lang is the language a reply file names for its replies' code ({"lang": "js", "replies":
// [...]}): "go", "js", or "" when it names none (an array, or an object without "lang").
func Lang(path string) (string, error) {
	b, err := tools.ReadRegular(path, maxFile)
	if err != nil {
		return "", err
	}
	var f struct {
		Lang string `json:"lang"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && json.Unmarshal(b, &f) == nil {
		return f.Lang, nil
	}
	return "", nil
}

// ReadFile reads the reply file at path as Read does, its errors naming the file.
func ReadFile(path string) ([]Entry, error) {
	b, err := tools.ReadRegular(path, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w; pass the path of a reply file (a JSON array of replies, such as examples/demo/model.json)", err)
	}
	if err != nil {
		return nil, err
	}
	es, err := Read(b)
	var fe *Error
	if errors.As(err, &fe) {
		fe.File = path
	}
	for i := range es {
		es[i].File = path
	}
	return es, err
}

// Read reads a reply file's content: a JSON array of replies, or an object {"replies": [...]}.
// Each reply's own fields are decoded and checked (Decode); the others are left in Entry.Other.
// Errors are *Error.
func Read(b []byte) ([]Entry, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, &Error{Msg: `the reply file is empty; write a JSON array of replies such as [{"text": "OK."}]`}
	}
	var v json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &Error{Line: lineAt(b, int(se.Offset)), Msg: fmt.Sprintf(`not valid JSON (%v); a reply file is a JSON array of replies such as [{"text": "OK."}]`, err)}
		}
		return nil, &Error{Msg: err.Error()}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	tok, _ := d.Token()
	switch tok {
	case json.Delim('['):
		return readArray(b, d)
	case json.Delim('{'):
		return readObject(b, d)
	}
	return nil, &Error{Line: lineAt(b, start(b, 0)), Msg: fmt.Sprintf(`the file holds %s; a reply file is a JSON array of replies such as [{"text": "OK."}], or {"replies": [...]}`, kindOf(v))}
}

// readObject reads {"replies": [...]}, the opening brace read.
func readObject(b []byte, d *json.Decoder) ([]Entry, error) {
	var es []Entry
	seen := false
	for d.More() {
		at := start(b, int(d.InputOffset()))
		key, _ := d.Token()
		if key == "lang" {
			var lang string
			if err := d.Decode(&lang); err != nil || lang != "go" && lang != "js" {
				return nil, &Error{Line: lineAt(b, at), Msg: `"lang" is the language of the replies' code: "go" or "js"`}
			}
			continue
		}
		if key != "replies" {
			return nil, &Error{Line: lineAt(b, at), Msg: fmt.Sprintf(`unknown key %q; a reply file in the object form holds "replies" and "lang": {"lang": "js", "replies": [...]}`, key)}
		}
		if at = start(b, int(d.InputOffset())); b[at] != '[' {
			var v json.RawMessage
			d.Decode(&v)
			return nil, &Error{Line: lineAt(b, at), Msg: fmt.Sprintf(`"replies" holds %s; write an array of replies such as [{"text": "OK."}]`, kindOf(v))}
		}
		d.Token()
		var err error
		if es, err = readArray(b, d); err != nil {
			return nil, err
		}
		seen = true
	}
	if !seen {
		return nil, &Error{Line: 1, Msg: `the object has no "replies"; write {"replies": [{"text": "OK."}]}, or the array alone`}
	}
	return es, nil
}

// readArray reads the replies of an array whose opening bracket was read, and the closing one.
func readArray(b []byte, d *json.Decoder) ([]Entry, error) {
	var es []Entry
	for d.More() {
		at := start(b, int(d.InputOffset()))
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return nil, &Error{Line: lineAt(b, at), Msg: err.Error()}
		}
		e := Entry{N: len(es) + 1, Line: lineAt(b, at)}
		if raw[0] != '{' {
			return nil, e.Errorf(`the reply is %s; write an object such as {"text": "OK."}`, kindOf(raw))
		}
		var err error
		if e.Reply, e.Other, err = Decode(raw); err != nil {
			return nil, e.Errorf("%v", err)
		}
		es = append(es, e)
	}
	d.Token()
	return es, nil
}

// start skips white space, commas and colons from offset i: where the next value begins.
func start(b []byte, i int) int {
	for i < len(b) && strings.IndexByte(" \t\r\n,:", b[i]) >= 0 {
		i++
	}
	return min(i, len(b)-1)
}

// lineAt is the 1-based line of offset i.
func lineAt(b []byte, i int) int {
	return bytes.Count(b[:min(i, len(b))], []byte("\n")) + 1
}

// kindOf names a JSON value's kind for a message.
func kindOf(v json.RawMessage) string {
	switch v = bytes.TrimSpace(v); {
	case len(v) == 0:
		return "nothing"
	case v[0] == '"':
		return "a string"
	case v[0] == '[':
		return "an array"
	case v[0] == '{':
		return "an object"
	case v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v[0] == 'n':
		return "null"
	}
	return "a number"
}

// Decode reads one reply object: the fields this package reads, checked (a string where a
// string goes, a Go duration, a rule Queue accepts), and the other fields by name, unjudged.
// A field written in other letter cases than its name ("Text") is an error, not another field.
func Decode(raw []byte) (Reply, map[string]json.RawMessage, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return Reply{}, nil, fmt.Errorf(`not a JSON object (%v); write a reply such as {"text": "OK."}`, err)
	}
	var r Reply
	for _, name := range slices.Sorted(maps.Keys(all)) {
		if err := r.set(name, all[name]); err != nil {
			return Reply{}, nil, err
		}
		if slices.Contains(healthy, name) {
			delete(all, name)
		}
	}
	if _, err := r.Rule.compile(); err != nil {
		return Reply{}, nil, err
	}
	return r, all, nil
}

// set decodes the field name into r; a field it does not read is left alone.
func (r *Reply) set(name string, v json.RawMessage) error {
	var err error
	switch name {
	case "text":
		err = decodeString(v, &r.Text)
	case "thinking":
		err = decodeString(v, &r.Thinking)
	case "when":
		err = decodeString(v, &r.When)
	case "model":
		err = decodeString(v, &r.Model)
	case "times":
		err = decodeTimes(v, &r.Times)
	case "latency":
		err = decodeDuration(v, &r.Latency)
	case "chunk_delay":
		err = decodeDuration(v, &r.ChunkDelay)
	default:
		for _, h := range healthy {
			if strings.EqualFold(name, h) {
				return fmt.Errorf("field %q: write it %q (field names are in lower case)", name, h)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func decodeString(v json.RawMessage, dst *string) error {
	if json.Unmarshal(v, dst) != nil {
		return fmt.Errorf(`want a string such as "OK.", not %s`, clip(v))
	}
	return nil
}

func decodeTimes(v json.RawMessage, dst *int) error {
	if json.Unmarshal(v, dst) != nil {
		return fmt.Errorf("want a whole number (1 = once, N = N times, -1 = every request), not %s", clip(v))
	}
	return nil
}

func decodeDuration(v json.RawMessage, dst *time.Duration) error {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return fmt.Errorf(`want a Go duration in a string such as "250ms" or "2s", not %s`, clip(v))
	}
	if s == "" {
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf(`%q is not a duration (%v); write a Go duration such as "250ms" or "2s"`, s, err)
	case d < 0:
		return fmt.Errorf(`%q is negative; write a duration of 0 or more such as "250ms"`, s)
	}
	*dst = d
	return nil
}

// clip is a JSON value for a message: its first 40 characters.
func clip(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}
