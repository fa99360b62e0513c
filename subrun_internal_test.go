package rlm

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/internal/subrun"
	"github.com/rlm-sandbox/rlm/llm"
)

// notCarried are the Options fields a sub-run does not take from its parent, and why.
var notCarried = map[string]string{
	"Script":     "a child answers a request, it runs no script",
	"Mode":       "the child decides (Auto): a short request takes one direct call",
	"Workspace":  "each child gets a default workspace of its own",
	"Roots":      "a child reads its request only",
	"Replay":     "carried inside Model: the parent's replay server's URL",
	"Budget":     "the child's share is in Model; the parent charges what it spent",
	"Progress":   "children are quiet",
	"Status":     "children are quiet",
	"MaxRuns":    "a sub-run takes no room in the run lock: it runs inside its parent's",
	"Quiet":      "children are quiet",
	"Verbose":    "children are quiet",
	"OnEvent":    "the parent reports the sub-call",
	"NoValidate": "children always validate",
	"Convert":    "a child's context is its request, which is text: there is nothing to convert",
	"Tools":      "a child is another process, and a tool is a Go function of this one: a child reads its request with the API alone",
}

// TestSubRunSpecCoversOptions fails when Options gains a field that subrun.Spec neither carries
// nor is listed above as not carried: a child would silently run with a default instead.
func TestSubRunSpecCoversOptions(t *testing.T) {
	spec := map[string]bool{}
	for f := range reflect.TypeFor[subrun.Spec]().Fields() {
		spec[f.Name] = true
	}
	for f := range reflect.TypeFor[Options]().Fields() {
		if !spec[f.Name] && notCarried[f.Name] == "" {
			t.Errorf("Options.%s is neither carried to a sub-run (subrun.Spec) nor listed in notCarried", f.Name)
		}
	}
}

// TestSubRunSpecRoundTrip: every Options field a Spec carries reaches the child's Options.
func TestSubRunSpecRoundTrip(t *testing.T) {
	o := Options{
		Question: "q", Files: []string{"f"}, Lang: "js", Home: "/h", Limits: Limits{PeekChars: 7, SubCalls: 3},
		Quota: Quota{Bytes: 9}, MaxIterations: 4, MaxBlocks: 2, FeedbackChars: 6000, WorkerMemory: 1 << 27, Timeout: time.Minute, CellTimeout: time.Second, MinFreeMB: 5,
		Name: "n", MaxDepth: 3, Chain: []string{"a"}, Depth: 2, DepthCap: 4, AllowDegraded: true, NoLog: true,
		Model: llm.Config{BaseURL: "http://x", Models: []string{"m"}, MaxCalls: 6},
	}
	spec := specOf(o, o.Model)
	spec.Question, spec.Files = o.Question, o.Files // subrun.New sets the child's own
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	var back subrun.Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	got, want := reflect.ValueOf(optionsOf(back)), reflect.ValueOf(o)
	for f := range reflect.TypeFor[subrun.Spec]().Fields() {
		g, w := got.FieldByName(f.Name), want.FieldByName(f.Name)
		if w.IsZero() {
			t.Errorf("the test leaves Options.%s zero: set it", f.Name)
		}
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("Options.%s: the child gets %v; want %v", f.Name, g, w)
		}
	}
}
