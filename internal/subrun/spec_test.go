package subrun

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// local are the llm.Config fields that belong to the process that builds the client: a child
// sets its own.
var local = map[string]bool{"Deadline": true, "Spent": true, "Observer": true, "Notify": true, "Log": true,
	"Redactor": true, "Sleep": true, "Now": true, "Backend": true}

// TestModelCoversConfig fails when llm.Config or llm.Endpoint gains a field that Model neither
// carries nor lists as local: a child would silently run with a different configuration.
func TestModelCoversConfig(t *testing.T) {
	carried := map[string]bool{}
	for f := range reflect.TypeFor[Model]().Fields() {
		carried[f.Name] = true
	}
	for f := range reflect.TypeFor[llm.Config]().Fields() {
		if !carried[f.Name] && !local[f.Name] {
			t.Errorf("llm.Config.%s is neither carried to a sub-run (subrun.Model) nor listed as local here", f.Name)
		}
	}
	ep := map[string]bool{}
	for f := range reflect.TypeFor[Endpoint]().Fields() {
		ep[f.Name] = true
	}
	for f := range reflect.TypeFor[llm.Endpoint]().Fields() {
		if !ep[f.Name] && !local[f.Name] {
			t.Errorf("llm.Endpoint.%s is not carried to a sub-run", f.Name)
		}
	}
}

// TestModelRoundTrip: every data field of a config survives the pipe to a child.
func TestModelRoundTrip(t *testing.T) {
	temp, price := 0.2, 1.5
	cfg := llm.Config{Provider: llm.ProviderAnthropic, BaseURL: "http://a", APIKey: "k1", Models: []string{"m1", "m2"}, SubModels: []string{"s"},
		Endpoints:       map[string]llm.Endpoint{"b": {Provider: llm.ProviderOpenAI, BaseURL: "http://b", APIKey: "k2"}},
		DefaultEndpoint: "b", Catalog: map[string]llm.ModelConfig{"s": {ID: "sid", Endpoint: "b", Sampling: llm.Sampling{Temperature: &temp, Extra: map[string]any{"top_k": 5.0}}, Price: &llm.Price{In: price, Out: 2}}},
		MaxCalls: 7, MaxTokens: 9000, MaxCost: 0.5, ConnectTimeout: time.Second, IdleTimeout: 2 * time.Second, MaxAttempts: 3,
		MinBackoff: time.Millisecond, MaxBackoff: time.Minute, BreakerErrors: 4, BreakerWindow: time.Hour, QuotaProbe: time.Second, NoMonitor: true}
	b, err := json.Marshal(ModelOf(cfg))
	if err != nil {
		t.Fatal(err)
	}
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if got := m.Config(); !reflect.DeepEqual(got, cfg) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, cfg)
	}
}

// TestReserve: a child gets half of what is left after the shares of running children, and is
// refused when that is too little.
func TestReserve(t *testing.T) {
	client, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:9/v1", Models: []string{"m"}, MaxCalls: 8, MaxTokens: 40_000, MaxCost: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := New(Spec{Name: "root", Depth: 1, Model: Model{MaxCost: 1}}, t.TempDir(), client, func(llm.Spent) {})
	if r.tmpl.Name != "root.d2" || r.tmpl.Depth != 2 || !reflect.DeepEqual(r.tmpl.Chain, []string{"root"}) {
		t.Errorf("child spec: %s at depth %d, chain %v", r.tmpl.Name, r.tmpl.Depth, r.tmpl.Chain)
	}
	var shares []llm.Spent
	for range 2 {
		s, err := r.reserve()
		if err != nil {
			t.Fatal(err)
		}
		shares = append(shares, s)
	}
	want := []llm.Spent{{Calls: 4, Tokens: 20_000, Cost: llm.Cost{USD: 0.5}}, {Calls: 2, Tokens: 10_000, Cost: llm.Cost{USD: 0.25}}}
	if !reflect.DeepEqual(shares, want) {
		t.Errorf("shares = %+v; want %+v", shares, want)
	}
	r.release(shares[0])
	if s, err := r.reserve(); err != nil || s.Calls != 3 {
		t.Errorf("after a release: %+v, %v; want 3 calls", s, err)
	}
	// 8 calls, 5 reserved: the next child gets 1, then none is left to share.
	if s, err := r.reserve(); err != nil || s.Calls != 1 {
		t.Errorf("got %+v, %v; want 1 call", s, err)
	}
	if s, err := r.reserve(); err != nil || s.Calls != 1 {
		t.Errorf("got %+v, %v; want 1 call", s, err)
	}
	if _, err := r.reserve(); !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "too little left for a sub-run (0 API calls") {
		t.Errorf("got %v; want a refusal", err)
	}
}

// TestQueryNoTime: a sub-call with less than a second left does not start a child.
func TestQueryNoTime(t *testing.T) {
	client, _ := llm.New(llm.Config{BaseURL: "http://127.0.0.1:9/v1", Models: []string{"m"}})
	r := New(Spec{Name: "a", Depth: 1}, t.TempDir(), client, func(llm.Spent) {})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := r.Query(ctx, "hi", ""); !errors.Is(err, fault.Timeout) {
		t.Errorf("got %v; want a timeout", err)
	}
}

// TestChildModel: a child answers in place of a sub-call model, so its root ladder is the model
// the code picked, else the sub-call ladder, else the parent's root ladder; its budgets are its
// share, and the parent's ladders are left as they were.
func TestChildModel(t *testing.T) {
	share := llm.Spent{Calls: 3, Tokens: 4000, Cost: llm.Cost{USD: 0.25}}
	for _, tt := range []struct {
		name       string
		root, sub  []string
		picked     string
		want       []string
		maxCost    float64
		wantMaxUSD float64
	}{
		{"root only", []string{"big"}, nil, "", []string{"big"}, 0, 0},
		{"sub ladder", []string{"big"}, []string{"small", "mid"}, "", []string{"small", "mid"}, 1, 0.25},
		{"picked", []string{"big"}, []string{"small"}, "big", []string{"big"}, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Spec{Name: "a", Depth: 1, Model: Model{Models: tt.root, SubModels: tt.sub, MaxCost: tt.maxCost}}, t.TempDir(), nil, func(llm.Spent) {})
			got := r.child("/p", tt.picked, share)
			if !reflect.DeepEqual(got.Model.Models, tt.want) || !reflect.DeepEqual(got.Model.SubModels, tt.sub) {
				t.Errorf("child ladders %v / %v; want %v / %v", got.Model.Models, got.Model.SubModels, tt.want, tt.sub)
			}
			if got.Model.MaxCalls != 3 || got.Model.MaxTokens != 4000 || got.Model.MaxCost != tt.wantMaxUSD {
				t.Errorf("child budgets %d calls, %d tokens, $%v", got.Model.MaxCalls, got.Model.MaxTokens, got.Model.MaxCost)
			}
			if !reflect.DeepEqual(r.tmpl.Model.Models, tt.root) || !reflect.DeepEqual(got.Files, []string{"/p"}) {
				t.Errorf("parent ladder now %v, files %v", r.tmpl.Model.Models, got.Files)
			}
		})
	}
}
