package llm_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// modelsFile is the part of rlm.toml that docs/models.md documents.
type modelsFile struct {
	Defaults struct {
		Model    string `toml:"model"`
		SubModel string `toml:"sub_model"`
		Provider string `toml:"provider"`
		Backend  string `toml:"backend"`
	} `toml:"defaults"`
	Backends map[string]llm.BackendSettings `toml:"backends"`
	Models   map[string]llm.ModelSettings   `toml:"models"`
}

var tomlBlock = regexp.MustCompile("(?s)```toml\n(.*?)```")

// TestModelsDoc reads every TOML block of docs/models.md: each uses only the
// documented keys, is accepted by New with its own base URLs, and answers a
// root call, a sub-call and a call to each of its models when every backend
// is pointed at a fake server of its provider. Keys go to their backends.
func TestModelsDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/models.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := tomlBlock.FindAllStringSubmatchIndex(string(doc), -1)
	if len(blocks) < 9 {
		t.Fatalf("found %d TOML blocks, want the keys, 7 providers and the mixed set-up", len(blocks))
	}
	for _, b := range blocks {
		t.Run(heading(string(doc[:b[0]])), func(t *testing.T) { checkDocBlock(t, string(doc[b[2]:b[3]])) })
	}
}

// heading is the last "## " heading of text.
func heading(text string) string {
	i := strings.LastIndex(text, "\n## ")
	return strings.SplitN(text[i+4:], "\n", 2)[0]
}

func checkDocBlock(t *testing.T, block string) {
	var f modelsFile
	md, err := toml.Decode(block, &f)
	if err != nil {
		t.Fatalf("not TOML: %v\n%s", err, block)
	}
	// BurntSushi/toml lists the keys inside tables decoded into
	// map[string]any (extra = {…}) as undecoded: they are free-form.
	for _, k := range md.Undecoded() {
		if len(k) < 4 || k[0] != "models" || k[2] != "extra" {
			t.Fatalf("undocumented key %v", k)
		}
	}
	getenv := func(name string) string { return "key-of-" + name }
	p, err := llm.ParseProvider(f.Defaults.Provider)
	if err != nil {
		t.Fatal(err)
	}
	cfg := llm.Config{Provider: p, APIKey: "key-of-default", Models: llm.SplitLadder(f.Defaults.Model),
		SubModels: llm.SplitLadder(f.Defaults.SubModel), DefaultEndpoint: f.Defaults.Backend}
	if err := (llm.Settings{Backends: f.Backends, Models: f.Models}).Apply(&cfg, getenv); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.New(cfg); err != nil {
		t.Fatalf("New with the documented URLs: %v", err)
	}
	servers := map[string]*llmtest.Server{}
	reportsCost := map[string]bool{}
	fake := func(name string, p llm.Provider, url string) string {
		rep := llmtest.Reply{Text: "Fine.", Times: -1}
		if strings.Contains(url, "openrouter.ai") {
			rep.Dialect, rep.Cost, reportsCost[name] = llmtest.OpenRouter, f64(0.0001), true
		}
		srv, _ := fakeFor(p, rep)
		t.Cleanup(srv.Close)
		servers[name] = srv
		return srv.URL()
	}
	cfg.BaseURL = fake(llm.DefaultEndpointName, cfg.Provider, cfg.BaseURL)
	for name, ep := range cfg.Endpoints {
		ep.BaseURL = fake(name, ep.Provider, ep.BaseURL)
		cfg.Endpoints[name] = ep
	}
	var calls []llm.Call
	cfg.Observer = func(c llm.Call) { calls = append(calls, c) }
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reqs := []llm.Request{ask("root"), {Ladder: llm.Sub, Messages: ask("sub").Messages}}
	for _, name := range c.Configured() {
		r := ask("model " + name)
		r.Model = name
		reqs = append(reqs, r)
	}
	for _, r := range reqs {
		if _, err := c.Complete(context.Background(), r); err != nil {
			t.Fatalf("model %q ladder %s: %v", r.Model, r.Ladder, err)
		}
	}
	for _, call := range calls {
		srv := servers[call.Backend]
		last := srv.Requests()[len(srv.Requests())-1]
		want := "key-of-default"
		if b, ok := f.Backends[call.Backend]; ok {
			want = map[bool]string{true: "", false: "key-of-" + b.APIKeyEnv}[b.APIKeyEnv == ""]
		}
		if last.Authorization != want {
			t.Errorf("backend %s got key %q, want %q", call.Backend, last.Authorization, want)
		}
		if m, ok := f.Models[call.Model]; (ok && m.PriceIn != nil || reportsCost[call.Backend]) && !call.Cost.Known() {
			t.Errorf("model %s has a price or a server that reports cost, but its cost is %s", call.Model, call.Cost)
		}
		if call.Status != "ok" {
			t.Errorf("call %+v", call)
		}
	}
}

// TestSettingsErrors: a backend's key comes from the variable it names;
// errors name the table and key and never quote what could be a key.
func TestSettingsErrors(t *testing.T) {
	const pasted = "sk-proj-PASTEDKEY0123456789abcdef"
	env := map[string]string{"SET_KEY": "k"}
	tests := []struct {
		name string
		s    llm.Settings
		want string
	}{
		{"variable not set", llm.Settings{Backends: map[string]llm.BackendSettings{"b": {APIKeyEnv: "UNSET_KEY"}}},
			`[backends.b] api_key_env = "UNSET_KEY": the variable is not set; export UNSET_KEY`},
		{"a key instead of a name", llm.Settings{Backends: map[string]llm.BackendSettings{"b": {APIKeyEnv: pasted + "!"}}},
			"[backends.b] api_key_env is not an environment variable name"},
		{"provider", llm.Settings{Backends: map[string]llm.BackendSettings{"b": {Provider: "bedrock"}}},
			`[backends.b] provider: unknown provider "bedrock"`},
		{"half a price", llm.Settings{Models: map[string]llm.ModelSettings{"m": {PriceIn: f64(1)}}},
			"[models.m] a price needs both price_in and price_out"},
		{"cached price alone", llm.Settings{Models: map[string]llm.ModelSettings{"m": {PriceCached: f64(1)}}},
			"[models.m] a price needs both price_in and price_out"},
	}
	for _, tc := range tests {
		var cfg llm.Config
		err := tc.s.Apply(&cfg, func(k string) string { return env[k] })
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "PASTEDKEY") {
			t.Errorf("%s: err = %v, want %q and no key", tc.name, err, tc.want)
		}
	}
	var cfg llm.Config
	s := llm.Settings{Backends: map[string]llm.BackendSettings{"b": {APIKeyEnv: "SET_KEY", Provider: "anthropic"}},
		Models: map[string]llm.ModelSettings{"m": {Backend: "b", PriceIn: f64(1), PriceOut: f64(2)}}}
	if err := s.Apply(&cfg, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if ep := cfg.Endpoints["b"]; ep.APIKey != "k" || ep.Provider != llm.ProviderAnthropic || cfg.Catalog["m"].Price.Out != 2 || cfg.Catalog["m"].Endpoint != "b" {
		t.Errorf("applied %+v %+v", cfg.Endpoints, cfg.Catalog)
	}
}
