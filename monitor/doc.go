// Package monitor watches a model generation token by token and decides
// whether to abort it early (rlm's EARLY_ABORT), so that a degenerate
// generation escalates to a stronger model instead of running to its token
// limit. It is pure: tokens in, verdict out; no I/O, no goroutines.
//
//	m := monitor.New(monitor.ForTier(monitor.TierWorker), expectedTokens)
//	for tok := range stream {
//		if v := m.Observe(tok); v.Abort {
//			return earlyAbort(v.Reason, v.Detail)
//		}
//	}
//	if v := m.Finish(finishReason); v.Abort { ... }
//
// Observe costs about 1 µs per token with top-20 logprobs and less without,
// and does not allocate (BenchmarkObserve, TestObserveDoesNotAllocate).
//
// # Units: bits
//
// APIs report logprobs as natural logarithms; the monitor converts every
// entropy, surprisal and perplexity trend to bits, and all thresholds are in
// bits. On that scale the default EntropyThreshold of 4.0 reads "as uncertain
// as a uniform choice among 16 tokens", close to the 4.32 bits of a uniform
// top-20, which is what confusion looks like in a top-20 list, while fluent
// text averages 1–2 bits with single tokens up to 4–6 (names, numbers). The
// tier thresholds (4.5 to 6.0) sit above that on the same scale.
//
// # Entropy from top-k logprobs
//
// With top-k probabilities p_1..p_k, missing mass m = 1 − Σp_i and smallest
// listed p_k, each unlisted token has probability at most min(m, p_k), so
//
//	H ≥ −Σ p_i·log p_i − m·log min(m, p_k)
//
// which is exact when m = 0. Renormalising over the top k instead can never
// exceed log2 k: 2.32 bits for k = 5, so a 4-bit threshold could never fire.
// For Zipf-shaped distributions (true entropy → bound / renormalised):
//
//	true   k=5          k=10         k=20
//	2.0    1.76 / 1.32  1.88 / 1.61  1.94 / 1.78
//	4.0    2.96 / 1.73  3.34 / 2.29  3.59 / 2.73
//	6.0    3.89 / 1.92  4.46 / 2.62  4.91 / 3.24
//	8.0    4.91 / 2.06  5.60 / 2.87  6.20 / 3.63
//
// The bound still underestimates flat distributions at small k: request
// top_logprobs of 10–20. At the architect tier's 6.0 bits, confusion seen
// through top-5 cannot reach the threshold. Values at or below −1000
// (OpenAI's −9999 outside its top 20), NaN and Inf are ignored; an emitted
// token missing from the list is added to it. A token with only its own
// logprob (k = 0) contributes its surprisal, an unbiased but very noisy
// one-sample estimate: it is clipped at 2×EntropyThreshold, never counts as
// a spike, and while such tokens are in the window the sustained level is
// capped by the window's mean surprisal.
//
// # Detectors, in the order they are checked (after MinTokensBeforeAbort)
//
//   - runaway_length: more than MaxLengthMultiplier × expectedTokens tokens
//     (New's argument; 0 = unknown, no check).
//   - loop: exact repetition at the tail. The token-level detector keeps,
//     for every period p ≤ MaxLoopPeriod, the run of tokens equal to the one
//     p back (O(MaxLoopPeriod) integer compares per token) and reports the
//     smallest p whose repeated span reaches LoopNeed(p) = max(2p, 24,
//     min(3p, 48)) tokens with the default LoopMinSpan of 24: two periods for
//     p ≥ 24, three periods (at most 48 tokens) for 8 < p < 24, 24 tokens
//     for p ≤ 8. Three backstops work on the text and so survive any chunking of text deltas:
//     the exact byte-level tail period (Z-function over the last 2 KiB, every
//     256 bytes, text-only streams; 160 bytes and two copies at least), the
//     same prose sentence (≥ 32 non-space bytes, not a comment) four times
//     among the last 8 sentences within 512 bytes, and a flate ratio ≤ 0.08.
//   - high_repetition (logprobs): a near-loop. The n-gram repetition ratio
//     (1 − distinct/total over the last 64 n-grams) is at least
//     RepetitionThreshold while the mean entropy over those tokens is under
//     0.5 bits, all measured from top-k lists. Loops reinforce themselves,
//     so repetition comes with LOW entropy and falling perplexity; this is
//     why loops and confusion are separate detectors.
//   - high_entropy: the mean entropy over EntropySustainedCount tokens
//     exceeds EntropyThreshold and at least half of those tokens do.
//   - entropy_spike: a spike is a token whose entropy exceeds the mean of
//     the previous PerplexityWindow tokens by EntropySpikeThreshold; abort
//     when 45% of the last 2·PerplexityWindow tokens are spikes.
//   - rising_perplexity: the rolling perplexity (2^mean surprisal over
//     PerplexityWindow tokens) is at the confusion level (≥ 2^EntropyThreshold)
//     and at least double the generation's own perplexity before that
//     window, for PerplexityWindow/2 tokens running. Sampled surprisal is
//     unbiased where the top-k bound is not, so this catches confusion that
//     a short top-k list hides.
//   - combined_signals: 0.35·entropy + 0.25·spikes + 0.25·repetition +
//     0.15·trend, each normalised by its threshold (mean entropy / threshold,
//     spike rate / 0.4, n-gram ratio / RepetitionThreshold, trend / 1 bit)
//     and clamped to [0, 1]; abort when above CombinedThreshold for 5
//     tokens running. Verdict.Score carries it.
//   - gibberish (text-only streams): at least 8 alphabet changes inside
//     words in the last 1 KiB (Latin/Cyrillic/Arabic/…; Greek and CJK are
//     exempt because "Δt" and "使用Go" are normal), or a flate ratio ≥ 0.92.
//     This catches tokens sampled from a flat distribution over a
//     multilingual vocabulary; word salad in one alphabet is not detected.
//   - backend_repetition: Finish("repetition"), vLLM's own repetition stop,
//     aborts whatever the token count.
//
// # Text-only mode
//
// Backends without logprobs (Anthropic, LM Studio) feed Tokens with
// HasLogprobs false, often multi-token text deltas. Only the length, loop
// and gibberish detectors run then, and token counts (MinTokensBeforeAbort,
// expectedTokens, Verdict.Tokens) count Observe calls, i.e. deltas. A stream
// that mixes tokens with and without logprobs gets only those detectors too.
//
// # Tradeoffs
//
// A false abort costs a regeneration by a stronger model; a late abort on a
// loop costs a few dozen tokens. The thresholds lean to the first:
//   - Exact repetition of a short period twice is common in healthy text:
//     the same line twice, "0x00, 0x00, …", a Markdown table rule. On real Go
//     sources (every 8th file of the distribution, first 1000 tokens, text
//     only) the rule above aborts 3 of 253 code files and 9 of 138 test
//     files, all on exact repetition such as byte tables; two copies and 16
//     tokens for every period (what "abort within two periods" needs for
//     p = 8) would abort 16 and 27, two copies and 24 tokens 5 and 17.
//     Hence the strict two-period target holds for p ≥ 24 only.
//   - Sentences, not lines, feed the sentence-hash detector: code repeats
//     lines ("return nil, err") far too often.
//   - The byte-level period runs every 256 bytes and flate every 1024 bytes:
//     flate costs 20–40 µs per 2 KiB, which per token would break the budget.
//     In chunked text-only streams a loop is therefore found up to 256 bytes
//     after its second copy (TestChunkedTextStreams).
//   - Near-loops that count ("Step 5 … Step 6 …") look like a legitimate
//     list and are left to the length check.
//   - Text-only confusion is caught only when it mixes alphabets inside
//     words. Over ten synthetic seeds that catches 59/60 flat, 58/60
//     drifting but 39/60 "erratic" confusions (junk tokens interleaved with
//     fluent English), against 90/90 with logprobs; compression cannot tell
//     word salad from prose in a 2 KiB window. Use a backend with logprobs
//     where confusion matters.
//
// # Evaluation
//
// testdata/ holds labelled synthetic streams with and without logprobs
// (healthy prose, code, JSON lists and Markdown; loops of periods 1, 3, 8,
// 25 and 60 starting right after the minimum and after 400+ tokens; a
// near-loop; flat, drifting and erratic confusion; runaway length; vLLM's
// repetition stop), generated deterministically by
//
//	go test ./monitor -run TestGenerateFixtures -update
//
// Evaluate scores streams; the tables are printed by
//
//	go test ./monitor -run 'TestEvaluation|TestChunked|TestRealText' -v -args -eval.print
//
// TestEvaluationManySeeds repeats the evaluation on ten more seeds in memory.
// The logprobs are synthetic (Zipf-shaped distributions whose entropy follows
// the kind of token, decaying over loop copies), so the fixtures check the
// detectors' logic and timing, not calibration against a real model; the
// real-text test covers false alarms of the text detectors on real code and
// documentation of the Go distribution.
package monitor
