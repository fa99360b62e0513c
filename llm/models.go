package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/rlm-sandbox/rlm/redact"
)

// Provider is the API a backend speaks.
type Provider string

// Providers.
const (
	// ProviderOpenAI is OpenAI-compatible chat completions: OpenAI, vLLM,
	// llama.cpp server, Ollama, OpenRouter, Gemini's OpenAI endpoint, …
	ProviderOpenAI Provider = "openai"
	// ProviderAnthropic is Anthropic's Messages API.
	ProviderAnthropic Provider = "anthropic"
)

// ParseProvider reads a provider name; "" is ProviderOpenAI.
func ParseProvider(s string) (Provider, error) {
	switch p := Provider(strings.ToLower(strings.TrimSpace(s))); p {
	case "", ProviderOpenAI:
		return ProviderOpenAI, nil
	case ProviderAnthropic:
		return p, nil
	}
	return "", fmt.Errorf("unknown provider %q; use %q (OpenAI-compatible servers: OpenAI, vLLM, llama.cpp, Ollama, OpenRouter, Gemini) or %q", s, ProviderOpenAI, ProviderAnthropic)
}

// Ladder names an escalation ladder.
type Ladder int

// Ladders.
const (
	Root Ladder = iota // Config.Models
	Sub                // Config.SubModels, else Config.Models
)

func (l Ladder) String() string {
	if l == Sub {
		return "sub"
	}
	return "root"
}

// Endpoint is one named backend: the API it speaks, where, with which key.
type Endpoint struct {
	Provider Provider // "" = ProviderOpenAI
	BaseURL  string   // "" = the provider's public API
	// APIKey is sent only to this backend. Keys come from the environment
	// (api_key_env in rlm.toml names the variable), never from a file.
	APIKey string
	// Backend does the HTTP; nil = built from the fields above. Tests inject one.
	Backend Backend
}

// ModelConfig configures one model by name ([models.NAME] in rlm.toml).
type ModelConfig struct {
	// ID is the model id sent to the server; "" = the name. It lets two
	// names share an id on different backends, or a short name stand for a
	// long id.
	ID string
	// Endpoint names the model's backend (a Config.Endpoints key or
	// "default"); "" = Config.DefaultEndpoint.
	Endpoint string
	Sampling Sampling
	// Price is what the model costs; nil = no price (a server-reported cost
	// is used when there is one, else the cost is unknown).
	Price *Price
}

// Sampling holds the optional request settings of a model. Each is sent only
// when set; a server that refuses one (a 400 naming it) is asked again at
// once without it, and the model is not sent it again by this Client.
type Sampling struct {
	Temperature *float64 // 0–2 (Anthropic 0–1)
	TopP        *float64 // 0–1
	// MaxTokens caps each completion; 0 = no cap sent (OpenAI-compatible),
	// limits.AnthropicMaxTokens (Anthropic, where the field is required).
	MaxTokens int
	// ReasoningEffort is sent as reasoning_effort (OpenAI-compatible) or
	// output_config.effort (Anthropic: low, medium, high, xhigh, max).
	ReasoningEffort string
	Seed            *int64 // OpenAI-compatible only
	// Extra are more top-level body fields, sent as given (vLLM's top_k or
	// chat_template_kwargs, OpenRouter's provider, Anthropic's thinking …).
	// They may not name a field the client sets itself.
	Extra map[string]any
}

// Override returns s with every field that o sets replaced by o's (Extra
// merged key by key): flags over a model's configuration.
func (s Sampling) Override(o Sampling) Sampling {
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.TopP != nil {
		s.TopP = o.TopP
	}
	if o.MaxTokens > 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.ReasoningEffort != "" {
		s.ReasoningEffort = o.ReasoningEffort
	}
	if o.Seed != nil {
		s.Seed = o.Seed
	}
	if len(o.Extra) > 0 {
		m := make(map[string]any, len(s.Extra)+len(o.Extra))
		for k, v := range s.Extra {
			m[k] = v
		}
		for k, v := range o.Extra {
			m[k] = v
		}
		s.Extra = m
	}
	return s
}

// DefaultEndpointName is the name of the backend built from Config.Provider,
// BaseURL and APIKey.
const DefaultEndpointName = "default"

// endpoint is a resolved backend.
type endpoint struct {
	name     string
	provider Provider
	baseURL  string
	backend  Backend
}

// model is a resolved model: its names, backend and settings.
type model struct {
	name, id string
	ep       *endpoint
	set      Sampling
	price    *Price
}

// resolved is what New builds from a Config.
type resolved struct {
	endpoints map[string]*endpoint
	models    map[string]*model
	ladders   [2][]*model
}

// resolve validates cfg (with defaults applied) and builds its backends and
// models.
func resolve(cfg Config) (*resolved, error) {
	if err := checkLadders(cfg); err != nil {
		return nil, err
	}
	if math.IsNaN(cfg.MaxCost) || math.IsInf(cfg.MaxCost, 0) || cfg.MaxCost < 0 {
		return nil, configError("llm: the dollar budget %v is not a finite amount ≥ 0; set max_cost to a number of US dollars such as 2.50", cfg.MaxCost)
	}
	r := &resolved{endpoints: map[string]*endpoint{}, models: map[string]*model{}}
	def, err := newEndpoint(DefaultEndpointName, Endpoint{Provider: cfg.Provider, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Backend: cfg.Backend}, cfg)
	if err != nil {
		return nil, err
	}
	r.endpoints[def.name] = def
	for _, name := range sortedKeys(cfg.Endpoints) {
		if name == DefaultEndpointName || strings.TrimSpace(name) == "" {
			return nil, configError("llm: backend name %q is reserved for RLM_BASE_URL/RLM_API_KEY/RLM_PROVIDER; rename [backends.%s]", name, name)
		}
		if r.endpoints[name], err = newEndpoint(name, cfg.Endpoints[name], cfg); err != nil {
			return nil, err
		}
	}
	defName := cfg.DefaultEndpoint
	if defName == "" {
		defName = DefaultEndpointName
	}
	if r.endpoints[defName] == nil {
		return nil, configError("llm: the default backend %q is not configured; backends: %s", defName, strings.Join(sortedKeys(r.endpoints), ", "))
	}
	for _, name := range configuredNames(cfg) {
		m, err := newModel(name, cfg.Catalog[name], r.endpoints, defName)
		if err != nil {
			return nil, err
		}
		r.models[name] = m
	}
	subs := cfg.SubModels
	if len(subs) == 0 {
		subs = cfg.Models
	}
	for _, n := range cfg.Models {
		r.ladders[Root] = append(r.ladders[Root], r.models[n])
	}
	for _, n := range subs {
		r.ladders[Sub] = append(r.ladders[Sub], r.models[n])
	}
	return r, nil
}

func checkLadders(cfg Config) error {
	if len(cfg.Models) == 0 {
		return configError("llm: no model configured; set RLM_MODEL (a model name or a comma-separated ladder)")
	}
	for _, l := range []struct {
		names []string
		what  string
	}{{cfg.Models, "root"}, {cfg.SubModels, "sub-call"}} {
		for i, m := range l.names {
			if strings.TrimSpace(m) == "" {
				return configError("llm: model %d of the %s ladder is empty; list model names separated by commas", i, l.what)
			}
		}
	}
	return nil
}

// configuredNames lists every model a request may name: the ladders' and
// the Catalog's, sorted.
func configuredNames(cfg Config) []string {
	var out []string
	out = append(out, cfg.Models...)
	out = append(out, cfg.SubModels...)
	for k := range cfg.Catalog {
		out = append(out, k)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func newEndpoint(name string, e Endpoint, cfg Config) (*endpoint, error) {
	where := "[backends." + name + "] "
	if name == DefaultEndpointName {
		where = "the default backend's (RLM_PROVIDER, RLM_BASE_URL) "
	}
	p, err := ParseProvider(string(e.Provider))
	if err != nil {
		return nil, configError("%sprovider: %v", where, err)
	}
	base := e.BaseURL
	if base == "" {
		base = map[Provider]string{ProviderOpenAI: DefaultBaseURL, ProviderAnthropic: DefaultAnthropicBaseURL}[p]
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, configError("%sbase_url %q is not an http(s) URL; write it like https://api.example.com/v1", where, redact.New().String(base))
	}
	ep := &endpoint{name: name, provider: p, baseURL: base, backend: e.Backend}
	if ep.backend == nil {
		if p == ProviderAnthropic {
			ep.backend = NewAnthropicBackend(base, e.APIKey, cfg.ConnectTimeout)
		} else {
			ep.backend = NewOpenAIBackend(base, e.APIKey, cfg.ConnectTimeout)
		}
	}
	return ep, nil
}

func newModel(name string, mc ModelConfig, eps map[string]*endpoint, defName string) (*model, error) {
	epName := mc.Endpoint
	if epName == "" {
		epName = defName
	}
	ep := eps[epName]
	if ep == nil {
		return nil, configError("[models.%s] backend %q is not configured; backends: %s", name, epName, strings.Join(sortedKeys(eps), ", "))
	}
	if err := checkSampling(name, ep.provider, mc.Sampling); err != nil {
		return nil, err
	}
	if err := mc.Price.check(name); err != nil {
		return nil, err
	}
	id := mc.ID
	if id == "" {
		id = name
	}
	return &model{name: name, id: id, ep: ep, set: mc.Sampling, price: mc.Price}, nil
}

// maxOutputTokens bounds Sampling.MaxTokens: no model writes more.
const maxOutputTokens = 1 << 20

func checkSampling(name string, p Provider, s Sampling) error {
	bad := func(key string, v any, want string) error {
		return configError("[models.%s] %s = %v: %s", name, key, v, want)
	}
	if t := s.Temperature; t != nil {
		hi := 2.0
		if p == ProviderAnthropic {
			hi = 1
		}
		if !(*t >= 0 && *t <= hi) {
			return bad("temperature", *t, fmt.Sprintf("want 0 to %g (the range of the %s API)", hi, p))
		}
	}
	if v := s.TopP; v != nil && !(*v >= 0 && *v <= 1) {
		return bad("top_p", *v, "want 0 to 1")
	}
	if s.MaxTokens < 0 || s.MaxTokens > maxOutputTokens {
		return bad("max_tokens", s.MaxTokens, fmt.Sprintf("want 1 to %d, or leave it out", maxOutputTokens))
	}
	if e := s.ReasoningEffort; e != "" {
		if p == ProviderAnthropic && !slices.Contains(anthropicEfforts, e) {
			return bad("reasoning_effort", e, "want one of "+strings.Join(anthropicEfforts, ", ")+" for an Anthropic backend")
		}
		if strings.Trim(e, "abcdefghijklmnopqrstuvwxyz") != "" {
			return bad("reasoning_effort", e, "want a lower-case word such as low, medium or high")
		}
	}
	if s.Seed != nil && p == ProviderAnthropic {
		return bad("seed", *s.Seed, "the Anthropic API has no seed; remove it")
	}
	for _, k := range sortedKeys(s.Extra) {
		if reserved(p, k, s) {
			return configError("[models.%s] extra.%s is a field rlm sets itself; use the model's own key for it (temperature, top_p, max_tokens, reasoning_effort, seed) or remove it", name, k)
		}
		if _, err := json.Marshal(s.Extra[k]); err != nil || strings.TrimSpace(k) == "" {
			return configError("[models.%s] extra.%s cannot be sent as JSON; use strings, numbers, booleans, arrays and tables", name, k)
		}
	}
	return nil
}

var anthropicEfforts = []string{"low", "medium", "high", "xhigh", "max"}

// reserved reports whether an extra body field is one the client sets.
func reserved(p Provider, k string, s Sampling) bool {
	switch k {
	case "model", "messages", "stream", "max_tokens", "temperature", "top_p", "seed", "reasoning_effort":
		return true
	}
	if p == ProviderAnthropic {
		return k == "system" || k == "output_config" && s.ReasoningEffort != ""
	}
	switch k {
	case "stream_options", "logprobs", "top_logprobs", "max_completion_tokens", "n":
		return true
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// route returns the models a request may use, in escalation order, and the
// monitor tier of the first.
func (c *Client) route(req Request) ([]*model, int, error) {
	ladder := c.res.ladders[Root]
	if req.Ladder == Sub {
		ladder = c.res.ladders[Sub]
	}
	if req.Model == "" {
		return ladder, min(max(req.Tier, 0), len(ladder)-1), nil
	}
	m := c.res.models[req.Model]
	if m == nil {
		return nil, 0, unknownModelError(req.Model, c.Configured())
	}
	if i := slices.Index(ladder, m); i >= 0 {
		return ladder, i, nil
	}
	return []*model{m}, 0, nil
}

// Configured lists the names a Request.Model may use, sorted.
func (c *Client) Configured() []string { return sortedKeys(c.res.models) }

// SubModels returns the sub-call ladder (Config.SubModels, else Models).
func (c *Client) SubModels() []string { return names(c.res.ladders[Sub]) }

func names(ms []*model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

func unknownModelError(name string, known []string) error {
	return configError("llm: model %q is not configured; configured models: %s. Use one of them, or add [models.%s] to rlm.toml", name, strings.Join(known, ", "), name)
}
