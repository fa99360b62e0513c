package llmtest

import (
	"github.com/rlm-sandbox/rlm/llm/replay"
)

// Script is an ordered list of replies, the content of a script file.
type Script []Reply

// Load reads a script file (see the package documentation for the format) as package replay
// reads a reply file: a regular file (a fifo is refused, never waited on) of at most 64 MiB.
// Unlike a replay, a script may use every field of Reply.
func Load(path string) (Script, error) {
	es, err := replay.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return script(es)
}

// ParseScript parses a script: a JSON array of replies, or an object {"replies": [...]}.
// Unknown fields are errors, so a typo does not pass silently; errors give the line and the
// reply.
func ParseScript(b []byte) (Script, error) {
	es, err := replay.Read(b)
	if err != nil {
		return nil, err
	}
	return script(es)
}

// script reads the fields package replay left to llmtest (which checked the rest) and checks
// the kinds.
func script(es []replay.Entry) (Script, error) {
	s := make(Script, len(es))
	for i, e := range es {
		if err := s[i].fill(e.Reply, e.Other); err != nil {
			return nil, e.Errorf("%v", err)
		}
		if !s[i].Kind.valid() {
			return nil, e.Errorf("%v", unknownKind(s[i].Kind))
		}
	}
	return s, nil
}

// NewFromFile starts a server with the replies of a script file.
func NewFromFile(path string) (*Server, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(s...), nil
}
