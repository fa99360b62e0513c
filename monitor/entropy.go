package monitor

import "math"

// unknownLogprob: logprobs at or below this are "not reported" (OpenAI uses
// -9999 for candidates outside its top 20).
const unknownLogprob = -1000.0

func validLogprob(lp float64) bool {
	// NaN fails both comparisons; a tiny positive value is rounding noise.
	return lp > unknownLogprob && lp <= 1e-6
}

// entropyBits estimates the entropy (in bits) of the distribution a token was
// sampled from, given the natural-log probabilities of the top-k candidates.
//
// The listed candidates contribute their exact terms -p·ln p. The missing
// mass m = 1 - Σp is spread over unlisted tokens, each no more probable than
// the smallest listed p_k and no more than m itself, so it contributes at
// least -m·ln(min(m, p_k)). The result is therefore a lower bound on the true
// entropy that is exact when m = 0. The emitted token is added when it is not
// among the listed ones. With no usable candidates the surprisal of the
// emitted token (an unbiased one-sample estimate of the entropy) is returned
// with listed = 0; ok is false when neither is available.
func entropyBits(chosen float64, top []float64) (h float64, listed int, ok bool) {
	sum, hn, minLp := 0.0, 0.0, 0.0
	for _, lp := range top {
		if !validLogprob(lp) {
			continue
		}
		if lp > 0 {
			lp = 0
		}
		p := math.Exp(lp)
		sum += p
		hn -= p * lp
		if listed == 0 || lp < minLp {
			minLp = lp
		}
		listed++
	}
	if listed == 0 {
		if validLogprob(chosen) {
			return -min(chosen, 0) / math.Ln2, 0, true
		}
		return 0, 0, false
	}
	if validLogprob(chosen) && chosen < minLp-1e-9 { // below every listed one: not listed
		p := math.Exp(chosen)
		sum += p
		hn -= p * chosen
		minLp = chosen
	}
	if m := 1 - sum; m > 1e-9 {
		hn -= m * min(math.Log(m), minLp) // m · ln min(m, p_k)
	}
	return max(hn, 0) / math.Ln2, listed, true
}

// window is a fixed-size ring of float64 with a running sum.
type window struct {
	buf  []float64
	next int
	n    int
	sum  float64
}

func newWindow(size int) window { return window{buf: make([]float64, max(size, 1))} }

// push adds v and returns the value it evicted, if any.
func (w *window) push(v float64) (evicted float64, ok bool) {
	if w.n == len(w.buf) {
		evicted, ok = w.buf[w.next], true
		w.sum -= evicted
	} else {
		w.n++
	}
	w.buf[w.next] = v
	w.sum += v
	if w.next++; w.next == len(w.buf) {
		w.next = 0
	}
	return evicted, ok
}

func (w *window) full() bool { return w.n == len(w.buf) }

func (w *window) mean() float64 {
	if w.n == 0 {
		return 0
	}
	return max(w.sum, 0) / float64(w.n)
}

// logprobState holds the logprob-based signals. All values are in bits.
//
// Each token yields an entropy estimate h (the top-k lower bound, or the
// clipped surprisal when only the chosen logprob is known) and a surprisal
// s, clipped at twice the entropy threshold so that one unlikely sampled
// token cannot dominate a 20-token window.
type logprobState struct {
	clip      float64 // surprisal clip, bits
	high      float64 // entropy threshold, bits
	sustained window  // h, EntropySustainedCount tokens
	above     window  // 1 where h > the entropy threshold, same span
	entropy   window  // h, PerplexityWindow tokens (spike baseline)
	spikes    window  // 1 for a spike, else 0, 2·PerplexityWindow tokens
	recent    window  // s of the last PerplexityWindow tokens
	total     float64 // sum of s over all tokens (baseline of the trend)
	info      window  // h over the n-gram window (loop gating)
	rising    int     // consecutive tokens with a rising perplexity at the confusion level
	lastProxy int     // index of the last token whose entropy was only its surprisal
	n         int
	last      float64
}

func (s *logprobState) init(c Config) {
	w := c.PerplexityWindow
	s.clip, s.high = 2*c.EntropyThreshold, c.EntropyThreshold
	s.sustained, s.above = newWindow(c.EntropySustainedCount), newWindow(c.EntropySustainedCount)
	s.entropy, s.recent, s.spikes = newWindow(w), newWindow(w), newWindow(2*w)
	s.info = newWindow(ngramWindow)
	s.lastProxy = -1 << 30
}

func (s *logprobState) observe(t Token, spikeThreshold float64) {
	surprisal := -1.0
	if validLogprob(t.Logprob) {
		surprisal = min(-min(t.Logprob, 0)/math.Ln2, s.clip)
	}
	h, listed, ok := entropyBits(t.Logprob, t.TopLogprobs)
	switch {
	case !ok:
		h = s.entropy.mean() // nothing usable: carry the baseline
	case listed == 0:
		h = surprisal // the surprisal estimate, clipped
		s.lastProxy = s.n
	}
	if surprisal < 0 {
		surprisal = min(h, s.clip)
	}
	// A spike is an entropy jump; a surprising sample alone is not one.
	spike := 0.0
	if listed > 0 && s.entropy.n >= len(s.entropy.buf)/2 && h-s.entropy.mean() > spikeThreshold {
		spike = 1
	}
	s.spikes.push(spike)
	s.entropy.push(h)
	s.sustained.push(h)
	s.above.push(b2f(h > s.high))
	s.info.push(h)
	s.recent.push(surprisal)
	s.total += surprisal
	s.n++
	s.last = h
	if tr, ok := s.trend(); ok && tr >= trendRefBits && s.recent.mean() >= s.high {
		s.rising++
	} else {
		s.rising = 0
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// level is the sustained entropy in bits. A surprisal standing in for an
// entropy (no top-k) is a one-sample estimate, far noisier than the top-k
// bound, so when one is in the last window the window's mean surprisal
// caps the level.
func (s *logprobState) level() float64 {
	l := s.sustained.mean()
	if s.n-s.lastProxy <= len(s.recent.buf) {
		l = min(l, s.recent.mean())
	}
	return l
}

// exact: every token of the n-gram window had top-k logprobs.
func (s *logprobState) exact() bool { return s.n-s.lastProxy > ngramWindow }

// ready: a full window of logprob tokens has been seen.
func (s *logprobState) ready() bool { return s.entropy.full() }

// trend is log2 of the rolling perplexity over the generation's own earlier
// perplexity: the mean surprisal of the last window minus the mean over all
// tokens before it, in bits. It needs two windows of history.
func (s *logprobState) trend() (float64, bool) {
	before := s.n - s.recent.n
	if !s.recent.full() || before < s.recent.n {
		return 0, false
	}
	return s.recent.mean() - max(s.total-s.recent.sum, 0)/float64(before), true
}
