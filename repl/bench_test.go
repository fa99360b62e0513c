package repl

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// go test ./repl -run '^$' -bench . -benchtime 50x
//
// These measure the session machinery with the fake engine; the engines' own costs are measured
// in their packages.

func BenchmarkOpen(b *testing.B) {
	for b.Loop() {
		s, err := Open(context.Background(), testOptions("full"))
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

func BenchmarkTrivialCell(b *testing.B) {
	s := open(b, testOptions("full"))
	for b.Loop() {
		if r := run(b, s, "set x 1"); r.Err != nil {
			b.Fatal(r.Err)
		}
	}
}

// BenchmarkHardKill reports how long past the hard deadline Exec returns, restart and replay of
// one cell included (ms-past-deadline).
func BenchmarkHardKill(b *testing.B) {
	o := testOptions("full")
	o.CellTimeout, o.KillGrace, o.MaxRestarts = 50*time.Millisecond, 10*time.Millisecond, 1<<30
	s := open(b, o)
	run(b, s, "set x 1")
	var late time.Duration
	for b.Loop() {
		start := time.Now()
		if r := run(b, s, "hang"); !r.Rebuilt {
			b.Fatal(r.Err, r.Lost)
		}
		late += time.Since(start) - (o.CellTimeout + o.KillGrace)
	}
	b.ReportMetric(float64(late.Microseconds())/1000/float64(b.N), "ms-past-deadline")
}

// BenchmarkRestartReplay10 is a crash followed by a restart and the replay of 10 cells.
func BenchmarkRestartReplay10(b *testing.B) {
	o := testOptions("full")
	o.MaxRestarts = 1 << 30
	o.MaxBackoff = time.Nanosecond
	s := open(b, o)
	for i := range 10 {
		run(b, s, fmt.Sprintf("set v%d %d", i, i))
	}
	for b.Loop() {
		b.StopTimer()
		s.w.kill()
		<-s.w.exited
		b.StartTimer()
		if r := run(b, s, "print v9"); r.Stdout != "9\n" || !r.Rebuilt {
			b.Fatal(r.Stdout, r.Err)
		}
	}
}
