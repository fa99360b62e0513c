package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

func TestChainFromEnv(t *testing.T) {
	tests := []struct {
		chain, depth, max, name string
		wantDepth               int
		wantErr                 string
	}{
		{name: "rlm", wantDepth: 1},
		{chain: "a,b", depth: "3", name: "c", wantDepth: 3},
		{chain: "a", depth: "2", name: "a", wantErr: "agent loop detected: a → a"},
		{chain: "a,b,c", depth: "4", name: "b", wantErr: "agent loop detected: b → c → b"},
		{depth: "6", name: "x", wantErr: "recursion depth 6 exceeds SFA_MAX_DEPTH=5"},
		{depth: "3", max: "2", name: "x", wantErr: "exceeds SFA_MAX_DEPTH=2"},
		{depth: "zero", name: "x", wantErr: "want a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.chain+"/"+tt.name, func(t *testing.T) {
			t.Setenv(envChain, tt.chain)
			t.Setenv(envDepth, tt.depth)
			t.Setenv(envMaxDepth, tt.max)
			c, err := chainFromEnv(tt.name)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v; want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || c.depth != tt.wantDepth {
				t.Fatalf("got depth %d, %v; want %d", c.depth, err, tt.wantDepth)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	c := callChain{names: []string{"a"}, depth: 2}
	got := c.childEnv("b")
	want := []string{"SFA_DEPTH=3", "SFA_CALL_CHAIN=a,b"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q; want %q", got, want)
	}
}

func TestRunTimeoutPrecedence(t *testing.T) {
	cfg := fileConfig{}
	cfg.Defaults.Timeout = "7m"
	tests := []struct {
		name    string
		flagSet bool
		env     string
		cfg     fileConfig
		want    time.Duration
		wantErr bool
	}{
		{"flag wins", true, "5m", cfg, 2 * time.Minute, false},
		{"env next", false, "5m", cfg, 5 * time.Minute, false},
		{"env in seconds", false, "45", cfg, 45 * time.Second, false},
		{"config next", false, "", cfg, 7 * time.Minute, false},
		{"default last", false, "", fileConfig{}, 90 * time.Minute, false},
		{"bad env", false, "soon", cfg, 0, true},
		{"negative env", false, "-1m", cfg, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(envTimeout, tt.env)
			got, err := runTimeout(2*time.Minute, tt.flagSet, tt.cfg, 90*time.Minute)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("got %v, %v; want %v (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestLockRun(t *testing.T) {
	home := t.TempDir()
	root := callChain{depth: 1}
	l1, err := lockRun(home, "t1", root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockRun(home, "t2", root); err == nil || !strings.Contains(err.Error(), "Another task is running (PID") {
		t.Fatalf("second run: %v; want a refusal", err)
	}
	child, err := lockRun(home, "t3", callChain{depth: 2})
	if err != nil {
		t.Fatalf("a sub-run must not be refused: %v", err)
	}
	child.release()
	l1.release()
	// A PID file of a dead process is stale: removed, not a refusal.
	stale := filepath.Join(home, "run", "old.pid")
	if err := os.WriteFile(stale, []byte("999999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l4, err := lockRun(home, "t4", root)
	if err != nil {
		t.Fatalf("a stale PID file refused the run: %v", err)
	}
	defer l4.release()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale PID file is still there")
	}
}

// TestEmergencyStopBeforeEachCall proves the check runs before every model call, not only at
// start: the file appears between two calls, and the second never reaches the model.
func TestEmergencyStopBeforeEachCall(t *testing.T) {
	home := t.TempDir()
	calls := 0
	m := stopModel{home: home, next: modelFunc(func() { calls++ })}
	if _, err := m.Complete(context.Background(), llm.Request{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, emergencyStopFile), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := m.Complete(context.Background(), llm.Request{})
	if !errors.Is(err, fault.Limit) || !strings.Contains(err.Error(), "EMERGENCY_STOP exists") || calls != 1 {
		t.Fatalf("got %v after %d calls; want a refusal before the second call", err, calls)
	}
}

type modelFunc func()

func (f modelFunc) Complete(context.Context, llm.Request) (llm.Response, error) {
	f()
	return llm.Response{Text: "ok"}, nil
}
