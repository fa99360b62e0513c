package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/rlm-sandbox/rlm/tools"
)

// Script is an ordered list of replies, the content of a script file.
type Script []Reply

// maxScriptFile is the largest script file read.
const maxScriptFile = 64 << 20

// Load reads a script file (see the package documentation for the format): a regular file (a
// fifo is refused, never waited on) of at most maxScriptFile bytes.
func Load(path string) (Script, error) {
	b, err := tools.ReadRegular(path, maxScriptFile)
	if err != nil {
		return nil, err
	}
	s, err := ParseScript(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseScript parses a script: a JSON array of replies, or an object
// {"replies": [...]}. Unknown fields are errors, so a typo does not pass
// silently.
func ParseScript(b []byte) (Script, error) {
	b = bytes.TrimSpace(b)
	var s Script
	var err error
	if len(b) > 0 && b[0] == '{' {
		var obj struct {
			Replies Script `json:"replies"`
		}
		err = strictUnmarshal(b, &obj)
		s = obj.Replies
	} else {
		err = strictUnmarshal(b, &s)
	}
	if err != nil {
		return nil, fmt.Errorf("llmtest script: %w", err)
	}
	// Validate kinds and regexps the way Push does.
	if err := (&Server{}).Push(s...); err != nil {
		return nil, fmt.Errorf("llmtest script: %w", err)
	}
	return s, nil
}

func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// NewFromFile starts a server with the replies of a script file.
func NewFromFile(path string) (*Server, error) {
	s, err := Load(path)
	if err != nil {
		return nil, err
	}
	return New(s...), nil
}
