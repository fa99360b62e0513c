package monitor

import (
	"strings"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	want := Config{
		MinTokensBeforeAbort: 50, EntropyThreshold: 4.0, EntropySpikeThreshold: 2.0,
		RepetitionThreshold: 0.3, PerplexityWindow: 20, MaxLengthMultiplier: 2.0,
		EntropySustainedCount: 10, NgramSize: 3, CombinedThreshold: 0.7,
		LoopMinSpan: 24, MaxLoopPeriod: 128,
	}
	for name, c := range map[string]Config{
		"zero":     {},
		"negative": {MinTokensBeforeAbort: -1, EntropyThreshold: -4, NgramSize: -3, CombinedThreshold: -1},
	} {
		if got := New(c, 0).Config(); got != want {
			t.Errorf("%s: New(...).Config() = %+v, want %+v", name, got, want)
		}
	}
	if got := (Config{NgramSize: 50}).withDefaults().NgramSize; got != maxNgram {
		t.Errorf("NgramSize 50 clamps to %d, got %d", maxNgram, got)
	}
}

func TestForTier(t *testing.T) {
	tests := []struct {
		tier                Tier
		entropy, spike, rep float64
		minTokens           int
	}{
		{TierWorker, 4.5, 2.5, 0.3, 50},
		{TierCoder, 5.0, 3.0, 0.2, 100},
		{TierArchitect, 6.0, 4.0, 0.4, 200},
		{TierIngest, 5.5, 3.5, 0.3, 100},
		{"unknown", 4.0, 2.0, 0.3, 50},
	}
	for _, tt := range tests {
		c := ForTier(tt.tier)
		if c.EntropyThreshold != tt.entropy || c.EntropySpikeThreshold != tt.spike ||
			c.RepetitionThreshold != tt.rep || c.MinTokensBeforeAbort != tt.minTokens {
			t.Errorf("ForTier(%s) = %+v", tt.tier, c)
		}
		if c.PerplexityWindow != 20 || c.CombinedThreshold != 0.7 {
			t.Errorf("ForTier(%s) changed a field it should not: %+v", tt.tier, c)
		}
	}
}

func TestForTask(t *testing.T) {
	tests := []struct {
		task                     Task
		entropy                  float64
		minTokens, ngram, window int
	}{
		{TaskReasoning, 4.5, 30, 3, 15},
		{TaskCode, 4.0, 100, 4, 20},
		{TaskGeneral, 4.0, 50, 3, 20},
		{"unknown", 4.0, 50, 3, 20},
	}
	for _, tt := range tests {
		c := ForTask(tt.task)
		if c.EntropyThreshold != tt.entropy || c.MinTokensBeforeAbort != tt.minTokens ||
			c.NgramSize != tt.ngram || c.PerplexityWindow != tt.window {
			t.Errorf("ForTask(%s) = %+v", tt.task, c)
		}
	}
	// A task overrides a tier's fields it names and keeps the others.
	c := ForTier(TierArchitect).WithTask(TaskReasoning)
	if c.EntropyThreshold != 4.5 || c.MinTokensBeforeAbort != 30 || c.EntropySpikeThreshold != 4.0 ||
		c.RepetitionThreshold != 0.4 || c.PerplexityWindow != 15 {
		t.Errorf("architect+reasoning = %+v", c)
	}
}

// loopTokens is n tokens of a period-3 loop.
func loopTokens(n int) []Token {
	var out []Token
	for i := 0; i < n; i++ {
		out = append(out, Token{Text: []string{" check", " the", " total"}[i%3]})
	}
	return out
}

func feed(m *Monitor, toks []Token) Verdict {
	v := Verdict{Reason: ReasonNone}
	for _, t := range toks {
		if v = m.Observe(t); v.Abort {
			break
		}
	}
	return v
}

func TestFinishReason(t *testing.T) {
	healthy := generateStreams(11, false)[0].Tokens[:120]
	tests := []struct {
		name       string
		toks       []Token
		finish     string
		wantAbort  bool
		wantReason AbortReason
		wantTokens int
	}{
		{"vLLM repetition aborts even before the minimum", healthy[:3], "repetition", true, ReasonBackendRepetition, 3},
		{"vLLM repetition on a healthy stream", healthy, "repetition", true, ReasonBackendRepetition, 120},
		{"stop", healthy, "stop", false, ReasonNone, 120},
		{"length is not degeneration by itself", healthy, "length", false, ReasonNone, 120},
		{"Anthropic end_turn", healthy, "end_turn", false, ReasonNone, 120},
		{"empty reason", healthy, "", false, ReasonNone, 120},
		{"an earlier abort is kept", loopTokens(200), "repetition", true, ReasonLoop, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Config{}, 0)
			feed(m, tt.toks)
			v := m.Finish(tt.finish)
			if v.Abort != tt.wantAbort || v.Reason != tt.wantReason || v.Tokens != tt.wantTokens {
				t.Errorf("Finish(%q) = %+v; want abort %v reason %s tokens %d", tt.finish, v,
					tt.wantAbort, tt.wantReason, tt.wantTokens)
			}
			if v.Abort && v.Detail == "" {
				t.Errorf("abort without a detail: %+v", v)
			}
		})
	}
}

func TestMinTokensAndStickyAbort(t *testing.T) {
	m := New(Config{MinTokensBeforeAbort: 70}, 0)
	v := feed(m, loopTokens(200))
	if !v.Abort || v.Reason != ReasonLoop || v.Tokens != 70 {
		t.Fatalf("a loop from token 0 aborts exactly at the minimum: %+v", v)
	}
	if !strings.Contains(v.Detail, "period 3 tokens") {
		t.Errorf("detail %q does not name the period", v.Detail)
	}
	if again := m.Observe(Token{Text: " new"}); again != v {
		t.Errorf("Observe after abort = %+v, want the same %+v", again, v)
	}
	if fin := m.Finish("stop"); fin != v {
		t.Errorf("Finish after abort = %+v, want the same %+v", fin, v)
	}
}

func TestRunawayLength(t *testing.T) {
	toks := generateStreams(12, false)[0].Tokens // healthy prose, ≥ 350 tokens
	tests := []struct {
		name       string
		cfg        Config
		expected   int
		wantTokens int // 0: no abort
	}{
		{"unknown expected length", Config{}, 0, 0},
		{"2 × 100", Config{}, 100, 201},
		{"3 × 100", Config{MaxLengthMultiplier: 3}, 100, 301},
		{"the minimum still applies", Config{MinTokensBeforeAbort: 80}, 10, 80},
		{"long enough", Config{}, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := feed(New(tt.cfg, tt.expected), toks[:350])
			if tt.wantTokens == 0 && v.Abort || tt.wantTokens > 0 && (v.Reason != ReasonRunawayLength || v.Tokens != tt.wantTokens) {
				t.Errorf("verdict %+v, want runaway at %d", v, tt.wantTokens)
			}
		})
	}
}

func TestObserveDoesNotAllocate(t *testing.T) {
	for _, f := range []string{fixtureLogprobs, fixtureText} {
		streams, err := loadFixtures(f)
		if err != nil {
			t.Fatal(err)
		}
		toks := streams[0].Tokens // healthy, never aborts
		m := New(Config{}, 0)
		i := 0
		allocs := testing.AllocsPerRun(len(toks)-1, func() {
			m.Observe(toks[i])
			i++
		})
		if allocs != 0 {
			t.Errorf("%s: %.2f allocations per Observe, want 0", f, allocs)
		}
	}
}
