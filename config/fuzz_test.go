package config

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

// FuzzLoad: any project file either loads, with every value of [defaults] and [limits] inside
// its range, finite, and printable by rlm config, or fails with a fault.Schema error that names
// the file. Seeded from every TOML block of the README and docs/models.md, and from bad values.
func FuzzLoad(f *testing.F) {
	for _, doc := range []string{"../README.md", "../docs/models.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range tomlBlock.FindAllStringSubmatch(string(b), -1) {
			f.Add(m[1])
		}
	}
	for _, s := range []string{
		"[limits]\nmax_cost = inf\n", "[limits]\nmax_cost = nan\n", "[limits]\nmax_calls = -1\n",
		"[limits]\nworker_memory = \"1e30GiB\"\n", "[limits]\ncell_timeout = \"9223372036854775807ns\"\n",
		"[limits]\nworkspace_bytes = 9223372036854775807\n", "[defaults]\nmodel = [\"a\", 1]\n",
		"[defaults]\ntimeout = -5\n", "[models.m]\ntemperature = nan\n", "[backends.b]\nbase_url = 7\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		project := filepath.Join(dir, "rlm.toml")
		if err := os.WriteFile(project, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Options{ProjectFile: project, UserFile: filepath.Join(dir, "none.toml"), Getenv: func(string) string { return "" }})
		if err != nil {
			if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), project) {
				t.Fatalf("error %v: want a fault.Schema error naming %s", err, project)
			}
			return
		}
		for _, s := range specs {
			v := c.get(s)
			if l, ok := v.([]string); ok && len(l) == 0 {
				continue // no ladder set: the root's (sub_model) or none (model)
			}
			if err := s.inRange(v); err != nil {
				t.Errorf("%s = %v loaded out of range: %v", s.key, v, err)
			}
			if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
				t.Errorf("%s = %v loaded", s.key, x)
			}
		}
		if err := c.Write(io.Discard); err != nil {
			t.Error(err)
		}
		c.Entries()
	})
}

// FuzzFlags: any text given to any flag either sets a value inside its range or fails with a
// fault.Schema error that names the flag.
func FuzzFlags(f *testing.F) {
	for _, s := range []string{"7", "0", "-1", "1.5", "inf", "NaN", "90m", "1e9", "512MiB", "big,small", `{"top_k": 20}`, "", " 3 "} {
		f.Add(uint8(0), s)
	}
	flags := Flags()
	f.Fuzz(func(t *testing.T, i uint8, text string) {
		fl := flags[int(i)%len(flags)]
		dir := t.TempDir()
		none := filepath.Join(dir, "none.toml")
		c, err := Load(Options{ProjectFile: none, UserFile: none, Getenv: func(string) string { return "" },
			Flags: map[string]string{fl.Name: text}})
		if err != nil {
			if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), "--"+fl.Name) && !strings.Contains(err.Error(), "no model") {
				t.Fatalf("--%s %q: %v; want a fault.Schema error naming the flag", fl.Name, text, err)
			}
			return
		}
		s, ok := lookup(fl.Key)
		if !ok {
			return // a root sampling flag: llm.New checked it (Load's check)
		}
		v := c.get(s)
		if l, ok := v.([]string); ok && len(l) == 0 {
			return
		}
		if err := s.inRange(v); err != nil {
			t.Errorf("--%s %q set %s = %v, out of range: %v", fl.Name, text, s.key, v, err)
		}
	})
}
