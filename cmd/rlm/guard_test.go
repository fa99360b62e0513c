package main

import (
	"slices"
	"strings"
	"testing"
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
