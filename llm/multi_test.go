package llm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/llm/llmtest"
)

// twoBackends is a client whose root ladder is model "big" on one fake
// server and whose sub-calls go to model "cheap" on another (its own base
// URL, key and provider), both priced.
type twoBackends struct {
	root, sub *llmtest.Server
	subKey    string
	h         *harness
}

const rootKey = "sk-proj-ROOTKEY0123456789abcdefXYZ"

func newTwoBackends(t *testing.T, subProvider llm.Provider) *twoBackends {
	t.Helper()
	tb := &twoBackends{h: &harness{clock: newClock(), log: &syncBuffer{}}}
	tb.root = llmtest.New(llmtest.Reply{Model: "gpt-big-2026", Text: "root answer", PromptTokens: 1000, Times: -1})
	tb.sub, tb.subKey = fakeFor(subProvider, llmtest.Reply{Model: "vendor/cheap-1", Text: "sub answer", PromptTokens: 200, Times: -1})
	t.Cleanup(tb.root.Close)
	t.Cleanup(tb.sub.Close)
	c, err := llm.New(llm.Config{
		BaseURL: tb.root.URL(), APIKey: rootKey,
		Models: []string{"big"}, SubModels: []string{"cheap"},
		Endpoints: map[string]llm.Endpoint{"other": {Provider: subProvider, BaseURL: tb.sub.URL(), APIKey: tb.subKey}},
		Catalog: map[string]llm.ModelConfig{
			"big":   {ID: "gpt-big-2026", Price: &llm.Price{In: 2.5, Out: 10}},
			"cheap": {ID: "vendor/cheap-1", Endpoint: "other", Price: &llm.Price{In: 0.1, Out: 0.4}},
		},
		Sleep: tb.h.clock.Sleep, Now: tb.h.clock.Now,
		Observer: func(c llm.Call) { tb.h.mu.Lock(); tb.h.calls = append(tb.h.calls, c); tb.h.mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	tb.h.c = c
	return tb
}

type perModel struct {
	calls, tokens int
	cost          llm.Cost
	backends      string
}

// TestRootAndSubOnTwoBackends: root calls go to model A on one server,
// sub-calls (Ladder Sub) to model B on another base URL with its own key;
// each Call carries its model and backend, tokens and cost are recorded per
// model, and the budgets count both.
func TestRootAndSubOnTwoBackends(t *testing.T) {
	forProviders(t, func(t *testing.T, p llm.Provider) {
		tb := newTwoBackends(t, p)
		for i := range 5 {
			req := ask(fmt.Sprintf("q%d", i))
			if i%2 == 1 {
				req.Ladder, req.Agent = llm.Sub, "sub"
			}
			resp, err := tb.h.complete(req)
			if err != nil {
				t.Fatal(err)
			}
			want := map[bool]string{false: "big/default/root answer", true: "cheap/other/sub answer"}[i%2 == 1]
			if got := resp.Model + "/" + resp.Backend + "/" + resp.Text; got != want {
				t.Errorf("request %d answered by %s, want %s", i, got, want)
			}
		}
		got := map[string]perModel{}
		for _, c := range tb.h.Calls() {
			pm := got[c.Model]
			pm.calls++
			pm.tokens += c.PromptTokens + c.CompletionTokens
			pm.cost = pm.cost.Add(c.Cost)
			pm.backends = c.Backend
			got[c.Model] = pm
		}
		// big: 3 calls × (1000 prompt + 2 completion) at $2.5/$10 per million;
		// cheap: 2 calls × (200 + 2) at $0.1/$0.4.
		want := map[string]perModel{
			"big":   {3, 3006, llm.Cost{USD: 3 * (1000*2.5 + 2*10) / 1e6}, "default"},
			"cheap": {2, 404, llm.Cost{USD: 2 * (200*0.1 + 2*0.4) / 1e6}, "other"},
		}
		for m, w := range want {
			g := got[m]
			if g.calls != w.calls || g.tokens != w.tokens || g.backends != w.backends || !g.cost.Known() || math.Abs(g.cost.USD-w.cost.USD) > 1e-12 {
				t.Errorf("%s: %+v, want %+v", m, g, w)
			}
		}
		sp := tb.h.c.Spent()
		if sp.Calls != 5 || sp.Tokens != 3410 || !sp.Cost.Known() || math.Abs(sp.Cost.USD-(want["big"].cost.USD+want["cheap"].cost.USD)) > 1e-12 {
			t.Errorf("spent %+v", sp)
		}
		for _, r := range tb.root.Requests() {
			if r.Model != "gpt-big-2026" || r.Authorization != rootKey {
				t.Errorf("root server got model %q key %q", r.Model, r.Authorization)
			}
		}
		for _, r := range tb.sub.Requests() {
			if r.Model != "vendor/cheap-1" || r.Authorization != tb.subKey {
				t.Errorf("sub server got model %q key %q", r.Model, r.Authorization)
			}
		}
		if len(tb.root.Requests()) != 3 || len(tb.sub.Requests()) != 2 {
			t.Errorf("requests: root %d, sub %d", len(tb.root.Requests()), len(tb.sub.Requests()))
		}
	})
}

// TestSharedBudget: the root and sub ladders draw on one call budget.
func TestSharedBudget(t *testing.T) {
	tb := newTwoBackends(t, llm.ProviderAnthropic)
	tb.h.c.Charge(llm.Spent{Calls: 78})
	sub := ask("s")
	sub.Ladder = llm.Sub
	for i, req := range []llm.Request{ask("r"), sub, sub} {
		_, err := tb.h.complete(req)
		if wantErr := i == 2; (err != nil) != wantErr || wantErr && !strings.Contains(err.Error(), "budget: 80 of 80 API calls used") {
			t.Fatalf("call %d: err = %v, want error %v", i, err, wantErr)
		}
	}
}

// TestRequestModel: a request may name a configured model; on its ladder it
// starts there, off it that model answers alone; an unknown name lists the
// configured ones.
func TestRequestModel(t *testing.T) {
	srv := llmtest.New(
		llmtest.Reply{Model: "mid", Kind: llmtest.Loop},
		llmtest.Reply{Model: "solo", Kind: llmtest.Loop},
		llmtest.Reply{Text: "Fine.", Times: -1},
	)
	defer srv.Close()
	c, err := llm.New(llm.Config{BaseURL: srv.URL(), Models: []string{"small", "mid", "large"}, SubModels: []string{"tiny"},
		Catalog: map[string]llm.ModelConfig{"solo": {}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model, wantModel, wantEsc string
		wantKind                  fault.Kind
	}{
		{"mid", "large", "mid: loop", ""},
		{"solo", "", "", fault.EarlyAbort},
		{"tiny", "tiny", "", ""},
		{"", "small", "", ""},
		{"gpt-9", "", "", fault.Schema},
	}
	for _, tc := range tests {
		req := ask("hello")
		req.Model = tc.model
		resp, err := c.Complete(context.Background(), req)
		if fault.KindOf(err) != tc.wantKind || resp.Model != tc.wantModel || joinStrings(resp.Escalations) != tc.wantEsc {
			t.Errorf("Model %q: %s %v %v, want %s %v %q", tc.model, resp.Model, resp.Escalations, err, tc.wantModel, tc.wantEsc, tc.wantKind)
		}
		if tc.wantKind == fault.Schema && !strings.Contains(fmt.Sprint(err), `model "gpt-9" is not configured; configured models: large, mid, small, solo, tiny`) {
			t.Errorf("unknown model error %q does not list the configured models", err)
		}
	}
	if got := c.Configured(); !slices.Equal(got, []string{"large", "mid", "small", "solo", "tiny"}) {
		t.Errorf("Configured = %v", got)
	}
	if got := c.SubModels(); !slices.Equal(got, []string{"tiny"}) {
		t.Errorf("SubModels = %v", got)
	}
}

// TestSubLadderDefaultsToRoot: without SubModels, sub-calls use the root
// ladder.
func TestSubLadderDefaultsToRoot(t *testing.T) {
	h := newHarness(t, nil, llmtest.Reply{Text: "Fine.", Times: -1})
	req := ask("hi")
	req.Ladder = llm.Sub
	resp, err := h.complete(req)
	if err != nil || resp.Model != "small" || !slices.Equal(h.c.SubModels(), []string{"small", "large"}) {
		t.Fatalf("model %q err %v sub ladder %v", resp.Model, err, h.c.SubModels())
	}
}

func f64(v float64) *float64 { return &v }

// TestConfigErrors: every unusable setting is a fault.Schema error from New
// that names the setting and says what is allowed.
func TestConfigErrors(t *testing.T) {
	ant := map[string]llm.Endpoint{"ant": {Provider: llm.ProviderAnthropic}}
	tests := []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{"no ladder", llm.Config{}, "no model configured"},
		{"empty sub model", llm.Config{Models: []string{"a"}, SubModels: []string{"b", " "}}, "model 1 of the sub-call ladder is empty"},
		{"unknown backend", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Endpoint: "nope"}}}, `[models.a] backend "nope" is not configured; backends: default`},
		{"reserved backend name", llm.Config{Models: []string{"a"}, Endpoints: map[string]llm.Endpoint{"default": {}}}, `backend name "default" is reserved`},
		{"unknown provider", llm.Config{Models: []string{"a"}, Endpoints: map[string]llm.Endpoint{"x": {Provider: "cohere"}}}, `[backends.x] provider: unknown provider "cohere"`},
		{"bad base URL", llm.Config{Models: []string{"a"}, BaseURL: "localhost:8080"}, `base_url "localhost:8080" is not an http(s) URL`},
		{"unknown default backend", llm.Config{Models: []string{"a"}, DefaultEndpoint: "gone"}, `the default backend "gone" is not configured`},
		{"temperature", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{Temperature: f64(2.5)}}}}, "[models.a] temperature = 2.5: want 0 to 2"},
		{"Anthropic temperature", llm.Config{Models: []string{"a"}, Endpoints: ant, Catalog: map[string]llm.ModelConfig{"a": {Endpoint: "ant", Sampling: llm.Sampling{Temperature: f64(1.5)}}}}, "want 0 to 1 (the range of the anthropic API)"},
		{"NaN top_p", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{TopP: f64(math.NaN())}}}}, "[models.a] top_p = NaN: want 0 to 1"},
		{"max_tokens", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{MaxTokens: -1}}}}, "[models.a] max_tokens = -1"},
		{"effort word", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{ReasoningEffort: "High!"}}}}, "[models.a] reasoning_effort = High!"},
		{"Anthropic effort", llm.Config{Models: []string{"a"}, Endpoints: ant, Catalog: map[string]llm.ModelConfig{"a": {Endpoint: "ant", Sampling: llm.Sampling{ReasoningEffort: "minimal"}}}}, "want one of low, medium, high, xhigh, max"},
		{"Anthropic seed", llm.Config{Models: []string{"a"}, Endpoints: ant, Catalog: map[string]llm.ModelConfig{"a": {Endpoint: "ant", Sampling: llm.Sampling{Seed: ptr(int64(7))}}}}, "the Anthropic API has no seed"},
		{"reserved extra", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{Extra: map[string]any{"logprobs": false}}}}}, "extra.logprobs is a field rlm sets itself"},
		{"Anthropic system extra", llm.Config{Models: []string{"a"}, Endpoints: ant, Catalog: map[string]llm.ModelConfig{"a": {Endpoint: "ant", Sampling: llm.Sampling{Extra: map[string]any{"system": "x"}}}}}, "extra.system is a field rlm sets itself"},
		{"unsendable extra", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Sampling: llm.Sampling{Extra: map[string]any{"f": func() {}}}}}}, "extra.f cannot be sent as JSON"},
		{"negative price", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Price: &llm.Price{In: -1}}}}, "[models.a] price_in = -1"},
		{"infinite cached price", llm.Config{Models: []string{"a"}, Catalog: map[string]llm.ModelConfig{"a": {Price: &llm.Price{Cached: f64(math.Inf(1))}}}}, "[models.a] price_cached = +Inf"},
		{"negative MaxCost", llm.Config{Models: []string{"a"}, MaxCost: -2}, "the dollar budget -2 is not a finite amount"},
	}
	for _, tc := range tests {
		_, err := llm.New(tc.cfg)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Kind != fault.Schema || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a schema error containing %q", tc.name, err, tc.want)
		}
	}
}
