package replay_test

import (
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/llm/replay"
)

// TestQueue: a request takes the first value whose rule matches, times counts the uses, -1
// never runs out, keep answers without using up.
func TestQueue(t *testing.T) {
	var q replay.Queue[string]
	for _, p := range []struct {
		rule replay.Rule
		v    string
	}{
		{replay.Rule{When: "^Q", Times: 2}, "question"},
		{replay.Rule{Model: "big"}, "big"},
		{replay.Rule{When: "sub", Times: -1}, "sub"},
		{replay.Rule{}, "kept"},
		{replay.Rule{}, "any"},
	} {
		if err := q.Push(p.rule, p.v); err != nil {
			t.Fatal(err)
		}
	}
	keep := func(v string) bool { return v == "kept" }
	tests := []struct {
		model, user string
		want        string // "" = none matches
		pending     int
	}{
		{"m", "Q1", "question", 5},
		{"m", "Q2", "question", 4},
		{"m", "Q3", "kept", 4}, // the question is used up, and "big" wants another model
		{"big", "Q3", "big", 3},
		{"m", "a sub-call", "sub", 3},
		{"m", "a sub-call", "sub", 3},
		{"m", "other", "kept", 3},
		{"m", "other", "kept", 3},
	}
	for i, tc := range tests {
		got, ok := q.Take(tc.model, tc.user, keep)
		if !ok {
			got = ""
		}
		if got != tc.want || q.Len() != tc.pending {
			t.Errorf("take %d (%s, %q) = %q with %d pending, want %q with %d", i+1, tc.model, tc.user, got, q.Len(), tc.want, tc.pending)
		}
	}
}

// TestQueueRules: a rule that cannot work is refused, saying why.
func TestQueueRules(t *testing.T) {
	tests := []struct {
		rule replay.Rule
		want string // "" = accepted
	}{
		{replay.Rule{}, ""},
		{replay.Rule{When: `^Q\d+`, Model: "m", Times: 5}, ""},
		{replay.Rule{Times: -1}, ""},
		{replay.Rule{Times: -3}, "times: -3 is not a count"},
		{replay.Rule{When: "[a-"}, `when: "[a-" is not a regular expression`},
	}
	for _, tc := range tests {
		var q replay.Queue[int]
		err := q.Push(tc.rule, 1)
		if got := errString(err); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Push(%+v) = %q, want %q", tc.rule, got, tc.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
