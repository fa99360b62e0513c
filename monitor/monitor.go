package monitor

import (
	"fmt"
	"math"
)

// Token is one streamed unit of a generation: one model token when the backend
// reports logprobs, or one text delta when it does not.
type Token struct {
	Text string
	// Logprob is the natural-log probability of the emitted token.
	Logprob float64
	// TopLogprobs are natural-log probabilities of the top-k candidates at this
	// position, in any order, with or without the emitted token. Values at or
	// below -1000 (OpenAI reports -9999 outside its top 20), NaN and +Inf are
	// ignored. The slice is read during Observe and never retained.
	TopLogprobs []float64
	// HasLogprobs says Logprob/TopLogprobs are meaningful. Without it the token
	// only feeds the text detectors.
	HasLogprobs bool
}

// AbortReason says why a generation was (or was not) aborted.
type AbortReason string

// Abort reasons. The first seven are the original specification; the others
// come from the separate loop and text detectors and from the backend.
const (
	ReasonNone              AbortReason = "none"
	ReasonHighEntropy       AbortReason = "high_entropy"
	ReasonEntropySpike      AbortReason = "entropy_spike"
	ReasonHighRepetition    AbortReason = "high_repetition"
	ReasonRisingPerplexity  AbortReason = "rising_perplexity"
	ReasonRunawayLength     AbortReason = "runaway_length"
	ReasonCombinedSignals   AbortReason = "combined_signals"
	ReasonLoop              AbortReason = "loop"
	ReasonGibberish         AbortReason = "gibberish"
	ReasonBackendRepetition AbortReason = "backend_repetition"
)

// Verdict is the monitor's answer after each token. Once Abort is true the
// verdict is final: later Observe and Finish calls return it unchanged.
type Verdict struct {
	Abort  bool
	Reason AbortReason
	// Score is the weighted combined score in [0, 1] (0 until a full window
	// of logprobs has been seen, always 0 in text-only mode).
	Score float64
	// Detail is a human-readable explanation, set only when Abort is true.
	Detail string
	// Tokens is the number of tokens (Observe calls) seen so far.
	Tokens int
}

// Config holds the thresholds. The zero value, and any zero or negative
// field, means the default listed next to the field: there is no way to turn
// a detector off by zeroing it.
type Config struct {
	MinTokensBeforeAbort  int     // 50: no abort before this many tokens (except Finish("repetition"))
	EntropyThreshold      float64 // 4.0 bits: mean entropy over EntropySustainedCount tokens that counts as confusion
	EntropySpikeThreshold float64 // 2.0 bits: a token this far above the window's mean entropy is a spike
	RepetitionThreshold   float64 // 0.3: n-gram repetition ratio over the last 64 n-grams
	PerplexityWindow      int     // 20 tokens: rolling perplexity, spike baseline and trend windows
	MaxLengthMultiplier   float64 // 2.0: abort past this multiple of the expected length
	EntropySustainedCount int     // 10 tokens: window of the sustained-entropy mean
	NgramSize             int     // 3 (at most 8)
	CombinedThreshold     float64 // 0.7: combined score (see doc.go) that aborts when held for 5 tokens
	// LoopMinSpan is the shortest exact tail repetition, in tokens, reported
	// as a loop. It takes two copies of the period, and three (at most
	// 2·LoopMinSpan tokens) for periods shorter than LoopMinSpan.
	LoopMinSpan   int // 24
	MaxLoopPeriod int // 128 tokens: longest period the token-level loop detector sees; costs O(MaxLoopPeriod) per token
}

// Defaults of Config (see the field comments).
const (
	defaultMinTokensBeforeAbort  = 50
	defaultEntropyThreshold      = 4.0
	defaultEntropySpikeThreshold = 2.0
	defaultRepetitionThreshold   = 0.3
	defaultPerplexityWindow      = 20
	defaultMaxLengthMultiplier   = 2.0
	defaultEntropySustainedCount = 10
	defaultNgramSize             = 3
	defaultCombinedThreshold     = 0.7
	defaultLoopMinSpan           = 24
	defaultMaxLoopPeriod         = 128
)

// Tier is a model tier; stronger tiers get looser thresholds.
type Tier string

// Model tiers.
const (
	TierWorker    Tier = "worker"
	TierCoder     Tier = "coder"
	TierArchitect Tier = "architect"
	TierIngest    Tier = "ingest"
)

// Task is a kind of generation; it overrides some thresholds.
type Task string

// Task kinds.
const (
	TaskReasoning Task = "reasoning"
	TaskCode      Task = "code"
	TaskGeneral   Task = "general"
)

// ForTier returns the defaults with the tier's entropy, spike, repetition and
// min-token thresholds. An unknown tier yields the plain defaults.
func ForTier(t Tier) Config {
	c := Config{}.withDefaults()
	set := func(ent, spike, rep float64, minTok int) {
		c.EntropyThreshold, c.EntropySpikeThreshold = ent, spike
		c.RepetitionThreshold, c.MinTokensBeforeAbort = rep, minTok
	}
	switch t {
	case TierWorker:
		set(4.5, 2.5, 0.3, 50)
	case TierCoder:
		set(5.0, 3.0, 0.2, 100)
	case TierArchitect:
		set(6.0, 4.0, 0.4, 200)
	case TierIngest:
		set(5.5, 3.5, 0.3, 100)
	}
	return c
}

// ForTask returns the defaults with the task's overrides applied.
func ForTask(t Task) Config { return Config{}.WithTask(t) }

// WithTask returns c (defaults filled in) with the task's entropy threshold,
// min tokens, n-gram size and perplexity window. An unknown task changes
// nothing.
func (c Config) WithTask(t Task) Config {
	c = c.withDefaults()
	set := func(ent float64, minTok, ngram, window int) {
		c.EntropyThreshold, c.MinTokensBeforeAbort = ent, minTok
		c.NgramSize, c.PerplexityWindow = ngram, window
	}
	switch t {
	case TaskReasoning:
		set(4.5, 30, 3, 15)
	case TaskCode:
		set(4.0, 100, 4, 20)
	case TaskGeneral:
		set(4.0, 50, 3, 20)
	}
	return c
}

func (c Config) withDefaults() Config {
	defInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defFloat := func(v *float64, d float64) {
		if !(*v > 0) || math.IsInf(*v, 0) {
			*v = d
		}
	}
	defInt(&c.MinTokensBeforeAbort, defaultMinTokensBeforeAbort)
	defFloat(&c.EntropyThreshold, defaultEntropyThreshold)
	defFloat(&c.EntropySpikeThreshold, defaultEntropySpikeThreshold)
	defFloat(&c.RepetitionThreshold, defaultRepetitionThreshold)
	defInt(&c.PerplexityWindow, defaultPerplexityWindow)
	defFloat(&c.MaxLengthMultiplier, defaultMaxLengthMultiplier)
	defInt(&c.EntropySustainedCount, defaultEntropySustainedCount)
	defInt(&c.NgramSize, defaultNgramSize)
	defFloat(&c.CombinedThreshold, defaultCombinedThreshold)
	defInt(&c.LoopMinSpan, defaultLoopMinSpan)
	defInt(&c.MaxLoopPeriod, defaultMaxLoopPeriod)
	c.NgramSize = min(c.NgramSize, maxNgram)
	c.LoopMinSpan = max(c.LoopMinSpan, 2)
	return c
}

// Internal constants of the detectors (documented in doc.go).
const (
	loopEntropyBits  = 0.5  // mean entropy (bits) under which repetitive text is a near-loop
	spikeRateRef     = 0.4  // spike rate that normalises the spike signal to 1
	spikeRateAbort   = 0.45 // spike rate that aborts on its own
	trendRefBits     = 1.0  // perplexity doubling over the earlier baseline normalises the trend to 1
	combinedSustain  = 5    // tokens the combined score must stay above its threshold
	chunkRepeatAbort = 4    // the same sentence seen this often among the last chunkRing sentences
	compressLoopMax  = 0.08 // flate ratio of the last 2 KiB at or below which text is a loop
	compressNoiseMin = 0.92 // flate ratio at or above which text is noise (text-only mode)
	scriptSwitchMax  = 8    // alphabet changes inside words per scriptBytes of text (text-only mode)
)

// Monitor watches one generation. It is not safe for concurrent use.
type Monitor struct {
	cfg      Config
	expected int
	n        int
	verdict  Verdict
	lp       logprobState
	period   periodDetector
	ngrams   ngramCounter
	text     textState
	over     int // consecutive tokens with the combined score above its threshold
}

// New returns a monitor for one generation. expectedTokens > 0 enables the
// runaway-length check (abort past MaxLengthMultiplier × expectedTokens);
// 0 means the expected length is unknown and only the other detectors run.
func New(cfg Config, expectedTokens int) *Monitor {
	cfg = cfg.withDefaults()
	m := &Monitor{cfg: cfg, expected: max(expectedTokens, 0)}
	m.lp.init(cfg)
	m.period.init(cfg.MaxLoopPeriod, func(p int) int { return loopNeed(p, cfg.LoopMinSpan) })
	m.ngrams.init(cfg.NgramSize)
	m.text.init()
	m.verdict = Verdict{Reason: ReasonNone}
	return m
}

// Config returns the effective configuration (defaults filled in).
func (m *Monitor) Config() Config { return m.cfg }

// Observe feeds one token and returns the verdict so far. It does not
// allocate unless it aborts.
func (m *Monitor) Observe(t Token) Verdict {
	if m.verdict.Abort {
		return m.verdict
	}
	m.n++
	h := hashString(t.Text)
	m.period.push(h)
	m.ngrams.push(h)
	m.text.textOnly = m.lp.n == 0 && !t.HasLogprobs
	m.text.write(t.Text)
	if t.HasLogprobs {
		m.lp.observe(t, m.cfg.EntropySpikeThreshold)
	}
	m.verdict.Tokens = m.n
	if m.verdict.Score = m.combined(); m.verdict.Score > m.cfg.CombinedThreshold {
		m.over++
	} else {
		m.over = 0
	}
	if m.n < m.cfg.MinTokensBeforeAbort {
		return m.verdict
	}
	if r, d := m.evaluate(); r != ReasonNone {
		m.abort(r, d)
	}
	return m.verdict
}

// Finish ends the generation with the backend's finish_reason. vLLM's
// "repetition" aborts (ReasonBackendRepetition) whatever the token count;
// any other reason runs the text checks once more on the unchecked tail.
func (m *Monitor) Finish(finishReason string) Verdict {
	if m.verdict.Abort {
		return m.verdict
	}
	if finishReason == "repetition" {
		m.abort(ReasonBackendRepetition, "backend stopped the generation for repetition")
		return m.verdict
	}
	m.text.check(true)
	if m.n >= m.cfg.MinTokensBeforeAbort {
		if r, d := m.evaluate(); r != ReasonNone {
			m.abort(r, d)
		}
	}
	return m.verdict
}

func (m *Monitor) abort(r AbortReason, detail string) {
	m.verdict.Abort, m.verdict.Reason, m.verdict.Detail = true, r, detail
	m.verdict.Tokens = m.n
}

// evaluate runs the detectors in order of confidence and returns the first
// that fires.
func (m *Monitor) evaluate() (AbortReason, string) {
	c := &m.cfg
	if m.expected > 0 && float64(m.n) > c.MaxLengthMultiplier*float64(m.expected) {
		return ReasonRunawayLength, fmt.Sprintf("%d tokens exceed %.1f × the expected %d",
			m.n, c.MaxLengthMultiplier, m.expected)
	}
	if d := m.loopDetail(); d != "" {
		return ReasonLoop, d
	}
	if m.lp.ready() && m.lp.n == m.n {
		return m.evaluateLogprobs()
	}
	if m.lp.n == 0 {
		if t := &m.text; t.switches >= scriptSwitchMax {
			return ReasonGibberish, fmt.Sprintf("%d alphabet changes inside words in the last %d bytes",
				t.switches, scriptBytes)
		} else if t.ratio >= compressNoiseMin {
			return ReasonGibberish, fmt.Sprintf("last %d bytes compress only to %.2f", t.ratioBytes, t.ratio)
		}
	}
	return ReasonNone, ""
}

// loopDetail reports an exact or near-exact loop, or "".
func (m *Monitor) loopDetail() string {
	if p, span := m.tokenLoop(); p > 0 {
		return fmt.Sprintf("period %d tokens repeated %.1f times", p, float64(span)/float64(p))
	}
	t := &m.text
	if t.bytePeriod > 0 {
		return fmt.Sprintf("text period %d bytes repeated %.1f times",
			t.bytePeriod, float64(t.byteSpan)/float64(t.bytePeriod))
	}
	if t.chunkRepeats >= chunkRepeatAbort {
		return fmt.Sprintf("the same sentence %d times in the last %d bytes", t.chunkRepeats, chunkSpanBytes)
	}
	if t.ratio > 0 && t.ratio <= compressLoopMax {
		return fmt.Sprintf("last %d bytes compress to %.3f", t.ratioBytes, t.ratio)
	}
	return ""
}

// tokenLoop returns the smallest period p whose exact tail repetition
// covers at least loopNeed(p) tokens, with that span, or 0.
func (m *Monitor) tokenLoop() (period, span int) {
	if p := m.period.loop; p > 0 {
		return p, m.period.span(p)
	}
	return 0, 0
}

// loopNeed is the repeated span (tokens) that makes period p a loop: two
// copies and at least minSpan tokens, and three copies (capped at 2·minSpan
// tokens) for periods shorter than minSpan, because real code and data
// legitimately repeat a short line or block twice.
func loopNeed(p, minSpan int) int { return max(2*p, minSpan, min(3*p, 2*minSpan)) }

func (m *Monitor) evaluateLogprobs() (AbortReason, string) {
	c, s := &m.cfg, &m.lp
	rep := m.ngrams.ratio()
	if rep >= c.RepetitionThreshold && m.ngrams.full() && s.exact() && s.info.mean() < loopEntropyBits {
		return ReasonHighRepetition, fmt.Sprintf("%d-gram repetition %.2f at %.2f bits/token",
			c.NgramSize, rep, s.info.mean())
	}
	if s.sustained.full() && s.level() > c.EntropyThreshold && s.above.mean() >= 0.5 {
		return ReasonHighEntropy, fmt.Sprintf("mean entropy %.2f bits over %d tokens",
			s.level(), s.sustained.n)
	}
	if s.spikes.mean() >= spikeRateAbort {
		return ReasonEntropySpike, fmt.Sprintf("%.0f%% of the last %d tokens are entropy spikes",
			100*s.spikes.mean(), s.spikes.n)
	}
	if tr, _ := s.trend(); s.rising >= c.PerplexityWindow/2 {
		return ReasonRisingPerplexity, fmt.Sprintf("perplexity %.1f, ×%.1f the generation's earlier perplexity",
			math.Exp2(s.recent.mean()), math.Exp2(tr))
	}
	if m.over >= combinedSustain {
		return ReasonCombinedSignals, fmt.Sprintf("combined score %.2f", m.verdict.Score)
	}
	return ReasonNone, ""
}

// combined is the weighted score of the four logprob signals, each divided by
// its threshold and clamped to [0, 1].
func (m *Monitor) combined() float64 {
	s := &m.lp
	if !s.ready() {
		return 0
	}
	c := &m.cfg
	tr, _ := s.trend()
	return 0.35*unit(s.level()/c.EntropyThreshold) +
		0.25*unit(s.spikes.mean()/spikeRateRef) +
		0.25*unit(m.ngrams.ratio()/c.RepetitionThreshold) +
		0.15*unit(tr/trendRefBits)
}

func unit(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}

// Metrics is a snapshot of the detectors, for traces and tests.
type Metrics struct {
	Tokens              int
	LogprobTokens       int
	EntropyBits         float64 // last token
	MeanEntropyBits     float64 // over EntropySustainedCount tokens
	Perplexity          float64 // 2^(mean surprisal in bits) over PerplexityWindow tokens
	PerplexityTrendBits float64 // log2(perplexity now / the generation's perplexity before the window)
	SpikeRate           float64 // fraction of the window's tokens that were spikes
	RepetitionRatio     float64 // 1 - distinct/total n-grams over the last 64
	LoopPeriod          int     // smallest token period repeated at least twice at the tail, 0 if none
	LoopSpan            int     // tokens covered by that repetition
	CompressionRatio    float64 // flate ratio of the last ≤2 KiB at the last check, 0 before one
	Combined            float64
}

// Metrics returns the current detector values.
func (m *Monitor) Metrics() Metrics {
	s := &m.lp
	tr, _ := s.trend()
	mt := Metrics{
		Tokens: m.n, LogprobTokens: s.n, EntropyBits: s.last,
		MeanEntropyBits: s.sustained.mean(), PerplexityTrendBits: tr,
		SpikeRate: s.spikes.mean(), RepetitionRatio: m.ngrams.ratio(),
		CompressionRatio: m.text.ratio, Combined: m.combined(),
	}
	if s.recent.n > 0 {
		mt.Perplexity = math.Exp2(s.recent.mean())
	}
	for p := 1; p <= m.period.maxPeriod(); p++ {
		if sp := m.period.span(p); sp >= 2*p {
			mt.LoopPeriod, mt.LoopSpan = p, sp
			break
		}
	}
	return mt
}
