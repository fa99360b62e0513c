package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/repl"
)

func TestExtract(t *testing.T) {
	tests := []struct {
		name, reply, lang string
		want              []string
	}{
		{"repl fence", "x\n```repl\na := 1\n```\n", "go", []string{"a := 1"}},
		{"own language", "```go\nprint(1)\n```\n```js\nprint(2)\n```", "go", []string{"print(1)"}},
		{"js names", "```javascript\nA\n```\n```JS\nB\n```\n```go\nC\n```", "js", []string{"A", "B"}},
		{"in order", "```repl\n1\n```\ntext\n```js\n2\n```", "js", []string{"1", "2"}},
		{"other languages ignored", "```python\nprint(1)\n```\n```\nbare\n```", "js", nil},
		{"unclosed runs nothing", "```repl\nwhile(true){}", "js", nil},
		{"longer fence holds backticks", "````repl\nconst s = \"```\"\n````", "js", []string{"const s = \"```\""}},
		{"inline backticks are not fences", "use ```repl``` fences", "js", nil},
		{"prose FINAL is not code", "FINAL(42)", "js", nil},
		{"indented fence", "  ```repl\n  x\n  ```", "js", []string{"  x"}},
		{"info string after tag", "```js title=a\nq\n```", "js", []string{"q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Extract(tt.reply, tt.lang); !slices.Equal(got, tt.want) {
				t.Errorf("Extract = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	s := strings.Repeat("a", 60) + strings.Repeat("z", 40)
	got := clip(s, 30)
	if !strings.HasPrefix(got, strings.Repeat("a", 20)) || !strings.HasSuffix(got, strings.Repeat("z", 10)) || !strings.Contains(got, "70 of 100 characters omitted") {
		t.Errorf("clip = %q", got)
	}
	if clip("short", 30) != "short" {
		t.Errorf("short text must pass unchanged")
	}
}

func TestSystemPromptFromRegistry(t *testing.T) {
	for _, lang := range []string{"go", "js"} {
		cfg := Config{Session: replOpts(lang), MaxSubCalls: 7}
		p := SystemPrompt(cfg)
		for _, f := range engine.API {
			if !strings.Contains(p, f.Name+"(") || !strings.Contains(p, f.Describe(apiLimits(cfg.withDefaults()))) {
				t.Errorf("%s prompt lacks %s and its doc", lang, f.Name)
			}
		}
		if !strings.Contains(p, "at most 7 per run") {
			t.Errorf("%s prompt: llm_query's doc line does not state this run's sub-call cap", lang)
		}
		if !strings.Contains(p, "Sub-calls: 7 per run") {
			t.Errorf("%s prompt does not state the sub-call cap", lang)
		}
	}
	if p := SystemPrompt(Config{Session: replOpts("go")}); !strings.Contains(p, "Match{Start int; End int; Line int; Text string") {
		t.Errorf("Go prompt must describe Match from its type:\n%s", p)
	}
}

func TestCompact(t *testing.T) {
	r := &run{cfg: Config{Window: 1000}.withDefaults()}
	r.msgs = []llm.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "Q"}}
	for i := range 20 {
		r.msgs = append(r.msgs, llm.Message{Role: "assistant", Content: fmt.Sprintf("code %d %s", i, strings.Repeat("x", 300))},
			llm.Message{Role: "user", Content: fmt.Sprintf("out %d %s", i, strings.Repeat("y", 300))})
	}
	r.compact()
	if got := estimateTokens(r.msgs); got > 850 {
		t.Errorf("after compaction the history is about %d tokens; want under 85%% of 1000", got)
	}
	if r.msgs[0].Content != "S" || r.msgs[1].Content != "Q" || !strings.HasPrefix(r.msgs[2].Content, compactNote) {
		t.Errorf("compaction must keep the system prompt and question, then a note: %+v", r.msgs[:3])
	}
	if last := r.msgs[len(r.msgs)-1].Content; !strings.HasPrefix(last, "out 19") {
		t.Errorf("the newest message must survive, got %q", last[:10])
	}
	if r.msgs[3].Role != "assistant" {
		t.Errorf("the kept part must start with an assistant turn")
	}
}

func replOpts(lang string) repl.Options { return repl.Options{Lang: lang} }

// TestCompactOversizedNewest: a newest message larger than the window on its own is cut, so the
// history fits, and the note says what was dropped.
func TestCompactOversizedNewest(t *testing.T) {
	r := &run{cfg: Config{Window: 1000}.withDefaults()}
	r.msgs = []llm.Message{{Role: "system", Content: "S"}, {Role: "user", Content: "Q"},
		{Role: "assistant", Content: "code"}, {Role: "user", Content: strings.Repeat("z", 60_000)}}
	r.compact()
	if got := estimateTokens(r.msgs); got > 1000 {
		t.Errorf("after compaction the history is about %d tokens; want it to fit the window of 1000", got)
	}
	if last := r.msgs[len(r.msgs)-1].Content; !strings.Contains(last, "of 60000 characters omitted") {
		t.Errorf("the oversized message must be clipped with its true length, got %q", last[:50])
	}
}

func TestFeedbackBounded(t *testing.T) {
	var fb feedbackBuilder
	res := repl.Result{Stdout: strings.Repeat("o", 25_000), Err: errors.New(strings.Repeat("e", 100_000))}
	needs := make([]int, 40)
	for i := range needs {
		needs[i] = need(res)
	}
	for i, limit := range shares(needs, limits.FeedbackChars) {
		fb.cell(i, 40, "", res, limit)
	}
	if got := len([]rune(fb.text(2 * limits.FeedbackChars))); got > 2*limits.FeedbackChars+200 {
		t.Errorf("feedback of 40 large blocks is %d characters; want at most about %d", got, 2*limits.FeedbackChars)
	}
}

// TestFeedbackShares: the blocks of a reply share the feedback: one that prints little leaves
// the rest to the others, and none gets less than limits.MinBlockChars.
func TestFeedbackShares(t *testing.T) {
	min := limits.MinBlockChars
	for _, tc := range []struct {
		need  []int
		total int
		want  []int
	}{
		{[]int{50_000, 200}, 20_000, []int{19_800, 200}},
		{[]int{50_000, 50_000}, 20_000, []int{10_000, 10_000}},
		{[]int{100, 200, 300}, 20_000, []int{100, 200, 300}},
		{[]int{30_000, 5_000, 30_000}, 20_000, []int{7_500, 5_000, 7_500}},
		{[]int{0, 90_000}, 20_000, []int{0, 20_000}},
		{[]int{9_000, 9_000, 9_000}, 2_000, []int{min, min, min}},
		{nil, 20_000, []int{}},
	} {
		got := shares(tc.need, tc.total)
		want := tc.want
		for i := range want { // a block that needs less than the minimum may show the minimum
			if tc.need[i] < min {
				want[i] = min
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("shares(%v, %d) = %v, want %v", tc.need, tc.total, got, want)
		}
	}
}
