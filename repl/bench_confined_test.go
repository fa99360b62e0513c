package repl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The issue-3 figures, with the real engines and every confinement layer this machine has:
//
//	go test ./repl -run '^$' -bench Confined -benchtime 20x
//
// The test binary serves as the worker here (see TestMain); BenchmarkConfinedOpenRLM starts the
// real rlm binary instead (rlm __worker, the fallback), and BenchmarkConfinedOpenWorker the
// rlm-worker binary, which is what users run when they install both.

func BenchmarkConfinedOpen(b *testing.B) {
	for _, lang := range []string{"go", "js"} {
		b.Run(lang, func(b *testing.B) { benchOpen(b, confinedOptions(b, lang)) })
	}
}

// BenchmarkConfinedOpenRLM opens sessions whose worker is the rlm binary, built for the
// benchmark with CGO_ENABLED=0 as released.
func BenchmarkConfinedOpenRLM(b *testing.B) {
	bin := rlmBinary(b, "rlm")
	for _, lang := range []string{"go", "js"} {
		b.Run(lang, func(b *testing.B) {
			o := confinedOptions(b, lang)
			o.Worker = WorkerCommand{Path: bin}
			benchOpen(b, o)
		})
	}
}

// BenchmarkConfinedOpenWorker opens sessions whose worker is rlm-worker, built for the
// benchmark with CGO_ENABLED=0 as released.
func BenchmarkConfinedOpenWorker(b *testing.B) {
	bin := rlmBinary(b, "rlm-worker")
	for _, lang := range []string{"go", "js"} {
		b.Run(lang, func(b *testing.B) {
			o := confinedOptions(b, lang)
			o.Worker = WorkerCommand{Path: bin, Args: []string{}}
			benchOpen(b, o)
		})
	}
}

// benchOpen times Open alone: a fresh worker process started, confined, its engine built, and
// ready. Close (which waits for the worker and its namespaces to go away) is reported
// separately as close-ms.
func benchOpen(b *testing.B, o Options) {
	var closing time.Duration
	for b.Loop() {
		s, err := Open(b.Context(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		start := time.Now()
		s.Close()
		closing += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(closing.Microseconds())/1000/float64(b.N), "close-ms")
}

// rlmBinary builds cmd/NAME into a directory the worker's unprivileged uid can reach (the
// build cache makes every build after the first a link).
func rlmBinary(b *testing.B, name string) string {
	dir := b.TempDir()
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, "github.com/rlm-sandbox/rlm/cmd/"+name)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); errors.Is(err, exec.ErrNotFound) {
		b.Skip("no go command to build the rlm binary")
	} else if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return bin
}

func BenchmarkConfinedTrivialCell(b *testing.B) {
	for _, lang := range []string{"go", "js"} {
		b.Run(lang, func(b *testing.B) {
			s := open(b, confinedOptions(b, lang))
			for b.Loop() {
				if r := run(b, s, "x := 1"[map[string]int{"go": 0, "js": 4}[lang]:]); r.Err != nil {
					b.Fatal(r.Err)
				}
			}
		})
	}
}

// BenchmarkConfinedHardKill: a native hang in JS (a backtracking regex the interrupt cannot stop)
// past the hard deadline; reports how late Exec returns, restart and a one-cell replay included.
func BenchmarkConfinedHardKill(b *testing.B) {
	o := confinedOptions(b, "js")
	o.CellTimeout, o.KillGrace, o.MaxRestarts, o.NoValidate = 100*time.Millisecond, 50*time.Millisecond, 1<<30, true
	s := open(b, o)
	run(b, s, "var kept = 1")
	var late time.Duration
	for b.Loop() {
		start := time.Now()
		r := run(b, s, `new Array(3e8).fill(1)`)
		if !r.Rebuilt {
			b.Fatalf("not killed and rebuilt: %v %v", r.Err, r.Lost)
		}
		late += time.Since(start) - (o.CellTimeout + o.KillGrace)
	}
	b.ReportMetric(float64(late.Microseconds())/1000/float64(b.N), "ms-past-deadline")
}

// BenchmarkConfinedRestartReplay10: a killed worker, a new confined worker and a 10-cell replay.
func BenchmarkConfinedRestartReplay10(b *testing.B) {
	o := confinedOptions(b, "js")
	o.MaxRestarts, o.MaxBackoff = 1<<30, time.Nanosecond
	s := open(b, o)
	for i := range 10 {
		run(b, s, fmt.Sprintf("var v%d = %d", i, i))
	}
	for b.Loop() {
		b.StopTimer()
		s.w.kill()
		<-s.w.exited
		b.StartTimer()
		if r := run(b, s, "print(v9)"); r.Stdout != "9\n" || !r.Rebuilt {
			b.Fatal(r.Stdout, r.Err, r.Lost)
		}
	}
}
