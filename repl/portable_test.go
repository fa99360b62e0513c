//go:build (linux && rlm_portable) || darwin

package repl

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
)

// The worker as macOS runs it: no Linux layer, rlimits and the sandbox's watchdogs only. On
// Linux these tests need -tags rlm_portable, which builds the sandbox and the file tools the
// macOS way (the kernel's layers exist but are deliberately not used); .ci/run runs them so.
// On a Mac they run as they are. The escape corpus runs in this mode too
// (TestCorpusEscapesThroughSessions).

// Below the minimum, and without AllowDegraded, no worker runs: the error names the option and
// says what is lost.
func TestPortableRefusedWithoutAllowDegraded(t *testing.T) {
	o := confinedOptions(t, "js")
	o.AllowDegraded = false
	s, err := Open(context.Background(), o)
	if err == nil {
		s.Close()
		t.Fatal("a session opened below the minimum without AllowDegraded")
	}
	if !errors.Is(err, fault.Denied) {
		t.Errorf("error %v, want fault.Denied", err)
	}
	for _, want := range []string{"isolation is none", "--allow-degraded", "Options.AllowDegraded",
		"landlock would stop reading and writing files", "seccomp would stop sockets", "net_ns", "separate process with rlimits"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}
}

// With AllowDegraded, cells run in a separate worker with rlimits, behind the validator, the
// interpreters' allow-lists and the file tools' path guard.
func TestPortableWorker(t *testing.T) {
	canary, outside := exposed(t)
	cases := []struct {
		lang                               string
		read, reject, readOut, writeOut    string
		loop, memory                       string
		noValidateRead, noValidateReadWant string
	}{{
		lang:     "go",
		read:     `fmt.Println(length(context), count(context, "ERROR"))`,
		reject:   "import \"os\"\nb, _ := os.ReadFile(\"" + canary + "\")\nfmt.Println(string(b))",
		readOut:  `fmt.Println(read_file("` + canary + `"))`,
		writeOut: `write_file("` + outside + `", "pwned")`,
		loop:     "n := 0\nfor i := 0; i < 1<<62; i++ {\n\tn += i\n}\nfmt.Println(n)",
		// 64 MiB at a time, written and kept alive: 12.5 GiB in all.
		memory:             "import \"bytes\"\nvar keep [][]byte\nfor i := 0; i < 200; i++ {\n\tkeep = append(keep, bytes.Repeat([]byte(\"x\"), 64<<20))\n}\nfmt.Println(len(keep))",
		noValidateRead:     "import \"os\"\nb, err := os.ReadFile(\"" + canary + "\")\nfmt.Println(string(b), err)",
		noValidateReadWant: "os",
	}, {
		lang:               "js",
		read:               `console.log(length(context), count(context, "ERROR"))`,
		reject:             `const fs = require("fs"); console.log(fs.readFileSync("` + canary + `", "utf8"))`,
		readOut:            `console.log(read_file("` + canary + `"))`,
		writeOut:           `write_file("` + outside + `", "pwned")`,
		loop:               `let n = 0; for (let i = 0; i < 1e18; i++) n += i; console.log(n)`,
		memory:             `const keep = []; for (let i = 0; i < 200; i++) keep.push(new Uint8Array(64 << 20).fill(1)); console.log(keep.length)`,
		noValidateRead:     `const fs = require("fs"); console.log(fs.readFileSync("` + canary + `", "utf8"))`,
		noValidateReadWant: "require",
	}}
	for _, tc := range cases {
		t.Run(tc.lang, func(t *testing.T) {
			o := confinedOptions(t, tc.lang)
			o.CellTimeout = 2 * time.Second
			s := open(t, o)
			iso := s.Isolation()
			if iso.Verdict != "none" || !strings.Contains(strings.Join(iso.Layers, "\n"), "rlimits    applied") {
				t.Fatalf("isolation %s, want none with rlimits applied:\n%s", iso.Verdict, strings.Join(iso.Layers, "\n"))
			}
			if r := s.Exec(context.Background(), tc.read); r.Err != nil || strings.TrimSpace(r.Stdout) != "7362 9" {
				t.Errorf("reading the context: got %q %v, want 7362 9", r.Stdout, r.Err)
			}
			if r := s.Exec(context.Background(), tc.reject); !errors.Is(r.Err, fault.Rejected) || leaked(r) {
				t.Errorf("the validator: got %q %v, want rejected", r.Stdout, r.Err)
			}
			if r := s.Exec(context.Background(), tc.readOut); r.Err == nil || leaked(r) {
				t.Errorf("read_file outside the roots: got %q %v, want an error", r.Stdout, r.Err)
			}
			if r := s.Exec(context.Background(), tc.writeOut); r.Err == nil {
				t.Errorf("write_file outside the workspace: no error (%q)", r.Stdout)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("a file was written outside the workspace: %s", outside)
			}
			start := time.Now()
			if r := s.Exec(context.Background(), tc.loop); !errors.Is(r.Err, fault.Timeout) {
				t.Errorf("a runaway loop: got %v after %v, want a timeout", r.Err, time.Since(start))
			}
			if r := s.Exec(context.Background(), tc.read); strings.TrimSpace(r.Stdout) != "7362 9" && !retry(s, &r) {
				t.Errorf("after the loop: got %q %v", r.Stdout, r.Err)
			}
		})
	}
	for _, tc := range cases {
		t.Run(tc.lang+"/memory", func(t *testing.T) {
			o := confinedOptions(t, tc.lang)
			o.NoValidate, o.CellTimeout = true, 20*time.Second
			s := open(t, o)
			r := s.Exec(context.Background(), tc.memory)
			// Either the engine's own heap check stops the cell (JS) or the sandbox's watchdog
			// ends the worker (Go, whose interpreter has none): never a timeout, never success.
			if r.Err == nil || errors.Is(r.Err, fault.Timeout) ||
				!strings.Contains(r.Err.Error(), "memory watchdog") && !strings.Contains(r.Err.Error(), "heap passed") {
				t.Errorf("12.5 GiB kept alive: got %q %v, want the worker's memory stopped", r.Stdout, r.Err)
			}
			t.Logf("stopped by: %v", r.Err)
			if r := s.Exec(context.Background(), tc.read); strings.TrimSpace(r.Stdout) != "7362 9" && !retry(s, &r) {
				t.Errorf("after the memory bomb: got %q %v", r.Stdout, r.Err)
			}
		})
		t.Run(tc.lang+"/allow-list", func(t *testing.T) {
			o := confinedOptions(t, tc.lang)
			o.NoValidate = true
			s := open(t, o)
			r := s.Exec(context.Background(), tc.noValidateRead)
			if r.Err == nil || leaked(r) || !strings.Contains(r.Err.Error(), tc.noValidateReadWant) {
				t.Errorf("with the validator off, reading a file directly: got %q %v, want an error about %q", r.Stdout, r.Err, tc.noValidateReadWant)
			}
		})
	}
}
