package subrun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
)

// Question is a child's question: its context holds the request.
const Question = "The context is a request from another model. Carry it out and answer it."

// minTokens is the smallest token share a child is started with.
const minTokens = 1000

// Runner answers llm_query with child runs. Its zero value is not usable: see New.
type Runner struct {
	tmpl   Spec        // the child's spec but for its files, budgets and timeout
	dir    string      // where the prompts are written
	client *llm.Client // the parent's budgets
	charge func(llm.Spent)

	mu       sync.Mutex
	n        int
	reserved llm.Spent // the shares of the children running now
}

// New returns a Runner whose children are parent one level deeper: parent is this run's spec
// (its Name, Chain and Depth are this run's), dir where the prompts go, client the run's model
// client (its budgets are shared out), and charge adds what a child spent to this run's figures.
func New(parent Spec, dir string, client *llm.Client, charge func(llm.Spent)) *Runner {
	child := parent
	child.Question = Question
	child.Chain = append(slices.Clone(parent.Chain), parent.Name)
	child.Depth = parent.Depth + 1
	child.Name = parent.Name + ".d" + strconv.Itoa(child.Depth)
	return &Runner{tmpl: child, dir: dir, client: client, charge: charge}
}

// Query runs one child over prompt and returns its answer; model, when set, is the configured
// model the code picked (see child). It is safe for concurrent use.
func (r *Runner) Query(ctx context.Context, prompt, model string) (string, error) {
	share, err := r.reserve()
	if err != nil {
		return "", err
	}
	defer r.release(share)
	dl, ok := ctx.Deadline()
	if ok && time.Until(dl) < time.Second {
		return "", fault.New(fault.Timeout, "sub-run %s: less than a second left of the run's time", r.tmpl.Name)
	}
	p, err := r.writePrompt(prompt)
	if err != nil {
		return "", err
	}
	spec := r.child(p, model, share)
	if ok {
		spec.Timeout = time.Until(dl).Truncate(time.Millisecond)
	}
	rep, err := r.run(ctx, spec)
	r.charge(llm.Spent{Calls: rep.Calls, Tokens: rep.Tokens, PromptTokens: rep.PromptTokens, CompletionTokens: rep.CompletionTokens, Cost: rep.Cost})
	if err != nil {
		return "", err
	}
	return rep.Answer, nil
}

// child is the spec of a child over the prompt file p with its share of the budgets. Its root
// model answers in place of a sub-call model, so it is the model the code picked, else the
// sub-call ladder (when one is configured), else the parent's root ladder.
func (r *Runner) child(p, model string, share llm.Spent) Spec {
	spec := r.tmpl
	spec.Files = []string{p}
	switch {
	case model != "":
		spec.Model.Models = []string{model}
	case len(spec.Model.SubModels) > 0:
		spec.Model.Models = slices.Clone(spec.Model.SubModels)
	}
	spec.Model.MaxCalls, spec.Model.MaxTokens = share.Calls, share.Tokens
	if r.tmpl.Model.MaxCost > 0 {
		spec.Model.MaxCost = share.Cost.USD
	}
	return spec
}

// reserve takes half of what is left of the budgets, after the shares of running children.
func (r *Runner) reserve() (llm.Spent, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	left := r.client.Remaining()
	share := llm.Spent{Calls: (left.Calls - r.reserved.Calls) / 2, Tokens: (left.Tokens - r.reserved.Tokens) / 2}
	if share.Calls < 1 || share.Tokens < minTokens {
		return share, fault.New(fault.Limit, "budget: too little left for a sub-run (%d API calls and %d tokens, half of what running sub-runs leave); raise --max-calls and --max-tokens, or lower --max-depth", share.Calls, share.Tokens)
	}
	if r.tmpl.Model.MaxCost > 0 {
		share.Cost.USD = (left.Cost.USD - r.reserved.Cost.USD) / 2
		if share.Cost.USD <= 0 {
			return share, fault.New(fault.Limit, "budget: too little left for a sub-run (%s, half of what running sub-runs leave); raise --max-cost, or lower --max-depth", share.Cost)
		}
	}
	r.reserved.Calls += share.Calls
	r.reserved.Tokens += share.Tokens
	r.reserved.Cost.USD += share.Cost.USD
	return share, nil
}

func (r *Runner) release(share llm.Spent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved.Calls -= share.Calls
	r.reserved.Tokens -= share.Tokens
	r.reserved.Cost.USD -= share.Cost.USD
}

func (r *Runner) writePrompt(prompt string) (string, error) {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return "", err
	}
	r.mu.Lock()
	r.n++
	n := r.n
	r.mu.Unlock()
	p := filepath.Join(r.dir, fmt.Sprintf("subrun-%04d.txt", n))
	return p, os.WriteFile(p, []byte(prompt), 0o600)
}

// run starts the child; it dies with this process (Pdeathsig) and gets SIGTERM when ctx ends.
func (r *Runner) run(ctx context.Context, spec Spec) (Reply, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return Reply{}, err
	}
	cmd := exec.CommandContext(ctx, self(), Arg)
	cmd.Args[0] = "rlm"
	cmd.Stdin = bytes.NewReader(in)
	cmd.SysProcAttr = dieWithParent()
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var rep Reply
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, fault.New(fault.Crashed, "sub-run %s failed (%v): %s", spec.Name, runErr, lastLine(stderr.String()))
	}
	if rep.Error != nil {
		return rep, fault.New(fault.Parse(rep.Error.Kind), "sub-run %s: %s", spec.Name, rep.Error.Message)
	}
	return rep, nil
}

// self is this executable: the magic link on Linux, which works even when the binary was
// replaced since.
func self() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/exe"
	}
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
