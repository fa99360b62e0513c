//go:build (linux && rlm_portable) || darwin

package rlm_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
)

// TestAskDegraded: where Linux's layers are absent (macOS; Linux built with -tags rlm_portable,
// which .ci/run runs), a run is refused unless Options.AllowDegraded, with a fault.Denied that
// names the option and what is lost; with it the run answers, and reports isolation none.
func TestAskDegraded(t *testing.T) {
	script := rlm.Script{Name: "count.js", Source: `FINAL(count(context, "ERROR svc=payment"))`}
	o := rlm.Options{Script: script, Lang: "js", Files: []string{demoLog}, Home: t.TempDir()}
	res, err := rlm.Ask(context.Background(), o)
	if !errors.Is(err, fault.Denied) {
		t.Fatalf("without AllowDegraded: %v (answer %q), want fault.Denied", err, res.Answer)
	}
	for _, want := range []string{"Options.AllowDegraded", "--allow-degraded", "landlock would stop"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q: %v", want, err)
		}
	}
	o.AllowDegraded = true
	res, err = rlm.Ask(context.Background(), o)
	if err != nil || res.Answer != "13" || res.Isolation != "none" {
		t.Fatalf("with AllowDegraded: answer %q, isolation %q, err %v; want 13, none", res.Answer, res.Isolation, err)
	}
	if _, err := rlm.OpenSession(context.Background(), rlm.SessionOptions{Lang: "go", Files: []string{demoLog}, Home: t.TempDir()}); !errors.Is(err, fault.Denied) {
		t.Errorf("OpenSession without AllowDegraded: %v, want fault.Denied", err)
	}
}
