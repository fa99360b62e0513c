package validator

import (
	"fmt"
	"strings"

	"github.com/rlm-sandbox/rlm/source"
)

// goSource runs the Go pipeline: parse (size, one scan for depth and comments, parse), directives,
// then the checks of the unit.
func (c *checker) goSource() *source.GoUnit {
	u, comments, err := source.ParseGo(c.name, c.src, c.parseOptions())
	c.checkDirectives(comments)
	c.addParse(err)
	if u != nil && !c.parseOnly {
		c.goCheck(u)
	}
	return u
}

// checkDirectives rejects comments that compilers or interpreters act on.
func (c *checker) checkDirectives(comments []source.Comment) {
	for _, cm := range comments {
		text := cm.Text
		body := strings.TrimLeft(text[2:], " \t")
		switch {
		case strings.HasPrefix(text, "//go:"), strings.HasPrefix(text, "/*go:"):
			c.report(cm.Offset, Directive, fmt.Sprintf("compiler directive %q", firstLine(text)))
		case strings.HasPrefix(text, "//line "), strings.HasPrefix(text, "/*line "):
			c.report(cm.Offset, Directive, "//line directive (it would change reported positions)")
		case strings.HasPrefix(text, "//export "):
			c.report(cm.Offset, Directive, "cgo //export directive")
		case hasYaegiDirective(text):
			c.report(cm.Offset, Directive, "yaegi directive (yaegi reads it from the comment text)")
		case strings.HasPrefix(body, "#cgo"), strings.Contains(text, "\n#cgo"):
			c.report(cm.Offset, Directive, "#cgo directive")
		}
	}
}

// hasYaegiDirective reports a "yaegi:" line in a comment: yaegi reads directives from the
// comment's text, after the comment markers and leading spaces.
func hasYaegiDirective(comment string) bool {
	text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(comment, "//"), "/*"), "*/")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " \t*"), "yaegi:") {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
