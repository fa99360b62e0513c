package worker

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/tools"
)

// maxHints bounds the notes one cell gets about its regexes, and maxChecks the regexes checked
// again with (?m) in one cell (each check is one more pass over a context).
const (
	maxHints  = 3
	maxChecks = 16
)

// hints are notes for the model about the cell running now, appended to its output when it
// ends: a search or count whose ^ or $ anchors the whole text (no (?m)) finds fewer matches
// than the same regex with (?m) would. Models write grep-style anchors, and read "0 matches" as
// "not there" and "1 match" (the first line's) as the count.
type hints struct {
	mu      sync.Mutex
	notes   []string
	checked map[string]bool // the calls checked again in this cell, by tool, context and pattern
	js      bool            // the session is JavaScript: a RegExp literal takes the flag as /…/m
}

// anchored checks a search or count that found got matches in all; doc is the context it ran
// over. An anchor of the whole text matches once at most, so only got <= 1 is checked again.
func (h *hints) anchored(doc *tools.Doc, name, pattern string, got int64) {
	if got > 1 || !textAnchored(pattern) || !h.first(name+"\x00"+doc.Name()+"\x00"+pattern) {
		return
	}
	n, err := doc.Count("(?m)" + pattern)
	if err != nil || n <= got {
		return
	}
	fix := fmt.Sprintf("%q", "(?m)"+pattern)
	if h.js {
		fix += " (or the literal /" + strings.ReplaceAll(pattern, "/", `\/`) + "/m)"
	}
	h.add(fmt.Sprintf("note: %s(%s, %q) found %s: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and %s finds %s.",
		name, doc.Name(), pattern, matches(got), fix, matches(n)))
}

// matches counts in words: "nothing", "1 match", "15,975 matches".
func matches(n int64) string {
	switch n {
	case 0:
		return "nothing"
	case 1:
		return "1 match"
	}
	return engine.Thousands(n) + " matches"
}

// first reports whether key is new in this cell and may still be checked: a loop calling count
// with the same anchored regex a thousand times costs one more pass, not a thousand.
func (h *hints) first(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.checked[key] || len(h.checked) >= maxChecks || len(h.notes) >= maxHints {
		return false
	}
	if h.checked == nil {
		h.checked = map[string]bool{}
	}
	h.checked[key] = true
	return true
}

func (h *hints) add(note string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.notes) < maxHints {
		h.notes = append(h.notes, note)
	}
}

// take returns the cell's notes as lines to append to its output, and forgets them.
func (h *hints) take() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.checked = nil
	if len(h.notes) == 0 {
		return ""
	}
	s := strings.Join(h.notes, "\n") + "\n"
	h.notes = nil
	return s
}

// textAnchored reports whether pattern uses ^ or $ as anchors of the whole text: it parses
// without (?m), and has a ^ or $ that is not a line anchor.
func textAnchored(pattern string) bool {
	if !strings.ContainsAny(pattern, "^$") {
		return false
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false
	}
	return hasTextAnchor(re)
}

func hasTextAnchor(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if hasTextAnchor(sub) {
			return true
		}
	}
	return false
}
