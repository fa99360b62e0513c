package replay_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// TestParse: the forms of a reply file and the fields of a reply, as read.
func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     []replay.Reply
	}{
		{"array", `[{"text": "hello"}]`, []replay.Reply{{Text: "hello"}}},
		{"object", `{"replies": [{"text": "a"}, {"text": "b"}]}`, []replay.Reply{{Text: "a"}, {Text: "b"}}},
		{"empty reply", `[{}]`, []replay.Reply{{}}},
		{"every field", `[{"text": "t", "thinking": "th", "when": "^Q", "model": "m", "times": -1, "latency": "250ms", "chunk_delay": "2ms"}]`,
			[]replay.Reply{{Text: "t", Thinking: "th", Latency: 250 * time.Millisecond, ChunkDelay: 2 * time.Millisecond,
				Rule: replay.Rule{When: "^Q", Model: "m", Times: -1}}}},
		{"nulls and empty durations", `[{"text": null, "latency": ""}]`, []replay.Reply{{}}},
		{"white space", "\n\n  [ {\"times\": 3} ,\n {\"text\": \"x\"} ]  \n", []replay.Reply{{Rule: replay.Rule{Times: 3}}, {Text: "x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replay.Parse([]byte(tc.in))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestParseErrors: a mistake is refused with its line, the reply's number, what is wrong and
// what to write; a field that only llm/llmtest reads is refused as test-only.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in    string
		line, reply int
		want        string // in the message
	}{
		{"empty", "  \n", 0, 0, `the reply file is empty; write a JSON array of replies such as [{"text": "OK."}]`},
		{"no replies", "[]", 0, 0, `no replies, so every request would fail; add one such as {"text": "OK."}`},
		{"syntax", "[\n  {\"text\": \"a\"},\n  {\"text\" \"b\"}\n]", 3, 0, "not valid JSON (invalid character '\"' after object key)"},
		{"not an array", `"hello"`, 1, 0, `the file holds a string; a reply file is a JSON array of replies`},
		{"reply not an object", "[\n{\"text\": \"a\"},\n 42]", 3, 2, `the reply is a number; write an object such as {"text": "OK."}`},
		{"unknown field", `[{"txet": "typo"}]`, 1, 1, `unknown field "txet"; a reply has the fields text, thinking, when, model, times, latency and chunk_delay`},
		{"letter case", `[{"Text": "a"}]`, 1, 1, `field "Text": write it "text"`},
		{"test-only kind", "[\n {\"text\": \"a\"},\n {\"kind\": \"rate_limit\"}\n]", 3, 2, `"kind" is a test-only field: llm/llmtest's fake servers read it`},
		{"test-only status", `[{"text": "a", "status": 500}]`, 1, 1, `"status" is a test-only field`},
		{"test-only drop_after", `[{"drop_after": 3}]`, 1, 1, `"drop_after" is a test-only field`},
		{"text not a string", `[{"text": 42}]`, 1, 1, `text: want a string such as "OK.", not 42`},
		{"times not a number", `[{"times": "2"}]`, 1, 1, `times: want a whole number (1 = once, N = N times, -1 = every request), not "2"`},
		{"times below -1", `[{"times": -2}]`, 1, 1, `times: -2 is not a count; write 1 (once), N (N times) or -1 (every request)`},
		{"bad duration", `[{"latency": "soon"}]`, 1, 1, `latency: "soon" is not a duration`},
		{"negative duration", `[{"chunk_delay": "-1s"}]`, 1, 1, `chunk_delay: "-1s" is negative`},
		{"duration not a string", `[{"latency": 5}]`, 1, 1, `latency: want a Go duration in a string such as "250ms" or "2s", not 5`},
		{"bad when", `[{"when": "(x"}]`, 1, 1, `when: "(x" is not a regular expression`},
		{"replies not an array", "{\n\"replies\": 1}", 2, 0, `"replies" holds a number; write an array of replies`},
		{"other key", "{\"replies\": [],\n \"extra\": 1}", 2, 0, `unknown key "extra"; a reply file in the object form holds "replies" and "lang"`},
		{"object without replies", `{}`, 1, 0, `the object has no "replies"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replay.Parse([]byte(tc.in))
			var got *replay.Error
			if !errors.As(err, &got) {
				t.Fatalf("Parse = %v, want a *replay.Error", err)
			}
			if got.Line != tc.line || got.Reply != tc.reply || !strings.Contains(got.Msg, tc.want) {
				t.Errorf("got line %d, reply %d, %q; want line %d, reply %d, a message with %q", got.Line, got.Reply, got.Msg, tc.line, tc.reply, tc.want)
			}
		})
	}
}

// TestErrorString: an error names the file and the line, then the reply.
func TestErrorString(t *testing.T) {
	tests := []struct {
		err  replay.Error
		want string
	}{
		{replay.Error{File: "m.json", Line: 3, Reply: 2, Msg: "bad"}, "m.json:3: reply 2: bad"},
		{replay.Error{File: "m.json", Msg: "bad"}, "m.json: bad"},
		{replay.Error{Line: 4, Msg: "bad"}, "line 4: bad"},
		{replay.Error{Reply: 1, Msg: "bad"}, "reply 1: bad"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestLoad: Load reads a file and its errors name it; the demo's file loads.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("[\n{\"text\": \"a\", \"kind\": \"drop\"}\n]"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
		replies    int
	}{
		{"../../examples/demo/model.json", "", 3},
		{bad, bad + `:2: reply 1: "kind" is a test-only field`, 0},
		{filepath.Join(dir, "none.json"), "none.json", 0},
	}
	for _, tc := range tests {
		got, err := replay.Load(tc.path)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Load(%s) = %v, want an error with %q", tc.path, err, tc.want)
		}
		if len(got) != tc.replies {
			t.Errorf("Load(%s) gave %d replies, want %d", tc.path, len(got), tc.replies)
		}
	}
}

// TestReadKeepsOtherFields: Read leaves the fields it does not read to its caller, by name.
func TestReadKeepsOtherFields(t *testing.T) {
	es, err := replay.Read([]byte("[{\"text\": \"a\"},\n {\"kind\": \"loop\", \"text\": \"b\", \"tokens\": 9}]"))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		N, Line int
		Text    string
		Other   string
	}
	want := []got{{1, 1, "a", ""}, {2, 2, "b", `kind="loop" tokens=9`}}
	for i, e := range es {
		var other []string
		for _, k := range []string{"kind", "tokens"} {
			if v, ok := e.Other[k]; ok {
				other = append(other, k+"="+string(v))
			}
		}
		if g := (got{e.N, e.Line, e.Reply.Text, strings.Join(other, " ")}); i >= len(want) || g != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, g, want)
		}
	}
	if len(es) != len(want) {
		t.Errorf("%d entries, want %d", len(es), len(want))
	}
}

// TestLang: a reply file in the object form may name its replies' language; Read accepts the
// key and refuses any value but go and js, and an array names none.
func TestLang(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		body, lang, readErr string
	}{
		{`{"lang": "js", "replies": [{"text": "OK."}]}`, "js", ""},
		{`{"replies": [{"text": "OK."}], "lang": "go"}`, "go", ""},
		{`[{"text": "OK."}]`, "", ""},
		{`{"replies": [{"text": "OK."}]}`, "", ""},
		{`{"lang": "python", "replies": []}`, "python", `"lang" is the language of the replies' code: "go" or "js"`},
	} {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := replay.Lang(p); err != nil || got != tc.lang {
			t.Errorf("Lang(%s) = %q, %v; want %q", tc.body, got, err, tc.lang)
		}
		_, err := replay.Read([]byte(tc.body))
		if (tc.readErr == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.readErr) {
			t.Errorf("Read(%s) = %v; want %q", tc.body, err, tc.readErr)
		}
	}
}
