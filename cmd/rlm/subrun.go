package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// subRunner answers llm_query with a recursive sub-RLM: a child `rlm run` whose context is the
// prompt. It runs one level deeper, with this agent appended to the call chain.
type subRunner struct {
	f     runFlags
	chain callChain
	dir   string
	n     *atomic.Int64
}

// subQuestion is the child's question: its context holds the request.
const subQuestion = "The context is a request from another model. Carry it out and answer it."

func newSubRunner(f runFlags, chain callChain, dir string) subRunner {
	return subRunner{f: f, chain: chain, dir: dir, n: new(atomic.Int64)}
}

// childName is the agent name of this run's children.
func (s subRunner) childName() string {
	return s.f.ask.name + ".d" + strconv.Itoa(s.chain.depth+1)
}

func (s subRunner) query(ctx context.Context, prompt string) (string, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(s.dir, fmt.Sprintf("subrun-%04d.txt", s.n.Add(1)))
	if err := os.WriteFile(p, []byte(prompt), 0o600); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "/proc/self/exe", s.args(ctx, p)...)
	cmd.Args[0] = "rlm"
	cmd.Env = append(os.Environ(), s.chain.childEnv(s.f.ask.name)...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res struct {
		Status string `json:"status"`
		Answer string `json:"answer"`
		Error  *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return "", fault.New(fault.Crashed, "sub-run %s failed (%v): %s", s.childName(), runErr, lastLine(stderr.String()))
	}
	if res.Error != nil {
		return "", fault.New(fault.Kind(res.Error.Kind), "sub-run %s: %s", s.childName(), res.Error.Message)
	}
	return res.Answer, nil
}

// args are the child's command line: the same model, language and limits, one level deeper.
func (s subRunner) args(ctx context.Context, ctxFile string) []string {
	a := []string{"run", "--ctx", ctxFile, "--name", s.childName(), "--json", "--quiet",
		"--max-depth", strconv.Itoa(s.f.ask.maxDepth), "--lang", runLang(s.f)}
	if s.f.ask.model != "" {
		a = append(a, "--model", s.f.ask.model)
	}
	if dl, ok := ctx.Deadline(); ok {
		a = append(a, "--timeout", time.Until(dl).Round(time.Second).String())
	}
	if s.f.allowDegraded {
		a = append(a, "--allow-degraded")
	}
	return append(a, subQuestion)
}

func lastLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.LastIndexByte([]byte(s), '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
