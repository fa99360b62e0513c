package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/llm"
)

// setup writes the project and user files (empty content: no file) and returns Options that
// read them with env as the whole environment. The project file is trusted (recorded in the
// trust store, under the same temporary directory); trust_test.go tests untrusted ones.
func setup(t *testing.T, project, user string, env map[string]string, flags map[string]string) Options {
	t.Helper()
	o := setupUntrusted(t, project, user, env, flags)
	if project != "" {
		s := store{Files: []trustEntry{{Path: realPath(o.ProjectFile), SHA256: sha256Hex([]byte(project)), Trusted: time.Now()}}}
		if err := s.write(o.TrustStore); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// setupUntrusted is setup without recording the project file in the trust store.
func setupUntrusted(t *testing.T, project, user string, env map[string]string, flags map[string]string) Options {
	t.Helper()
	dir := t.TempDir()
	o := Options{ProjectFile: filepath.Join(dir, "rlm.toml"), UserFile: filepath.Join(dir, "home", "config.toml"),
		TrustStore: home.TrustStore(filepath.Join(dir, "home")), Getenv: func(k string) string { return env[k] }, Flags: flags}
	for path, text := range map[string]string{o.ProjectFile: project, o.UserFile: user} {
		if text == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func TestPrecedence(t *testing.T) {
	const user = "[limits]\nmax_calls = 11\n"
	const project = "[limits]\nmax_calls = 12\n"
	env := map[string]string{"RLM_MAX_CALLS": "13"}
	flags := map[string]string{"max-calls": "14"}
	tests := []struct {
		name          string
		project, user string
		env, flags    map[string]string
		want          int
		origin        Origin
		from          string // the source's name: a file's base name, a variable or a flag
	}{
		{"default", "", "", nil, nil, 80, Default, ""},
		{"user file", "", user, nil, nil, 11, User, "config.toml"},
		{"project over user", project, user, nil, nil, 12, Project, "rlm.toml"},
		{"env over files", project, user, env, nil, 13, Env, "RLM_MAX_CALLS"},
		{"flag over env", project, user, env, flags, 14, Flag, "--max-calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(setup(t, tt.project, tt.user, tt.env, tt.flags))
			if err != nil {
				t.Fatal(err)
			}
			src := c.Source("limits.max_calls")
			if got := c.Limits.MaxCalls; got != tt.want {
				t.Errorf("max_calls = %d, want %d", got, tt.want)
			}
			name := src.Name
			if src.Origin == Project || src.Origin == User {
				name = filepath.Base(name)
			}
			if src.Origin != tt.origin || name != tt.from {
				t.Errorf("source = %v, want %s %s", src, tt.origin, tt.from)
			}
		})
	}
}

// TestEveryKey sets every key of the table from a file and reads it back with its source, so
// that no key is left unplumbed (a field accessor pointing at the wrong field shows here).
func TestEveryKey(t *testing.T) {
	var file strings.Builder
	want := map[string]any{}
	for _, table := range []string{"defaults", "limits"} {
		file.WriteString("[" + table + "]\n")
		for _, s := range specs {
			if !strings.HasPrefix(s.key, table+".") {
				continue
			}
			k := strings.TrimPrefix(s.key, table+".")
			var text string
			var v any
			switch s.kind {
			case kInt, kSize:
				n := int64(s.hi) - 1
				text, v = jsonText(n), n
			case kDuration:
				text, v = `"1h"`, time.Hour
			case kUSD:
				text, v = "2.5", 2.5
			case kLadder:
				text, v = `"a,b"`, []string{"a", "b"}
			case kProvider:
				text, v = `"anthropic"`, "anthropic"
			case kName:
				text, v = `"local"`, "local"
			}
			file.WriteString(k + " = " + text + "\n")
			want[s.key] = v
		}
	}
	file.WriteString("[backends.local]\nbase_url = \"http://localhost:8000/v1\"\n")
	c, err := Load(setup(t, file.String(), "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[any]string{}
	for _, s := range specs {
		got := c.get(s)
		if jsonText(got) != jsonText(want[s.key]) {
			t.Errorf("%s = %v, want %v", s.key, got, want[s.key])
		}
		if src := c.Source(s.key); src.Origin != Project {
			t.Errorf("%s: source %v, want the project file", s.key, src)
		}
		p := s.field(c)
		if other, dup := seen[p]; dup {
			t.Errorf("%s and %s set the same field", s.key, other)
		}
		seen[p] = s.key
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name, project string
		env, flags    map[string]string
		want          []string // substrings of the error
	}{
		{"out of range", "[limits]\nmax_calls = 0\n", nil, nil, []string{"rlm.toml: limits.max_calls = 0: want 1 to 100,000"}},
		{"too large", "[limits]\npeek_chars = 100000000\n", nil, nil, []string{"limits.peek_chars = 100000000: want 100 to 10,000,000"}},
		{"wrong type", "[limits]\nmax_tokens = \"lots\"\n", nil, nil, []string{`limits.max_tokens = "lots": want a whole number, not a string`}},
		{"float for an int", "[limits]\nmax_tokens = 1.5\n", nil, nil, []string{"limits.max_tokens = 1.5: want a whole number, not a float"}},
		{"nan", "[limits]\nmax_cost = nan\n", nil, nil, []string{"limits.max_cost = NaN: want $0 to $100,000"}},
		{"infinity", "[limits]\nmax_cost = inf\n", nil, nil, []string{"limits.max_cost = +Inf: want $0 to $100,000"}},
		{"negative cost", "[limits]\nmax_cost = -1\n", nil, nil, []string{"limits.max_cost = -1: want $0 to $100,000"}},
		{"bad duration", "[limits]\ncell_timeout = \"soon\"\n", nil, nil, []string{`limits.cell_timeout = "soon": want a duration such as 90m or 30s`}},
		{"short duration", "[limits]\ncell_timeout = \"10ms\"\n", nil, nil, []string{"want 100ms to 24h"}},
		{"small memory", "[limits]\nworker_memory = \"1MiB\"\n", nil, nil, []string{`limits.worker_memory = "1MiB": want 64 MiB to 64 GiB`}},
		{"bad size", "[limits]\nworkspace_bytes = \"lots\"\n", nil, nil, []string{`want a number of bytes, or a size such as "512MiB"`}},
		{"env", "", map[string]string{"RLM_MAX_ITERATIONS": "0"}, nil, []string{`RLM_MAX_ITERATIONS="0" (limits.max_iterations): want 1 to 1,000`}},
		{"env not a number", "", map[string]string{"SFA_DEFAULTS_TIMEOUT": "forever"}, nil, []string{`SFA_DEFAULTS_TIMEOUT="forever" (defaults.timeout): want a duration`}},
		{"flag", "", nil, map[string]string{"max-tokens": "-5"}, []string{`--max-tokens "-5" (limits.max_tokens): want 1 to 1,000,000,000`}},
		{"flag cost", "", nil, map[string]string{"max-cost": "lots"}, []string{`--max-cost "lots" (limits.max_cost): want an amount of US dollars`}},
		{"sampling flag", "", nil, map[string]string{"temperature": "3"}, []string{`--temperature "3": want 0 to 2`}},
		{"unknown key", "[limits]\nmax_call = 5\n", nil, nil, []string{"rlm.toml: unknown key limits.max_call; did you mean limits.max_calls?"}},
		{"key of the other table", "[limits]\ntimeout = \"5m\"\n", nil, nil, []string{"unknown key limits.timeout; did you mean defaults.timeout?"}},
		{"top-level key", "model = \"x\"\n", nil, nil, []string{"unknown key model; did you mean defaults.model?"}},
		{"unknown table", "[limit]\nmax_calls = 5\n", nil, nil, []string{"unknown key limit.max_calls; did you mean limits.max_calls?"}},
		{"unknown model key", "[models.m]\ntemprature = 0.5\n", nil, nil, []string{"unknown key models.m.temprature; did you mean models.m.temperature?"}},
		{"a key in a file", "[backends.b]\napi_key = \"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789\"\n", nil, nil, []string{"unknown key backends.b.api_key: API keys are never written in a configuration file"}},
		{"model range", "[models.m]\ntemperature = 3.0\n", nil, nil, []string{"rlm.toml: [models.m] temperature = 3: want 0 to 2"}},
		{"unknown backend", "[defaults]\nbackend = \"nowhere\"\n", nil, nil, []string{`rlm.toml: defaults.backend = "nowhere": no [backends.nowhere] is configured; backends: default`}},
		{"model's backend", "[models.m]\nbackend = \"nowhere\"\n", nil, nil, []string{`rlm.toml: [models.m] backend "nowhere" is not configured`}},
		{"half a price", "[models.m]\nprice_in = 1.0\n", nil, nil, []string{"rlm.toml: [models.m] a price needs both price_in and price_out"}},
		{"syntax", "[limits\n", nil, nil, []string{"rlm.toml: toml:"}},
		{"anthropic temperature from a flag", "[defaults]\nprovider = \"anthropic\"\nmodel = \"c\"\n", nil, map[string]string{"temperature": "1.5"},
			[]string{"--temperature (root model c): [models.c] temperature = 1.5: want 0 to 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(setup(t, tt.project, "", tt.env, tt.flags))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, fault.Schema) {
				t.Errorf("kind %q, want schema", fault.KindOf(err))
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "sk-proj-") {
				t.Errorf("the error quotes a key: %q", err)
			}
		})
	}
}

func TestValues(t *testing.T) {
	c, err := Load(setup(t, `
[defaults]
model = ["big", "bigger"]
timeout = 600
[limits]
worker_memory = "1 GiB"
workspace_bytes = 1048576
write_bytes = "64KiB"
max_cost = 2
[models.big]
extra = { top_k = 20, chat_template_kwargs = { enable_thinking = false } }
`, "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	got := []any{c.Model, c.Timeout, l.WorkerMemory, l.WorkspaceBytes, l.WriteBytes, l.MaxCost}
	want := []any{[]string{"big", "bigger"}, 10 * time.Minute, int64(1 << 30), int64(1 << 20), 64 << 10, 2.0}
	if jsonText(got) != jsonText(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestModelsMergedByName(t *testing.T) {
	o := setup(t, "[models.a]\ntemperature = 0.1\n",
		"[models.a]\ntop_p = 0.5\n[models.b]\nprice_in = 1.0\nprice_out = 2.0\n", nil, nil)
	c, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Models.Models["a"]; a.TopP != nil || a.Temperature == nil || *a.Temperature != 0.1 {
		t.Errorf("models.a = %+v; want the project's table whole", a)
	}
	if c.Source("models.a").Name != o.ProjectFile || c.Source("models.b").Name != o.UserFile {
		t.Errorf("sources %v, %v", c.Source("models.a"), c.Source("models.b"))
	}
}

const testKey = "sk-proj-SECRETtestKEY0123456789abcdefghijklmnop"

func TestLLM(t *testing.T) {
	env := map[string]string{"RLM_BASE_URL": "http://127.0.0.1:9/v1", "RLM_API_KEY": testKey, "VLLM_KEY": testKey + "2"}
	o := setup(t, `
[defaults]
model = "big"
sub_model = "small"
[backends.vllm]
base_url = "http://127.0.0.1:8/v1"
api_key_env = "VLLM_KEY"
[models.big]
temperature = 0.2
price_in = 3
price_out = 15
[models.small]
backend = "vllm"
`, "", env, map[string]string{"top-p": "0.9", "max-cost": "1.5"})
	c, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := c.LLM(nil)
	if err != nil {
		t.Fatal(err)
	}
	big := lc.Catalog["big"]
	if lc.APIKey != testKey || lc.Endpoints["vllm"].APIKey != testKey+"2" || lc.BaseURL != env["RLM_BASE_URL"] {
		t.Errorf("keys or base URL not read: %+v", lc)
	}
	if big.Sampling.TopP == nil || *big.Sampling.TopP != 0.9 || *big.Sampling.Temperature != 0.2 {
		t.Errorf("root sampling = %+v; want top_p 0.9 from the flag over temperature 0.2", big.Sampling)
	}
	if lc.Catalog["small"].Sampling.TopP != nil {
		t.Error("the root sampling flag reached the sub-call model")
	}
	if lc.MaxCost != 1.5 || lc.MaxCalls != 80 || strings.Join(lc.SubModels, ",") != "small" {
		t.Errorf("budgets or ladders: %+v", lc)
	}
	if _, err := llm.New(lc); err != nil {
		t.Fatal(err)
	}
	// The key's variable unset: Load still works (rlm config shows it), LLM names the variable.
	delete(env, "VLLM_KEY")
	c, err = Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LLM(nil); err == nil || !strings.Contains(err.Error(), "VLLM_KEY") || !strings.Contains(err.Error(), o.ProjectFile) {
		t.Errorf("LLM with the key unset: %v; want the variable and the file named", err)
	}
}

func TestNoModel(t *testing.T) {
	c, err := Load(setup(t, "", "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LLM(nil); !errors.Is(err, ErrNoModel) {
		t.Errorf("LLM without a model: %v, want ErrNoModel", err)
	}
}

func TestAnthropicFromFile(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": testKey, "OPENAI_API_KEY": "sk-wrong-provider-key-0123456789abcdef"}
	c, err := Load(setup(t, "[defaults]\nprovider = \"anthropic\"\nmodel = \"claude\"\n", "", env, nil))
	if err != nil {
		t.Fatal(err)
	}
	lc, err := c.LLM(nil)
	if err != nil {
		t.Fatal(err)
	}
	if lc.Provider != llm.ProviderAnthropic || lc.APIKey != testKey || c.KeyEnv != "ANTHROPIC_API_KEY" {
		t.Errorf("provider %q, key from %s; want anthropic with ANTHROPIC_API_KEY", lc.Provider, c.KeyEnv)
	}
}

// TestEntriesHoldNoKey: rlm config's text and JSON name the variables and whether they are set,
// never a key.
func TestEntriesHoldNoKey(t *testing.T) {
	env := map[string]string{"RLM_API_KEY": testKey, "VLLM_KEY": testKey + "2", "RLM_MODEL": "big"}
	c, err := Load(setup(t, "[backends.vllm]\napi_key_env = \"VLLM_KEY\"\n[backends.off]\napi_key_env = \"UNSET_KEY\"\n", "", env, nil))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := c.Write(&text); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(c.Entries())
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{text.String(), string(js)} {
		if strings.Contains(out, "SECRET") {
			t.Fatalf("a key was printed:\n%s", out)
		}
	}
	for _, want := range []string{
		`api_key_env = "RLM_API_KEY"`, "# env RLM_API_KEY; the variable is set",
		`api_key_env = "VLLM_KEY"`, "the variable is set",
		`api_key_env = "UNSET_KEY"`, "the variable is NOT set",
		`model = "big"`, "# env RLM_MODEL",
		"max_calls = 80", "# default",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("rlm config text lacks %q:\n%s", want, text.String())
		}
	}
	if !strings.Contains(string(js), `{"key":"backends.vllm.api_key_env","value":"VLLM_KEY","key_set":true,"source":"project","from":"`) {
		t.Errorf("JSON entry of a backend's key variable: %s", js)
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "2 GB": 2e9, "1g": 1 << 30, "64KiB": 64 << 10, "100": 100, "1.5KiB": 1536} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "1.5", "1e30GiB", "NaN"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}
