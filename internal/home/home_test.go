package home

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFromEnv: RLM_HOME is always absolute. A relative RLM_HOME or HOME is refused rather than
// resolved against the working directory (whose .rlm/config.toml a cell could have written), and
// an unset HOME falls back to the password database's home, never to ".rlm".
func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name    string
		env     map[string]string
		want    string // "" = an error
		wantErr string
	}{
		{"RLM_HOME absolute", map[string]string{"RLM_HOME": "/srv/rlm/", "HOME": "/home/u"}, "/srv/rlm", ""},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.rlm", ""},
		{"RLM_HOME relative", map[string]string{"RLM_HOME": ".rlm", "HOME": "/home/u"}, "", "RLM_HOME=.rlm is a relative path"},
		{"HOME relative", map[string]string{"HOME": "home"}, "", "set RLM_HOME to an absolute directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromEnv = %q, %v; want an error containing %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("FromEnv = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	got, err := FromEnv(func(string) string { return "" })
	if err == nil && (!filepath.IsAbs(got) || filepath.Base(got) != ".rlm") {
		t.Fatalf("FromEnv with no HOME = %q; want an absolute .rlm from the password database, or an error", got)
	}
}
