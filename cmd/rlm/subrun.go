package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// subRunner answers llm_query with a recursive sub-RLM: a child `rlm run` whose context is the
// prompt. It runs one level deeper, with this agent appended to the call chain, inside this
// run's budgets: each child gets a share of what is left, and what it spent is charged here.
type subRunner struct {
	f      runFlags
	chain  callChain
	dir    string
	client *llm.Client
	replay string // the loopback URL of --replay's scripted model, for the children too
	n      *atomic.Int64

	mu       *sync.Mutex
	reserved *llm.Spent // the shares of the children running now
}

// subQuestion is the child's question: its context holds the request.
const subQuestion = "The context is a request from another model. Carry it out and answer it."

func newSubRunner(f runFlags, chain callChain, dir string, client *llm.Client, replay string) subRunner {
	return subRunner{f: f, chain: chain, dir: dir, client: client, replay: replay, n: new(atomic.Int64), mu: new(sync.Mutex), reserved: new(llm.Spent)}
}

// childName is the agent name of this run's children.
func (s subRunner) childName() string {
	return s.f.ask.name + ".d" + strconv.Itoa(s.chain.depth+1)
}

func (s subRunner) query(ctx context.Context, prompt string) (string, error) {
	share, err := s.reserve()
	if err != nil {
		return "", err
	}
	defer s.release(share)
	dl, ok := ctx.Deadline()
	if ok && time.Until(dl) < time.Second {
		return "", fault.New(fault.Timeout, "sub-run %s: less than a second left of the run's time", s.childName())
	}
	p, err := s.writePrompt(prompt)
	if err != nil {
		return "", err
	}
	res, err := s.runChild(ctx, p, share)
	s.client.Charge(llm.Spent{Calls: res.Usage.Calls, Tokens: res.Usage.Tokens})
	if err != nil {
		return "", err
	}
	return res.Answer, nil
}

// reserve takes half of what is left of the budgets, after the shares of running children.
func (s subRunner) reserve() (llm.Spent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := s.client.Remaining()
	share := llm.Spent{Calls: (left.Calls - s.reserved.Calls) / 2, Tokens: (left.Tokens - s.reserved.Tokens) / 2}
	if share.Calls < 1 || share.Tokens < minSubRunTokens {
		return share, fault.New(fault.Limit, "budget: too little left for a sub-run (%d API calls and %d tokens, half of what running sub-runs leave); raise --max-calls and --max-tokens, or lower --max-depth", share.Calls, share.Tokens)
	}
	s.reserved.Calls += share.Calls
	s.reserved.Tokens += share.Tokens
	return share, nil
}

const minSubRunTokens = 1000

func (s subRunner) release(share llm.Spent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved.Calls -= share.Calls
	s.reserved.Tokens -= share.Tokens
}

func (s subRunner) writePrompt(prompt string) (string, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(s.dir, fmt.Sprintf("subrun-%04d.txt", s.n.Add(1)))
	return p, os.WriteFile(p, []byte(prompt), 0o600)
}

// childResult is the part of a child's --json output the parent reads.
type childResult struct {
	Answer string `json:"answer"`
	Error  *struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	} `json:"error"`
	Usage struct {
		Calls  int `json:"api_calls"`
		Tokens int `json:"tokens"`
	} `json:"usage"`
}

// runChild runs the child; it dies with this process (Pdeathsig) and gets SIGTERM when ctx ends.
func (s subRunner) runChild(ctx context.Context, ctxFile string, share llm.Spent) (childResult, error) {
	cmd := exec.CommandContext(ctx, "/proc/self/exe", s.args(ctx, ctxFile, share)...)
	cmd.Args[0] = "rlm"
	cmd.Env = append(os.Environ(), s.chain.childEnv(s.f.ask.name)...)
	if s.replay != "" {
		cmd.Env = append(cmd.Env, "RLM_BASE_URL="+s.replay, "RLM_MODEL=replay", "RLM_API_KEY=", "OPENAI_API_KEY=")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res childResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		return res, fault.New(fault.Crashed, "sub-run %s failed (%v): %s", s.childName(), runErr, lastLine(stderr.String()))
	}
	if res.Error != nil {
		kind := fault.Kind(res.Error.Kind)
		if !slices.Contains(fault.Kinds, kind) {
			kind = fault.Code
		}
		return res, fault.New(kind, "sub-run %s: %s", s.childName(), res.Error.Message)
	}
	return res, nil
}

// args are the child's command line: the same model, language and caps, its share of the
// budgets, one level deeper.
func (s subRunner) args(ctx context.Context, ctxFile string, share llm.Spent) []string {
	f := s.f
	a := []string{"run", "--ctx", ctxFile, "--name", s.childName(), "--json", "--quiet",
		"--max-depth", strconv.Itoa(f.ask.maxDepth), "--lang", runLang(f),
		"--max-calls", strconv.Itoa(share.Calls), "--max-tokens", strconv.Itoa(share.Tokens),
		"--max-iterations", strconv.Itoa(f.ask.maxIterations), "--max-subcalls", strconv.Itoa(f.ask.maxSubCalls),
		"--max-batches", strconv.Itoa(f.ask.maxBatches), "--cell-timeout", f.cellTimeout.String()}
	if f.ask.model != "" && s.replay == "" {
		a = append(a, "--model", f.ask.model)
	}
	if dl, ok := ctx.Deadline(); ok {
		a = append(a, "--timeout", time.Until(dl).Truncate(time.Millisecond).String())
	}
	if f.allowDegraded {
		a = append(a, "--allow-degraded")
	}
	if f.ask.noLog {
		a = append(a, "--no-log")
	}
	return append(a, subQuestion)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
