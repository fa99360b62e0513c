// Package convert checks a converter: the user's own command, named in trusted configuration
// ([convert] in rlm.toml), that prints the text of an input file that is not text (a PDF, say).
// Package convert/cache runs converters and keeps their texts.
package convert

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/internal/command"
	"github.com/rlm-sandbox/rlm/limits"
)

// Spec is one converter as configured.
type Spec struct {
	Exec     []string      // the program and its words; {path} is replaced by the input's path
	Timeout  time.Duration // one conversion; 0 = limits.ConvertTimeout
	MaxBytes int64         // the text it may print; 0 = limits.ConvertBytes
}

// Param is the one placeholder a converter's argv may hold: the original file's path.
const Param = "path"

// Check reports what is wrong with a converter: an argv command.Check refuses, one without
// {path} or with another placeholder, and caps out of range.
func Check(s Spec) error {
	if err := command.Check(s.Exec, []string{Param}); err != nil {
		return err
	}
	if !slices.Contains(command.Placeholders(s.Exec), Param) {
		return fmt.Errorf("exec names no {%s}; put {%s} where the program takes the file to convert", Param, Param)
	}
	if s.Timeout < 0 || s.Timeout > limits.ConvertMaxTimeout {
		return fmt.Errorf("timeout %s: want at most %s", s.Timeout, limits.ConvertMaxTimeout)
	}
	if s.MaxBytes < 0 || s.MaxBytes > limits.ConvertMaxBytes {
		return fmt.Errorf("max_output %d bytes: want at most %d", s.MaxBytes, int64(limits.ConvertMaxBytes))
	}
	return nil
}

// Ext is path's extension as [convert] keys it: lower case, without the dot; "" for none.
func Ext(path string) string {
	return strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
}

// CheckExt reports what is wrong with a [convert] key: it is an extension without the dot, in
// lower case, of at most 16 letters, digits, '_' and '-' (a bare TOML key).
func CheckExt(ext string) error {
	ok := ext != "" && len(ext) <= 16
	for _, r := range ext {
		ok = ok && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}
	if !ok {
		return fmt.Errorf("%q is not a file extension as [convert] keys them: write it without the dot, in lower case, with at most 16 letters, digits, '_' or '-' (pdf, docx)", ext)
	}
	return nil
}

// Takes is the test of the files a converter of m takes, by extension (files.Inputs lets those
// through as not text); nil when m has none, so every input must be text.
func Takes[V any](m map[string]V) func(path string) bool {
	if len(m) == 0 {
		return nil
	}
	return func(path string) bool { _, ok := m[Ext(path)]; return ok }
}
