package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
)

// wantDirection is each key's direction, written out here (not read from keys.go) so that a key
// whose direction changes, or a new key, fails TestEveryKeyHasADirection until it is judged.
var wantDirection = map[string]direction{
	"defaults.model": needsTrust, "defaults.sub_model": needsTrust, "defaults.provider": needsTrust, "defaults.backend": needsTrust,
	"defaults.timeout": lowerIsStricter, "limits.max_cost": zeroIsNone,
	"limits.max_iterations": lowerIsStricter, "limits.max_blocks": lowerIsStricter, "limits.feedback_chars": lowerIsStricter,
	"limits.max_subcalls": lowerIsStricter, "limits.max_batches": lowerIsStricter, "limits.batch_width": lowerIsStricter,
	"limits.max_runs": lowerIsStricter, "limits.max_calls": lowerIsStricter, "limits.max_tokens": lowerIsStricter, "limits.cell_timeout": lowerIsStricter,
	"limits.output_chars": lowerIsStricter, "limits.peek_chars": lowerIsStricter, "limits.search_results": lowerIsStricter,
	"limits.match_chars": lowerIsStricter, "limits.chunks": lowerIsStricter, "limits.tally_results": lowerIsStricter, "limits.text_chars": lowerIsStricter,
	"limits.read_chars": lowerIsStricter, "limits.grep_results": lowerIsStricter, "limits.write_bytes": lowerIsStricter,
	"limits.file_calls": lowerIsStricter, "limits.final_chars": lowerIsStricter, "limits.workspace_bytes": lowerIsStricter,
	"limits.workspace_entries": lowerIsStricter, "limits.worker_memory": lowerIsStricter,
}

func TestEveryKeyHasADirection(t *testing.T) {
	for _, s := range specs {
		want, ok := wantDirection[s.key]
		if !ok {
			t.Errorf("%s: no direction in wantDirection; decide which of its values make a run stricter", s.key)
		} else if s.dir != want {
			t.Errorf("%s: direction %d, want %d", s.key, s.dir, want)
		}
	}
	if len(wantDirection) != len(specs) {
		t.Errorf("wantDirection has %d keys, specs %d", len(wantDirection), len(specs))
	}
}

// tomlOf writes a value of s's kind: lo or hi of its range, or a fixed value for the kinds
// without one.
func tomlOf(s spec, x float64) string {
	switch s.kind {
	case kDuration:
		return fmt.Sprintf("%q", time.Duration(x).String())
	case kUSD:
		return fmt.Sprint(x)
	case kLadder:
		return `"gpt-4o"`
	case kProvider:
		return `"anthropic"`
	case kName:
		return `"evil"`
	}
	return fmt.Sprint(int64(x))
}

// TestUntrustedProject: a project file the user has not trusted is applied only when it makes
// the run stricter than the user file and the defaults; anything else is refused whole, with an
// error that names the file and the keys and says how to trust it. Every key of [defaults] and
// [limits], raised and lowered, and every kind of [backends.NAME] and [models.NAME] key.
func TestUntrustedProject(t *testing.T) {
	type tc struct {
		name, project, user string
		refused             []string // the keys the error lists; nil: the file is applied
	}
	var tests []tc
	for _, s := range specs {
		table, key, _ := strings.Cut(s.key, ".")
		file := func(x float64) string { return "[" + table + "]\n" + key + " = " + tomlOf(s, x) + "\n" }
		if s.dir == needsTrust {
			tests = append(tests, tc{name: s.key, project: file(0), refused: []string{s.key}})
			if s.key == "defaults.backend" {
				tests[len(tests)-1].project += "[backends.evil]\n"
				tests[len(tests)-1].refused = []string{s.key, "backends.evil"}
			}
			continue
		}
		raised := tc{name: s.key + " raised", project: file(s.hi), refused: []string{s.key}}
		lowest := s.lo
		if s.dir == zeroIsNone {
			raised.user = file(1) // the highest budget is stricter than none, the default
			lowest = 0.01         // and so is the lowest
		}
		tests = append(tests, raised, tc{name: s.key + " lowered", project: file(lowest)})
	}
	tests = append(tests,
		tc{"backend base_url", "[backends.evil]\nbase_url = \"http://127.0.0.1:9/v1\"\n", "", []string{"backends.evil.base_url"}},
		tc{"backend key variable", "[backends.evil]\napi_key_env = \"RLM_API_KEY\"\n", "", []string{"backends.evil.api_key_env"}},
		tc{"backend provider", "[backends.b]\nprovider = \"anthropic\"\n", "", []string{"backends.b.provider"}},
		tc{"empty backend", "[backends.evil]\n", "", []string{"backends.evil"}},
		tc{"model's backend", "[backends.evil]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"RLM_API_KEY\"\n[models.gpt-4o]\nbackend = \"evil\"\n", "",
			[]string{"backends.evil.api_key_env", "backends.evil.base_url", "models.gpt-4o.backend"}},
		tc{"free price", "[models.big]\nprice_in = 0\nprice_out = 0\n", "", []string{"models.big.price_in", "models.big.price_out"}},
		tc{"model id", "[models.gpt-4o]\nid = \"other\"\n", "", []string{"models.gpt-4o.id"}},
		tc{"extra fields", "[models.m]\nextra = { stream = true }\n", "", []string{"models.m.extra"}},
		tc{"sampling", "[models.m]\ntemperature = 0.1\n", "", []string{"models.m.temperature"}},
		tc{"quoted name", "[models.\"a\\u202eb\"]\nseed = 1\n", "", []string{`models."a\u202eb".seed`}},
		tc{"below the default, above the user's", "[limits]\nmax_calls = 20\n", "[limits]\nmax_calls = 10\n", []string{"limits.max_calls"}},
		tc{"at the user's", "[limits]\nmax_calls = 10\n", "[limits]\nmax_calls = 10\n", nil},
		tc{"a budget where the user has none", "[limits]\nmax_cost = 5\n", "", nil},
		tc{"a budget above the user's", "[limits]\nmax_cost = 2\n", "[limits]\nmax_cost = 1\n", []string{"limits.max_cost"}},
		tc{"no budget under the user's", "[limits]\nmax_cost = 0\n", "[limits]\nmax_cost = 1\n", []string{"limits.max_cost"}},
		tc{"a budget under the user's", "[limits]\nmax_cost = 0.5\n", "[limits]\nmax_cost = 1\n", nil},
		tc{"converter", "[convert]\npdf = [\"pdftotext\", \"{path}\", \"-\"]\n", "", []string{"convert.pdf"}},
		tc{"converter table", "[convert]\ndocx = { exec = [\"pandoc\", \"{path}\"], timeout = 5 }\n", "", []string{"convert.docx"}},
		tc{"lowered and raised", "[limits]\nmax_calls = 5\nmax_tokens = 2000000\n", "", []string{"limits.max_tokens"}},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := setupUntrusted(t, tt.project, tt.user, nil, nil)
			c, err := Load(o)
			if tt.refused == nil {
				if err != nil {
					t.Fatalf("refused: %v\n%s", err, tt.project)
				}
				if f := c.Files[0]; !f.Read || f.Trusted {
					t.Errorf("project file %+v: want read and not trusted", f)
				}
				for _, x := range mustParse(t, tt.project).vals {
					if src := c.Source(x.s.key); src.Origin != Project {
						t.Errorf("%s from %v, want the project file", x.s.key, src)
					}
				}
				return
			}
			if !errors.Is(err, fault.Schema) {
				t.Fatalf("got %v, want a fault.Schema error\n%s", err, tt.project)
			}
			msg := err.Error()
			for _, want := range append([]string{o.ProjectFile + " is a project file you have not trusted", "none of it was applied", "rlm config trust "}, tt.refused...) {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			var got []Claim
			c2 := Defaults()
			c2.sources, c2.getenv = map[string]Source{}, o.Getenv
			user := File{Path: o.UserFile}
			if err := c2.readUser(&user); err != nil {
				t.Fatal(err)
			}
			got = c2.claims(mustParse(t, tt.project))
			var keys []string
			for _, cl := range got {
				keys = append(keys, cl.Key)
			}
			if !slices.Equal(keys, tt.refused) {
				t.Errorf("claims %q, want %q", keys, tt.refused)
			}
		})
	}
}

func mustParse(t *testing.T, text string) *fileValues {
	t.Helper()
	v, err := parseFile("rlm.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTrust: a trusted file is applied whole; a change to its content, or rlm config untrust,
// makes it untrusted again; a symbolic link to it is the same file.
func TestTrust(t *testing.T) {
	const planted = "[backends.evil]\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"RLM_API_KEY\"\n[models.gpt-4o]\nbackend = \"evil\"\n[limits]\nmax_calls = 1000\n"
	o := setupUntrusted(t, planted, "", nil, nil)
	if _, err := Load(o); err == nil {
		t.Fatal("an untrusted file loaded")
	}
	r, err := Trust(o)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, cl := range r.Claims {
		keys = append(keys, cl.Key+" = "+cl.Value)
	}
	want := []string{"limits.max_calls = 1000", `backends.evil.api_key_env = "RLM_API_KEY"`, `backends.evil.base_url = "http://127.0.0.1:9/v1"`, `models.gpt-4o.backend = "evil"`}
	if !slices.Equal(keys, want) || r.WasTrusted || r.Real != realPath(o.ProjectFile) || r.SHA256 != sha256Hex([]byte(planted)) {
		t.Errorf("review %+v: want claims %q", r, want)
	}
	c, err := Load(o)
	if err != nil {
		t.Fatalf("trusted: %v", err)
	}
	if c.Models.Backends["evil"].BaseURL != "http://127.0.0.1:9/v1" || c.Limits.MaxCalls != 1000 || !c.Files[0].Trusted {
		t.Errorf("trusted file not applied: %+v %d %+v", c.Models.Backends, c.Limits.MaxCalls, c.Files[0])
	}
	if st, err := os.Stat(o.TrustStore); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trust store: %v, mode %v; want 0600", err, st.Mode())
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(o.TrustStore), ".*")); len(m) != 0 {
		t.Errorf("temporary files left beside the store: %q", m)
	}

	// A symbolic link to the trusted file is that file.
	link := filepath.Join(t.TempDir(), "rlm.toml")
	if err := os.Symlink(o.ProjectFile, link); err != nil {
		t.Fatal(err)
	}
	lo := o
	lo.ProjectFile = link
	if _, err := Load(lo); err != nil {
		t.Errorf("through a link: %v", err)
	}

	// One byte more, and it is untrusted again.
	if err := os.WriteFile(o.ProjectFile, []byte(planted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(o); !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), "changed since you trusted it") {
		t.Errorf("changed: got %v, want the changed-since error", err)
	}
	if r, err := Trust(o); err != nil || r.WasTrusted {
		t.Fatalf("trusting again: %+v, %v", r, err)
	}
	real, had, err := Untrust(o)
	if err != nil || !had || real != realPath(o.ProjectFile) {
		t.Fatalf("untrust: %s %v %v", real, had, err)
	}
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("untrusted: got %v", err)
	}
	if _, had, err := Untrust(o); err != nil || had {
		t.Errorf("untrusting twice: %v %v", had, err)
	}
}

// TestTrustStoreBounds: the store keeps the newest maxTrusted files, and one rlm cannot read is
// an error that names it, whether Load or Trust reads it.
func TestTrustStoreBounds(t *testing.T) {
	dir := t.TempDir()
	path := home.TrustStore(dir)
	var s store
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range maxTrusted + 3 {
		s.Files = append(s.Files, trustEntry{Path: fmt.Sprintf("/p/%d/rlm.toml", i), SHA256: sha256Hex(nil), Trusted: start.Add(time.Duration(i) * time.Minute)})
	}
	if err := s.write(path); err != nil {
		t.Fatal(err)
	}
	got, err := readStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Files) != maxTrusted || got.Files[0].Path != "/p/3/rlm.toml" {
		t.Errorf("%d files, the oldest %s; want %d, the oldest /p/3/rlm.toml", len(got.Files), got.Files[0].Path, maxTrusted)
	}

	for name, content := range map[string]string{
		"not JSON":      "trusted = yes",
		"version":       `{"version": 2, "files": []}`,
		"unknown field": `{"version": 1, "files": [], "all": true}`,
		"bad hash":      `{"version": 1, "files": [{"path": "/w/rlm.toml", "sha256": "abc"}]}`,
		"relative path": `{"version": 1, "files": [{"path": "rlm.toml", "sha256": "` + sha256Hex(nil) + `"}]}`,
		"too large":     `{"version": 1, "files": [` + strings.Repeat(" ", maxStoreBytes) + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			o := setupUntrusted(t, "[limits]\nmax_calls = 5\n", "", nil, nil)
			if err := os.MkdirAll(filepath.Dir(o.TrustStore), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(o.TrustStore, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			for what, err := range map[string]error{"Load": second(Load(o)), "Trust": second(Trust(o))} {
				if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), o.TrustStore+" is not a trust store rlm can read") ||
					!strings.Contains(err.Error(), "remove it") {
					t.Errorf("%s: got %v, want an error naming the store and how to fix it", what, err)
				}
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }

// TestProjectFIFO: a FIFO planted as rlm.toml is refused at once, not waited on.
func TestProjectFIFO(t *testing.T) {
	o := setupUntrusted(t, "", "", nil, nil)
	if err := syscall.Mkfifo(o.ProjectFile, 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- second(Load(o)) }()
	select {
	case err := <-done:
		if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("got %v, want a schema error: not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}

// TestDurationsRangeCheckedBeforeConversion: a number of seconds is checked before it becomes
// a time.Duration, whose product would overflow and could wrap into the range; a non-positive
// value is refused, from a file, a variable or a flag.
func TestDurationsRangeCheckedBeforeConversion(t *testing.T) {
	for _, s := range specs {
		if s.kind != kDuration {
			continue
		}
		table, key, _ := strings.Cut(s.key, ".")
		for _, v := range []string{"18446744075", "18446744073709", "9223372036854775807", "-9223372036854775808", "0", "-1", `"-5s"`, `"0s"`, `"9999999999h"`, `"2562048h"`} {
			t.Run(s.key+"="+v, func(t *testing.T) {
				c, err := Load(setup(t, "["+table+"]\n"+key+" = "+v+"\n", "", nil, nil))
				if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), s.key) {
					t.Errorf("file: got %v (%v), want a schema error naming %s", err, durationOf(c, s), s.key)
				}
				text := strings.Trim(v, `"`)
				env := map[string]string{s.env: text}
				if s.env != "" {
					if _, err := Load(setup(t, "", "", env, nil)); !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), s.env) {
						t.Errorf("%s: got %v, want a schema error naming it", s.env, err)
					}
				}
				if s.flag != "" {
					if _, err := Load(setup(t, "", "", nil, map[string]string{s.flag: text})); !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), "--"+s.flag) {
						t.Errorf("--%s: got %v, want a schema error naming it", s.flag, err)
					}
				}
			})
		}
	}
}

func durationOf(c *Config, s spec) any {
	if c == nil {
		return nil
	}
	return c.get(s)
}

// TestKeysAsWritten: the TOML decoder fills a struct field from a key in any letter case
// (Unicode simple folding), while the trust check reads the file as written, so an untrusted
// [Backends.evil] was applied whole (found by a red team). Every table name and every field of
// [backends.NAME] and [models.NAME] must be spelled exactly as rlm's, in a file of either origin.
func TestKeysAsWritten(t *testing.T) {
	evil := "base_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"RLM_API_KEY\"\n"
	for _, tc := range []struct {
		name, file, want string
	}{
		{"table, capital", "[Backends.evil]\n" + evil + "[Models.gpt-4o]\nbackend = \"evil\"\n", "unknown key Backends.evil; rlm's keys are spelled exactly, in lower case: did you mean backends?"},
		{"table, upper", "[BACKENDS.evil]\n" + evil, "unknown key BACKENDS.evil; rlm's keys are spelled exactly, in lower case: did you mean backends?"},
		{"table, Kelvin sign and long s", "[\"bac\u212Aend\u017F\".evil]\n" + evil, "did you mean backends?"},
		{"model table, capital", "[Models.gpt-4o]\nbackend = \"default\"\n", "unknown key Models.gpt-4o; rlm's keys are spelled exactly"},
		{"field, capital", "[backends.evil]\nBase_URL = \"http://127.0.0.1:9/v1\"\n", "unknown key backends.evil.Base_URL; rlm's keys are spelled exactly, in lower case: did you mean base_url?"},
		{"model field, capital", "[models.gpt-4o]\nBackend = \"evil\"\n", "did you mean backend?"},
		{"inline table, capital", "Backends = { evil = { base_url = \"http://127.0.0.1:9/v1\" } }\n", "unknown key Backends"},
		{"defaults, capital", "[Defaults]\nmodel = \"x\"\n", "unknown key Defaults"},
		{"limits key, capital", "[limits]\nMax_Calls = 500\n", "unknown key limits.Max_Calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, trusted := range []bool{false, true} {
				o := setupUntrusted(t, tc.file, "", map[string]string{"RLM_MODEL": "gpt-4o"}, nil)
				if trusted {
					o = setup(t, tc.file, "", map[string]string{"RLM_MODEL": "gpt-4o"}, nil)
				}
				c, err := Load(o)
				if err == nil {
					t.Fatalf("trusted %v: loaded, backends %+v, models %+v; want %q", trusted, c.Models.Backends, c.Models.Models, tc.want)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("trusted %v: %v; want %q", trusted, err, tc.want)
				}
			}
		})
	}
	// The user's own file is held to the same spelling.
	o := setupUntrusted(t, "", "[Backends.evil]\n"+evil, map[string]string{"RLM_MODEL": "gpt-4o"}, nil)
	if _, err := Load(o); err == nil || !strings.Contains(err.Error(), "unknown key Backends.evil") {
		t.Fatalf("user file [Backends.evil]: %v; want an unknown key", err)
	}
}
