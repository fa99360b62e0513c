package controller

import (
	"fmt"
	"strings"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
)

// compactAt is the share of the window at which the root history is compacted, and compactTo
// the share it is brought down to.
const (
	compactAt = 0.85
	compactTo = 0.5
)

// estimateTokens is a deliberately high estimate of a history's size (3 characters a token).
func estimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)/3 + 4
	}
	return n
}

// compact drops the oldest iterations when the history nears the window. It keeps the system
// prompt, the first message (question and context metadata) and the newest exchanges, and puts
// a note in place of what it dropped: the REPL still holds the variables they made.
func (r *run) compact() {
	limit := int(float64(r.cfg.Window) * compactAt)
	if len(r.msgs) <= 3 || estimateTokens(r.msgs) <= limit {
		return
	}
	head := r.msgs[:2]
	rest := r.msgs[2:]
	if strings.HasPrefix(rest[0].Content, compactNote) {
		rest = rest[1:]
	}
	target := int(float64(r.cfg.Window)*compactTo) - estimateTokens(head)
	keep := len(rest)
	for keep > 1 && estimateTokens(rest[len(rest)-keep:]) > target {
		keep--
	}
	// Start the kept part with an assistant message, so that turns still alternate.
	for keep > 1 && rest[len(rest)-keep].Role != "assistant" {
		keep--
	}
	dropped := len(rest) - keep
	kept := append([]llm.Message(nil), rest[len(rest)-keep:]...)
	// A kept message too large on its own is cut to its share of the target.
	share := max(target*3/keep, limits.MinBlockChars)
	for i := range kept {
		kept[i].Content = clip(kept[i].Content, share)
	}
	note := llm.Message{Role: "user", Content: fmt.Sprintf("%s %d earlier messages were removed to fit the model's window. The REPL still holds every variable they created: %s.", compactNote, dropped, strings.Join(r.varsOrNone(), ", "))}
	msgs := append(append(append([]llm.Message(nil), head...), note), kept...)
	r.msgs = msgs
	r.cfg.Observer.Progress(fmt.Sprintf("history compacted: %d messages dropped", dropped))
}

const compactNote = "[history compacted]"

func (r *run) varsOrNone() []string {
	if r.sess == nil {
		return []string{"none"}
	}
	if v := r.vars(); len(v) > 0 {
		return v
	}
	return []string{"none"}
}
