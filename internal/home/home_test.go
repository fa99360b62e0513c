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

// TestResolveWithoutHOME: with neither RLM_HOME nor HOME set, RLM_HOME is .rlm in the password
// database's home, and a note says so and how to choose another; with no home there either,
// an error says to set RLM_HOME or HOME. Never the working directory's .rlm, never in silence.
func TestResolveWithoutHOME(t *testing.T) {
	saved := passwdHome
	t.Cleanup(func() { passwdHome = saved })
	none := func(string) string { return "" }

	passwdHome = func() (string, string) { return "/var/lib/svc", "svc" }
	dir, note, err := Resolve(none)
	want := "HOME is not set: RLM_HOME is /var/lib/svc/.rlm, in the home directory the password database gives user svc; set RLM_HOME (or HOME) to choose another"
	if err != nil || dir != "/var/lib/svc/.rlm" || note != want {
		t.Errorf("Resolve with the database's home = %q, %q, %v; want /var/lib/svc/.rlm and the note %q", dir, note, err, want)
	}
	if _, note, _ := Resolve(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }); note != "" {
		t.Errorf("Resolve with HOME set: note %q, want none", note)
	}

	for _, h := range []string{"", "."} {
		passwdHome = func() (string, string) { return h, "nobody" }
		dir, note, err = Resolve(none)
		if err == nil || !strings.Contains(err.Error(), "HOME is not set") || !strings.Contains(err.Error(), "set RLM_HOME to an absolute directory, such as RLM_HOME=/var/lib/rlm, or HOME to yours") {
			t.Errorf("Resolve with no home at all (database: %q) = %q, %q, %v; want an error that says to set RLM_HOME or HOME", h, dir, note, err)
		}
	}
}
