package config

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// samplingFlagSpec is one of the root model's sampling flags.
type samplingFlagSpec struct {
	flag, key string // "top-p", "top_p" (the [models.NAME] key it overrides)
	typ       string // the type of value it takes, as help shows it: "float", "int", "string", "json"
	doc       string
	set       func(s *llm.Sampling, text string) error
}

// SamplingFlags are the root model's sampling flags, in the order `rlm run --help` lists them;
// each overrides the key of the same name in the root models' [models.NAME] tables.
var samplingFlags = []samplingFlagSpec{
	{"temperature", "temperature", "float", "sampling temperature of the root model, 0 to 2 (Anthropic: 0 to 1)", func(s *llm.Sampling, t string) error {
		f, err := unitFloat(t, 2)
		s.Temperature = &f
		return err
	}},
	{"top-p", "top_p", "float", "nucleus sampling of the root model, 0 to 1", func(s *llm.Sampling, t string) error {
		f, err := unitFloat(t, 1)
		s.TopP = &f
		return err
	}},
	{"max-output-tokens", "max_tokens", "int", "completion cap of each root call, in tokens", func(s *llm.Sampling, t string) error {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n < 1 || n > 1<<20 {
			return errors.New("want 1 to 1,048,576 tokens")
		}
		s.MaxTokens = n
		return nil
	}},
	{"reasoning-effort", "reasoning_effort", "string", "reasoning effort of the root model (low, medium, high; Anthropic also xhigh, max)", func(s *llm.Sampling, t string) error {
		t = strings.TrimSpace(t)
		if t == "" || strings.Trim(t, "abcdefghijklmnopqrstuvwxyz") != "" {
			return errors.New("want a lower-case word such as low, medium or high")
		}
		s.ReasoningEffort = t
		return nil
	}},
	{"seed", "seed", "int", "sampling seed of the root model (OpenAI-compatible servers)", func(s *llm.Sampling, t string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil {
			return errors.New("want a whole number")
		}
		s.Seed = &n
		return nil
	}},
	{"extra", "extra", "json", `more request body fields of the root model, as a JSON object such as '{"top_k": 20}'`, func(s *llm.Sampling, t string) error {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(t))
		if err := d.Decode(&m); err != nil || d.More() || len(m) == 0 || len(t) > maxExtra {
			return errors.New(`want a JSON object of at most 64 KiB with at least one field, such as '{"top_k": 20}'`)
		}
		s.Extra = m
		return nil
	}},
}

// maxExtra bounds --extra's text.
const maxExtra = 64 << 10

func unitFloat(t string, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || !(f >= 0 && f <= hi) {
		return 0, errors.New("want 0 to " + strconv.FormatFloat(hi, 'g', -1, 64))
	}
	return f, nil
}

func samplingFlag(name string) (samplingFlagSpec, bool) {
	for _, f := range samplingFlags {
		if f.flag == name {
			return f, true
		}
	}
	return samplingFlagSpec{}, false
}

// check validates what depends on more than one value: the default backend exists, and the
// models and backends are usable (llm.New's checks, with placeholder keys so that an unset key
// variable is not an error yet; LLM reads the keys).
func (c *Config) check() error {
	if c.Backend != llm.DefaultEndpointName {
		if _, ok := c.Models.Backends[c.Backend]; !ok {
			return schemaf("%s: defaults.backend = %q: no [backends.%s] is configured; backends: %s", c.Source("defaults.backend").Name,
				c.Backend, c.Backend, strings.Join(append([]string{llm.DefaultEndpointName}, slices.Sorted(maps.Keys(c.Models.Backends))...), ", "))
		}
	}
	placeholder := func(name string) string {
		if name == "" {
			return ""
		}
		return "placeholder-key"
	}
	if _, err := c.build(placeholder, "placeholder-key"); err != nil && !errors.Is(err, ErrNoModel) {
		return err
	}
	return nil
}

// LLM returns the model client's configuration: the default backend from the environment,
// the named backends with their keys (read with getenv from the variables api_key_env names;
// nil = the getenv Load used), the models, the ladders, the root sampling flags and the
// budgets. It fails with a fault.Schema error that names the file, variable or flag to fix,
// including when no root model is configured.
func (c *Config) LLM(getenv func(string) string) (llm.Config, error) {
	if getenv == nil {
		getenv = c.getenv
	}
	key := ""
	if c.KeyEnv != "" {
		key = strings.TrimSpace(getenv(c.KeyEnv))
	}
	return c.build(getenv, key)
}

func (c *Config) build(getenv func(string) string, key string) (llm.Config, error) {
	lc := llm.Config{Provider: c.Provider, BaseURL: c.BaseURL, APIKey: key, Models: c.Model, SubModels: c.SubModel,
		MaxCalls: c.Limits.MaxCalls, MaxTokens: c.Limits.MaxTokens, MaxCost: c.Limits.MaxCost}
	if c.Backend != llm.DefaultEndpointName {
		lc.DefaultEndpoint = c.Backend
	}
	if err := c.Models.Apply(&lc, getenv); err != nil {
		return lc, c.where(err)
	}
	if c.rootSamplingSet() {
		for _, m := range c.Model {
			mc := lc.Catalog[m]
			mc.Sampling = mc.Sampling.Override(c.RootSampling)
			lc.Catalog[m] = mc
		}
	}
	if len(lc.Models) == 0 {
		if len(lc.Catalog) == 0 && len(lc.SubModels) == 0 {
			return lc, ErrNoModel
		}
		// Check the rest; the caller decides whether a run needs a root model.
		check := lc
		check.Models = []string{"check"}
		if _, err := llm.New(check); err != nil {
			return lc, c.where(err)
		}
		return lc, ErrNoModel
	}
	if _, err := llm.New(lc); err != nil {
		return lc, c.where(err)
	}
	return lc, nil
}

// ErrNoModel is the error of LLM when no root model is configured (match it with errors.Is).
var ErrNoModel = fault.New(fault.Schema, "no model configured: set RLM_MODEL (a model name, or a comma-separated ladder such as small,large), pass --model, or set model in [defaults] of rlm.toml")

// where names the file (or flag) behind an error of package llm about a table.
func (c *Config) where(err error) error {
	msg := err.Error()
	for _, table := range []string{"models", "backends"} {
		names := c.modelNames()
		if table == "backends" {
			names = slices.Sorted(maps.Keys(c.Models.Backends))
		}
		for _, name := range names {
			prefix := "[" + table + "." + name + "] "
			if !strings.HasPrefix(msg, prefix) {
				continue
			}
			if table == "models" && slices.Contains(c.Model, name) {
				if f, ok := c.flagOf(strings.TrimPrefix(msg, prefix)); ok {
					return fault.Wrap(fault.Schema, err, "--"+f.flag+" (root model "+name+")")
				}
			}
			if src := c.Source(table + "." + name); src.Origin != Default {
				return fault.Wrap(fault.Schema, err, src.Name)
			}
			return err
		}
	}
	if f, ok := c.flagOf(msg); ok && !strings.HasPrefix(msg, "[") {
		return fault.Wrap(fault.Schema, err, "--"+f.flag)
	}
	return err
}

// flagOf finds the root sampling flag, given on the command line, that a message about a
// model's setting ("temperature = 1.5: …") is about.
func (c *Config) flagOf(msg string) (samplingFlagSpec, bool) {
	for _, f := range samplingFlags {
		if strings.HasPrefix(msg, f.key+" = ") || strings.HasPrefix(msg, f.key+".") {
			if _, given := c.sources["root."+f.key]; given {
				return f, true
			}
		}
	}
	return samplingFlagSpec{}, false
}

// rootSamplingSet reports whether a root sampling flag was given.
func (c *Config) rootSamplingSet() bool {
	for _, f := range samplingFlags {
		if _, ok := c.sources["root."+f.key]; ok {
			return true
		}
	}
	return false
}
