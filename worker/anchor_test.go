package worker

import "testing"

func TestTextAnchored(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{`^2026-11-01T10:00:06Z ERROR`, true},
		{`ERROR$`, true},
		{`(?m)^ERROR`, false},
		{`ERROR`, false},
		{`[^a]ERROR`, false},
		{`\$5`, false},
		{`(`, false},
		{`a|^b`, true},
	} {
		if got := textAnchored(c.pattern); got != c.want {
			t.Errorf("textAnchored(%q) = %v; want %v", c.pattern, got, c.want)
		}
	}
}
