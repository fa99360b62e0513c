package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestChainFromEnv(t *testing.T) {
	tests := []struct {
		chain, depth string
		wantChain    []string
		wantDepth    int
		wantErr      string
	}{
		{wantDepth: 1},
		{chain: "a,b", depth: "3", wantChain: []string{"a", "b"}, wantDepth: 3},
		{chain: "a", wantChain: []string{"a"}, wantDepth: 1},
		{depth: "zero", wantErr: "SFA_DEPTH=\"zero\": want a positive integer"},
		{depth: "0", wantErr: "want a positive integer"},
	}
	for _, tt := range tests {
		t.Run(tt.chain+"/"+tt.depth, func(t *testing.T) {
			t.Setenv(envChain, tt.chain)
			t.Setenv(envDepth, tt.depth)
			chain, depth, err := chainFromEnv()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || exitCode(err) != exitUsage {
					t.Fatalf("err = %v; want a usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || depth != tt.wantDepth || !slices.Equal(chain, tt.wantChain) {
				t.Fatalf("got %q, %d, %v; want %q, %d", chain, depth, err, tt.wantChain, tt.wantDepth)
			}
		})
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
