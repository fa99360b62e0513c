package redact

import (
	"slices"
	"strings"
)

// The prefilter: one pass over the input looking for anchor bytes, each of which names the
// few positions where a pattern could start. It must find a superset of the positions where
// some matcher answers found or more; TestDifferential and FuzzRedact check that against
// a scan of every position.

var anchor = *newClass("-_AJ.:=")

// candidates appends the positions p >= from where a pattern may start, sorted and unique.
func candidates(s string, from int, dst []int) []int {
	for j := from; j < len(s); j++ {
		if anchor[s[j]] {
			dst = anchorCandidates(s, j, from, dst)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// anchorCandidates appends the candidates named by the anchor byte at j. Each test is
// guarded by its cheapest byte comparison first: most anchors in prose lead nowhere.
func anchorCandidates(s string, j, from int, dst []int) []int {
	n := len(s)
	switch s[j] {
	case '-':
		if j >= 2 && s[j-1] == 'k' && s[j-2] == 's' {
			dst = addFrom(dst, j-2, from) // sk-, sk-ant-
		}
		if j >= 4 && s[j-4] == 'x' && (hasAt(s, j-4, "xox") || hasAt(s, j-4, "xapp")) {
			dst = addFrom(dst, j-4, from)
		}
		if (j+1 < n && s[j+1] == '-' && hasAt(s, j, "-----BEGIN")) || (n-j < 10 && strings.HasPrefix(pemBegin, s[j:])) {
			dst = addFrom(dst, j, from)
		}
	case '_':
		if j >= 3 && s[j-3] == 'g' && s[j-2] == 'h' {
			dst = addFrom(dst, j-3, from) // ghp_
		}
		if j >= 6 && s[j-1] == 'b' && s[j-6:j] == "github" {
			dst = addFrom(dst, j-6, from)
		}
		if j >= 2 && s[j-1] == 'k' && (s[j-2] == 's' || s[j-2] == 'r') {
			dst = addFrom(dst, j-2, from) // sk_live_
		}
		if j >= 2 && s[j-1] == 'f' && s[j-2] == 'h' {
			dst = addFrom(dst, j-2, from)
		}
		if j >= 3 && s[j-1] == 'm' && s[j-3:j] == "npm" {
			dst = addFrom(dst, j-3, from)
		}
	case 'A':
		if j+1 < n && (s[j+1] == 'K' || s[j+1] == 'S' || s[j+1] == 'I') &&
			(hasAt(s, j, "AKIA") || hasAt(s, j, "ASIA") || hasAt(s, j, "AIza")) {
			dst = addFrom(dst, j, from)
		}
	case 'J':
		if j >= 2 && s[j-1] == 'y' && s[j-2] == 'e' {
			dst = addFrom(dst, j-2, from)
		}
	case '.':
		if j >= 2 && s[j-1] == 'G' && s[j-2] == 'S' {
			dst = addFrom(dst, j-2, from)
		} else if j >= 5 && s[j-1] == 's' && s[j-5:j] == "hooks" {
			dst = addFrom(dst, j-5, from)
		}
	case ':':
		if j+2 < n && s[j+1] == '/' && s[j+2] == '/' {
			dst = addFrom(dst, j, from)
		}
		dst = keyedCandidates(s, j, from, dst)
	case '=':
		dst = keyedCandidates(s, j, from, dst)
	}
	return dst
}

func addFrom(dst []int, p, from int) []int {
	if p >= from {
		dst = append(dst, p)
	}
	return dst
}

// span is a secret part [ss, se) reported by pattern pat (len(patterns) for a known value)
// for a match starting at pos.
type span struct {
	pos, ss, se, pat int
}

// evalAt appends the spans of every pattern that matches at i; more reports an undecided
// pattern.
func evalAt(s string, i int, eof bool, dst []span) ([]span, bool) {
	undecided := false
	for k := range patterns {
		ss, se, st := patterns[k].match(s, i, eof)
		switch st {
		case found:
			dst = append(dst, span{i, ss, se, k})
		case more:
			undecided = true
		}
	}
	return dst, undecided
}

// knownSpans appends spans covering every occurrence (overlapping ones included) of every
// known value starting in [from, lim); overlapping occurrences of one value share a span.
func (r *Redactor) knownSpans(s string, from, lim int, dst []span) []span {
	for _, v := range r.known {
		first := len(dst)
		for p := from; p < lim; {
			k := strings.Index(s[p:], v)
			if k < 0 || p+k >= lim {
				break
			}
			p += k
			if last := len(dst) - 1; last >= first && p < dst[last].se {
				dst[last].se = p + len(v) // overlaps the previous occurrence: grow it
			} else {
				dst = append(dst, span{p, p, p + len(v), len(patterns)})
			}
			p++
		}
	}
	return dst
}

// partialKnown returns the first position p in [from, len(s)) at which s[p:] is a proper
// prefix of a known value, or len(s).
func (r *Redactor) partialKnown(s string, from int) int {
	for p := max(from, len(s)-r.maxKnown+1); p < len(s); p++ {
		for _, v := range r.known {
			if len(v) > len(s)-p && strings.HasPrefix(v, s[p:]) {
				return p
			}
		}
	}
	return len(s)
}

// findSpans returns the spans of matches starting in [from, lim) and the first undecided
// position (lim if none). With eof nothing is undecided.
func (r *Redactor) findSpans(s string, from, lim int, eof bool, dst []span) ([]span, int) {
	var cbuf [32]int
	hold := lim
	for _, p := range candidates(s, from, cbuf[:0]) {
		if p >= lim {
			break
		}
		var undecided bool
		dst, undecided = evalAt(s, p, eof, dst)
		if undecided && p < hold {
			hold = p
		}
	}
	dst = r.knownSpans(s, from, lim, dst)
	if !eof {
		hold = min(hold, r.partialKnown(s, from))
	}
	return dst, hold
}

// merge sorts spans by (ss, pat) and merges overlapping ones; a merged span keeps the pat of
// its first member.
func merge(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	slices.SortFunc(sp, func(a, b span) int {
		if a.ss != b.ss {
			return a.ss - b.ss
		}
		return a.pat - b.pat
	})
	out := sp[:1]
	for _, x := range sp[1:] {
		last := &out[len(out)-1]
		if x.ss < last.se {
			last.se = max(last.se, x.se)
			continue
		}
		out = append(out, x)
	}
	return out
}

// marker returns the replacement for a merged span.
func marker(pat int) string {
	if pat >= len(patterns) {
		return "[REDACTED:" + knownLabel + "]"
	}
	return markers[pat]
}

// appendRedacted appends s[from:to] to dst with the merged spans iv (sorted, inside
// [from, to)) replaced by markers.
func appendRedacted(dst []byte, s string, from, to int, iv []span) []byte {
	p := from
	for _, x := range iv {
		dst = append(dst, s[p:x.ss]...)
		dst = append(dst, marker(x.pat)...)
		p = x.se
	}
	return append(dst, s[p:to]...)
}
