package config

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/llm"
)

// Entry is one effective setting and where it came from, as `rlm config` shows it.
type Entry struct {
	Key    string `json:"key"`   // "limits.max_calls", "models.big.temperature", "backends.local.api_key_env"
	Value  any    `json:"value"` // a number, a string, a list of strings, or null (nothing set)
	Text   string `json:"-"`     // the value as TOML
	Source Source `json:"-"`
	// KeySet is set on the entries naming a key's variable: whether that variable is set. The
	// key itself is never shown.
	KeySet *bool  `json:"key_set,omitempty"`
	Note   string `json:"note,omitempty"`
}

// MarshalJSON writes the source as "source" (its origin) and "from" (the flag, variable or file).
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	return json.Marshal(struct {
		plain
		Source string `json:"source"`
		From   string `json:"from,omitempty"`
	}{plain(e), string(e.Source.Origin), e.Source.Name})
}

// Entries lists every setting with its effective value and source: [defaults], [limits], the
// default backend, the named backends, the models and the tools. Keys are never included: a backend's
// entry names the variable that holds its key and says whether it is set.
func (c *Config) Entries() []Entry {
	var out []Entry
	for _, s := range specs {
		out = append(out, c.specEntry(s))
	}
	out = append(out, c.defaultBackendEntries()...)
	for _, name := range slices.Sorted(maps.Keys(c.Models.Backends)) {
		out = append(out, c.backendEntries(name)...)
	}
	for _, name := range c.modelNames() {
		out = append(out, c.modelEntries(name)...)
	}
	for _, t := range c.Tools {
		out = append(out, t.entries()...)
	}
	out = append(out, c.convertEntries()...)
	return out
}

func (c *Config) specEntry(s spec) Entry {
	e := Entry{Key: s.key, Source: c.Source(s.key)}
	switch v := c.get(s).(type) {
	case int64:
		e.Value, e.Text = v, strconv.FormatInt(v, 10)
		if s.kind == kSize {
			e.Text = strconv.Quote(strings.ReplaceAll(formatSize(v), " ", ""))
			if strings.HasSuffix(e.Text, `bytes"`) {
				e.Text = strconv.FormatInt(v, 10)
			}
		}
	case float64:
		e.Value, e.Text = v, strconv.FormatFloat(v, 'f', -1, 64)
		if v == 0 {
			e.Note = "no dollar budget"
		}
	case time.Duration:
		e.Value, e.Text = formatDuration(v), strconv.Quote(formatDuration(v))
	case []string:
		if len(v) == 0 {
			e.Value, e.Note = nil, map[string]string{"defaults.model": "not set", "defaults.sub_model": "the root model"}[s.key]
		} else {
			e.Value, e.Text = strings.Join(v, ","), strconv.Quote(strings.Join(v, ","))
		}
	case string:
		e.Value, e.Text = v, strconv.Quote(v)
	}
	return e
}

func (c *Config) defaultBackendEntries() []Entry {
	src := Source{Origin: Default}
	if c.BaseURLEnv != "" {
		src = Source{Origin: Env, Name: c.BaseURLEnv}
	}
	base := Entry{Key: "backends.default.base_url", Source: src}
	if c.BaseURL != "" {
		base.Value, base.Text = c.BaseURL, strconv.Quote(c.BaseURL)
	} else {
		base.Note = "the provider's public API"
	}
	set := c.KeyEnv != ""
	key := Entry{Key: "backends.default.api_key_env", KeySet: &set, Source: Source{Origin: Default}}
	if set {
		key.Value, key.Text, key.Source = c.KeyEnv, strconv.Quote(c.KeyEnv), Source{Origin: Env, Name: c.KeyEnv}
	} else {
		key.Note = "none of " + strings.Join(c.DefaultKeyEnvs(), ", ") + " is set"
	}
	return []Entry{base, key}
}

func (c *Config) backendEntries(name string) []Entry {
	b, src := c.Models.Backends[name], c.Source("backends."+name)
	p := "backends." + name + "."
	var out []Entry
	add := func(k, v string) {
		if v != "" {
			out = append(out, Entry{Key: p + k, Value: v, Text: strconv.Quote(v), Source: src})
		}
	}
	add("provider", b.Provider)
	add("base_url", b.BaseURL)
	if b.APIKeyEnv != "" {
		set := strings.TrimSpace(c.getenv(b.APIKeyEnv)) != ""
		out = append(out, Entry{Key: p + "api_key_env", Value: b.APIKeyEnv, Text: strconv.Quote(b.APIKeyEnv), Source: src, KeySet: &set})
	}
	if len(out) == 0 {
		out = append(out, Entry{Key: p + "provider", Value: "openai", Text: `"openai"`, Source: src, Note: "every key left out"})
	}
	return out
}

// modelNames are the configured models and the ladders' models, sorted.
func (c *Config) modelNames() []string {
	names := slices.Collect(maps.Keys(c.Models.Models))
	for _, m := range append(slices.Clone(c.Model), c.SubModel...) {
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	slices.Sort(names)
	return names
}

func (c *Config) modelEntries(name string) []Entry {
	m, configured := c.Models.Models[name]
	src, p := c.Source("models."+name), "models."+name+"."
	var out []Entry
	add := func(k string, v any, s Source) {
		out = append(out, Entry{Key: p + k, Value: v, Text: tomlValue(v), Source: s})
	}
	if !configured {
		out = append(out, Entry{Key: p + "backend", Value: c.Backend, Text: strconv.Quote(c.Backend), Source: c.Source("defaults.backend"),
			Note: "no [models." + name + "]: sent under its own name, no price (cost unknown)"})
	}
	s := llm.Sampling{Temperature: m.Temperature, TopP: m.TopP, MaxTokens: m.MaxTokens, ReasoningEffort: m.ReasoningEffort, Seed: m.Seed, Extra: m.Extra}
	root := slices.Contains(c.Model, name)
	field := func(k string) Source {
		if fs, ok := c.sources["root."+k]; ok && root {
			return fs
		}
		return src
	}
	if root {
		s = s.Override(c.RootSampling)
	}
	if m.ID != "" {
		add("id", m.ID, src)
	}
	if m.Backend != "" {
		add("backend", m.Backend, src)
	}
	if s.Temperature != nil {
		add("temperature", *s.Temperature, field("temperature"))
	}
	if s.TopP != nil {
		add("top_p", *s.TopP, field("top_p"))
	}
	if s.MaxTokens != 0 {
		add("max_tokens", int64(s.MaxTokens), field("max_tokens"))
	}
	if s.ReasoningEffort != "" {
		add("reasoning_effort", s.ReasoningEffort, field("reasoning_effort"))
	}
	if s.Seed != nil {
		add("seed", *s.Seed, field("seed"))
	}
	if len(s.Extra) > 0 {
		add("extra", s.Extra, field("extra"))
	}
	for _, pr := range []struct {
		k string
		v *float64
	}{{"price_in", m.PriceIn}, {"price_out", m.PriceOut}, {"price_cached", m.PriceCached}} {
		if pr.v != nil {
			add(pr.k, *pr.v, src)
		}
	}
	if configured && m.PriceIn == nil {
		out = append(out, Entry{Key: p + "price_in", Source: src, Note: "no price: cost unknown unless the server reports it"})
	}
	return out
}

// tomlValue writes a value as TOML.
func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, k+" = "+tomlValue(x[k]))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, tomlValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Write prints the effective configuration as TOML, each value followed by where it came from
// ("# env RLM_MAX_CALLS"), the files read and the order of precedence first. Keys are never
// printed.
func (c *Config) Write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Effective rlm configuration. Precedence: flag > environment > project file > user file > default;\n")
	b.WriteString("# a project file you have not trusted (rlm config trust) may only lower limits.\n")
	for _, f := range c.Files {
		fmt.Fprintf(&b, "# %s file %s: %s\n", f.Origin, f.Path, fileState(f))
	}
	table := ""
	for _, e := range c.Entries() {
		t, k := e.Key[:strings.LastIndexByte(e.Key, '.')], e.Key[strings.LastIndexByte(e.Key, '.')+1:]
		if t != table {
			table = t
			fmt.Fprintf(&b, "\n[%s]\n", tableHeader(t))
		}
		b.WriteString(entryLine(k, e))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// fileState says whether a file was read and, for a project file, whether it is trusted.
func fileState(f File) string {
	switch {
	case !f.Read:
		return "not present"
	case f.Origin != Project:
		return "read (yours: needs no trust)"
	case f.Trusted:
		return "read, trusted"
	}
	return "read, not trusted (applied because it only lowers limits; rlm config trust to use more)"
}

// tableHeader quotes a model or backend name that is not a bare TOML key ("gpt-4.1").
func tableHeader(t string) string {
	i := strings.IndexByte(t, '.')
	if i < 0 {
		return t
	}
	name := t[i+1:]
	if strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		name = strconv.Quote(name)
	}
	return t[:i+1] + name
}

func entryLine(k string, e Entry) string {
	comment := e.Source.String()
	if e.KeySet != nil {
		if *e.KeySet {
			comment += "; the variable is set"
		} else if e.Value != nil {
			comment += "; the variable is NOT set"
		}
	}
	if e.Note != "" {
		comment += "; " + e.Note
	}
	line := k + " = " + e.Text
	if e.Text == "" {
		line = "# " + k + " (not set)"
	}
	return fmt.Sprintf("%-40s # %s\n", line, comment)
}

// Keys writes every key of [defaults] and [limits] with its flag, variable, range and meaning,
// and the other variables rlm reads, for `rlm config --keys`.
func Keys(w io.Writer) error {
	var b strings.Builder
	for _, s := range specs {
		fmt.Fprintf(&b, "%s\n    %s", s.key, s.doc)
		var via []string
		if s.flag != "" {
			via = append(via, "--"+s.flag)
		}
		if s.env != "" {
			via = append(via, s.env)
		}
		if s.lo != 0 || s.hi != 0 {
			fmt.Fprintf(&b, "; %s to %s", s.format(s.lo), s.format(s.hi))
		}
		if len(via) > 0 {
			fmt.Fprintf(&b, "; also %s", strings.Join(via, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n[backends.NAME]: provider, base_url, api_key_env (the NAME of the variable holding the key)\n")
	b.WriteString("[models.NAME]: id, backend, temperature, top_p, max_tokens, reasoning_effort, seed, extra, price_in, price_out, price_cached\n")
	b.WriteString("[tools.NAME]: " + strings.Join(toolKeys(), ", ") + " (a command model code may call as NAME; README: Your own tools)\n")
	b.WriteString("[convert]: EXT = [\"program\", \"arg\", \"{path}\"], or EXT = { exec = [...], timeout, max_output }: the command that prints an input's text\n")
	b.WriteString("Root model flags: ")
	var fl []string
	for _, f := range samplingFlags {
		fl = append(fl, "--"+f.flag)
	}
	b.WriteString(strings.Join(fl, ", ") + " (override the root models' [models.NAME] settings)\n")
	b.WriteString("\nOther variables (rlm warns about any other RLM_ or SFA_ name):\n")
	for _, v := range envVars {
		if !v.internal {
			fmt.Fprintf(&b, "%s\n    %s\n", v.name, v.doc)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
