package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestLimitsTextStatesTheSessionsLimits: :limits prints the limits the session enforces, not
// the package defaults.
func TestLimitsTextStatesTheSessionsLimits(t *testing.T) {
	lim := engine.Limits{OutputChars: 1234, PeekChars: 777}.Effective()
	got := limitsText(lim, 45*time.Second, "/ws")
	for _, want := range []string{"cell timeout 45s; output 1,234 characters per cell", "workspace /ws ", "at most 777 per call", "output shown to you; at most 1,234 characters per cell"} {
		if !strings.Contains(got, want) {
			t.Errorf(":limits lacks %q:\n%s", want, got)
		}
	}
	for _, stale := range []string{"100,000", "16,000"} {
		if strings.Contains(got, stale) {
			t.Errorf(":limits states the default %s, not the session's value:\n%s", stale, got)
		}
	}
}
