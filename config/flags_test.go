package config

import "testing"

// TestFlagTypes: every configuration flag names the type of value it takes, so that help shows
// "--max-calls int", not "--max-calls string" (the flags are read as text, for Load's parser).
func TestFlagTypes(t *testing.T) {
	want := map[string]string{
		"model": "string", "sub-model": "string", "timeout": "duration", "max-iterations": "int", "max-subcalls": "int",
		"max-batches": "int", "max-runs": "int", "max-calls": "int", "max-tokens": "int", "max-cost": "float", "cell-timeout": "duration",
		"temperature": "float", "top-p": "float", "max-output-tokens": "int", "reasoning-effort": "string", "seed": "int", "extra": "json",
	}
	seen := map[string]bool{}
	for _, f := range Flags() {
		seen[f.Name] = true
		if w, ok := want[f.Name]; !ok {
			t.Errorf("--%s: not in this test's table; add it with its type (%q)", f.Name, f.Type)
		} else if f.Type != w {
			t.Errorf("--%s: type %q, want %q", f.Name, f.Type, w)
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("--%s: no such flag", name)
		}
	}
}
