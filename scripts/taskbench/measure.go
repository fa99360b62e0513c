package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// process is one way to run a cell as a whole process: rlm run --script, the native Go program,
// or node with the stand-in.
type process struct {
	argv  []string
	env   []string
	final string // the file the native stand-in writes the answer to; "" for rlm (--json says)
}

// errNoFinal is the error of a run that recorded no answer.
var errNoFinal = errors.New("no FINAL")

// run runs the process once and returns its answer and its wall time, start to exit.
func (p process) run() (string, time.Duration, error) {
	if p.final != "" {
		os.Remove(p.final)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if p.final == "" {
		return rlmAnswer(stdout.Bytes(), stderr.String(), err, d)
	}
	if err != nil {
		return "", d, fmt.Errorf("%v: %s", err, oneLine(lastLines(stderr.String(), 3)))
	}
	b, err := os.ReadFile(p.final)
	if errors.Is(err, os.ErrNotExist) {
		return "", d, fmt.Errorf("%w; output: %s", errNoFinal, oneLine(stdout.String()))
	}
	return string(b), d, err
}

// rlmAnswer reads rlm run --json's object: the answer, or the error with its kind.
func rlmAnswer(stdout []byte, stderr string, runErr error, d time.Duration) (string, time.Duration, error) {
	var res struct {
		Status string  `json:"status"`
		Answer *string `json:"answer"`
		Error  *struct {
			Kind    string `json:"kind"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(stdout, &res); err != nil {
		return "", d, fmt.Errorf("rlm run: %v (%v): %s", runErr, err, oneLine(stderr))
	}
	switch {
	case res.Error != nil:
		return "", d, fmt.Errorf("%s: %s", res.Error.Kind, oneLine(res.Error.Message))
	case res.Answer == nil:
		return "", d, fmt.Errorf("%w (status %s)", errNoFinal, res.Status)
	}
	return *res.Answer, d, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " | ")
}

// contenders holds how to run each contender.
type contenders struct {
	rlm, home string // the rlm binary and its scratch RLM_HOME
	dir       string // the work directory
}

func (c contenders) rlmRun(script string, inputs []string) process {
	argv := []string{c.rlm, "run", "--json", "--quiet", "--cell-timeout", "10m", "--script", script}
	for _, in := range inputs {
		argv = append(argv, "--ctx", in)
	}
	return process{argv: argv, env: []string{"RLM_HOME=" + c.home}}
}

func (c contenders) native(lang, program string, inputs []string) process {
	argv := []string{program}
	if lang == "js" {
		argv = []string{"node", program}
	}
	final := filepath.Join(c.dir, "final-"+lang)
	return process{argv: append(argv, inputs...), env: []string{"RLMBENCH_FINAL=" + final}, final: final}
}

// timed are the wall times of a contender's runs of one cell.
type timed []time.Duration

func (t timed) median() time.Duration {
	s := slices.Clone(t)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
