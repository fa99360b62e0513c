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
	"github.com/rlm-sandbox/rlm/internal/home"
)

// FuzzLoad: any file, as the user file, either loads, with every value of [defaults] and
// [limits] inside its range, finite, and printable by rlm config, or fails with a fault.Schema
// error that names the file. As a project file nobody trusted, it either fails the same way or
// loads with every value at or below the default (and a dollar budget only where none was) and
// no backend or model. Seeded from every TOML block of the README and docs/models.md, and from
// bad values: out of range, and seconds whose conversion to a duration would overflow.
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
		"[defaults]\ntimeout = 18446744075\n", "[limits]\ncell_timeout = 18446744073709\n",
		"[limits]\ncell_timeout = 9223372036854775807\n", "[limits]\ncell_timeout = 0\n", "[defaults]\ntimeout = \"-1s\"\n",
		"[limits]\ncell_timeout = \"2562048h\"\n", "[limits]\nmax_calls = 5\nmax_cost = 0.5\ncell_timeout = 2\n",
		"[limits]\nmax_cost = 0\n", "[models.gpt-4o]\nbackend = \"evil\"\n[backends.evil]\napi_key_env = \"RLM_API_KEY\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		dir := t.TempDir()
		file, none := filepath.Join(dir, "rlm.toml"), filepath.Join(dir, "none.toml")
		if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		noenv := func(string) string { return "" }
		store := home.TrustStore(dir)
		c, err := Load(Options{ProjectFile: none, UserFile: file, TrustStore: store, Getenv: noenv})
		if checkLoaded(t, c, err, file) {
			c.Entries()
		}
		c, err = Load(Options{ProjectFile: file, UserFile: none, TrustStore: store, Getenv: noenv})
		if checkLoaded(t, c, err, file) {
			checkStricter(t, c)
		}
	})
}

// checkLoaded checks FuzzLoad's first property and reports whether c loaded.
func checkLoaded(t *testing.T, c *Config, err error, file string) bool {
	if err != nil {
		if !errors.Is(err, fault.Schema) || !strings.Contains(err.Error(), file) {
			t.Fatalf("error %v: want a fault.Schema error naming %s", err, file)
		}
		return false
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
	return true
}

// checkStricter: what an untrusted project file set is stricter than the defaults.
func checkStricter(t *testing.T, c *Config) {
	def := Defaults()
	def.sources = map[string]Source{}
	for _, s := range specs {
		v, d := c.get(s), def.get(s)
		switch s.dir {
		case needsTrust:
			if jsonText(v) != jsonText(d) {
				t.Errorf("untrusted file set %s = %v", s.key, v)
			}
		case lowerIsStricter:
			if number(v) > number(d) {
				t.Errorf("untrusted file raised %s to %v from %v", s.key, v, d)
			}
		case zeroIsNone:
			if number(v) < 0 || number(d) > 0 && (number(v) == 0 || number(v) > number(d)) {
				t.Errorf("untrusted file set %s = %v over %v", s.key, v, d)
			}
		}
	}
	if len(c.Models.Backends) > 0 || len(c.Models.Models) > 0 {
		t.Errorf("untrusted file set backends or models: %+v", c.Models)
	}
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
