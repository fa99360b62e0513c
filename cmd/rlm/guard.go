package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/rlm-sandbox/rlm/limits"
)

// The environment of recursive runs and of the guardrails (docs/design.md, "CLI contract"): the
// command line reads it into rlm.Options, which checks it (package internal/guard).
const (
	envDepth     = "SFA_DEPTH"
	envMaxDepth  = "SFA_MAX_DEPTH"
	envChain     = "SFA_CALL_CHAIN"
	envNoLog     = "SFA_NO_LOG"
	envMinFreeMB = "RLM_MIN_FREE_MB"

	chainSep = ","
)

// chainFromEnv reads SFA_CALL_CHAIN (the agents above this run, outermost first) and SFA_DEPTH
// (this run's depth, 1 when unset).
func chainFromEnv() (chain []string, depth int, err error) {
	if s := os.Getenv(envChain); s != "" {
		chain = strings.Split(s, chainSep)
	}
	depth = 1
	if s := os.Getenv(envDepth); s != "" {
		d, err := strconv.Atoi(s)
		if err != nil || d < 1 {
			return nil, 0, usagef("%s=%q: want a positive integer", envDepth, s)
		}
		depth = d
	}
	return chain, depth, nil
}

// maxDepthCap is SFA_MAX_DEPTH, which caps --max-depth (default 5).
func maxDepthCap() int {
	if n, err := strconv.Atoi(os.Getenv(envMaxDepth)); err == nil && n > 0 {
		return n
	}
	return limits.DepthCap
}

// minFreeMB is RLM_MIN_FREE_MB, the free space a run needs in RLM_HOME (0: the default, 100 MB).
func minFreeMB() int {
	if n, err := strconv.Atoi(os.Getenv(envMinFreeMB)); err == nil && n > 0 {
		return n
	}
	return 0
}
