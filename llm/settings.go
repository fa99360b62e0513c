package llm

import (
	"os"
	"regexp"
)

// Settings is the model part of rlm.toml as docs/models.md documents it:
// its [backends.NAME] and [models.NAME] tables. A config loader decodes the
// file into it (the toml tags are the keys) and calls Apply. The [defaults]
// keys belong to the loader: model and sub_model are Config.Models and
// SubModels (SplitLadder), provider is Config.Provider (ParseProvider),
// backend is Config.DefaultEndpoint.
type Settings struct {
	Backends map[string]BackendSettings `toml:"backends"`
	Models   map[string]ModelSettings   `toml:"models"`
}

// BackendSettings is one [backends.NAME] table. It holds the NAME of the
// environment variable with the key, never a key.
type BackendSettings struct {
	Provider  string `toml:"provider"`    // "openai" (default) or "anthropic"
	BaseURL   string `toml:"base_url"`    // "" = the provider's public API
	APIKeyEnv string `toml:"api_key_env"` // "" = no key (a local server)
}

// ModelSettings is one [models.NAME] table.
type ModelSettings struct {
	ID              string         `toml:"id"`      // the model id sent; "" = NAME
	Backend         string         `toml:"backend"` // a [backends.NAME]; "" = the default backend
	Temperature     *float64       `toml:"temperature"`
	TopP            *float64       `toml:"top_p"`
	MaxTokens       int            `toml:"max_tokens"`
	ReasoningEffort string         `toml:"reasoning_effort"`
	Seed            *int64         `toml:"seed"`
	Extra           map[string]any `toml:"extra"`
	// US dollars per million tokens; price_in and price_out go together.
	PriceIn     *float64 `toml:"price_in"`
	PriceOut    *float64 `toml:"price_out"`
	PriceCached *float64 `toml:"price_cached"`
}

// Apply sets cfg.Endpoints and cfg.Catalog from s, reading each backend's
// key from the variable its api_key_env names with getenv (nil = os.Getenv).
// Errors are fault.Schema and name the table and key; none quotes a value
// that could be a key. New checks the rest (ranges, references).
func (s Settings) Apply(cfg *Config, getenv func(string) string) error {
	if getenv == nil {
		getenv = os.Getenv
	}
	eps := make(map[string]Endpoint, len(s.Backends))
	for _, name := range sortedKeys(s.Backends) {
		ep, err := s.Backends[name].endpoint(name, getenv)
		if err != nil {
			return err
		}
		eps[name] = ep
	}
	cat := make(map[string]ModelConfig, len(s.Models))
	for _, name := range sortedKeys(s.Models) {
		mc, err := s.Models[name].model(name)
		if err != nil {
			return err
		}
		cat[name] = mc
	}
	cfg.Endpoints, cfg.Catalog = eps, cat
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (b BackendSettings) endpoint(name string, getenv func(string) string) (Endpoint, error) {
	p, err := ParseProvider(b.Provider)
	if err != nil {
		return Endpoint{}, configError("[backends.%s] provider: %v", name, err)
	}
	ep := Endpoint{Provider: p, BaseURL: b.BaseURL}
	if b.APIKeyEnv == "" {
		return ep, nil
	}
	if !envName.MatchString(b.APIKeyEnv) || len(b.APIKeyEnv) > 128 {
		// Not echoed: a key pasted here must not reach a terminal or a log.
		return Endpoint{}, configError("[backends.%s] api_key_env is not an environment variable name (letters, digits and _); write the NAME of the variable that holds the key, such as OPENAI_API_KEY, never the key itself", name)
	}
	if ep.APIKey = getenv(b.APIKeyEnv); ep.APIKey == "" {
		return Endpoint{}, configError("[backends.%s] api_key_env = %q: the variable is not set; export %s with the key (keys are never written in rlm.toml)", name, b.APIKeyEnv, b.APIKeyEnv)
	}
	return ep, nil
}

func (m ModelSettings) model(name string) (ModelConfig, error) {
	mc := ModelConfig{ID: m.ID, Endpoint: m.Backend, Sampling: Sampling{Temperature: m.Temperature, TopP: m.TopP,
		MaxTokens: m.MaxTokens, ReasoningEffort: m.ReasoningEffort, Seed: m.Seed, Extra: m.Extra}}
	switch {
	case m.PriceIn != nil && m.PriceOut != nil:
		mc.Price = &Price{In: *m.PriceIn, Out: *m.PriceOut, Cached: m.PriceCached}
	case m.PriceIn != nil || m.PriceOut != nil || m.PriceCached != nil:
		return ModelConfig{}, configError("[models.%s] a price needs both price_in and price_out (US dollars per million tokens; price_cached is optional)", name)
	}
	return mc, nil
}
