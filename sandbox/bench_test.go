//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkWorkerStart measures Command + exec + Apply until the worker's first line.
// Each iteration starts one worker with every layer and one with none, alternating, so
// load from elsewhere on the machine hits both alike; it reports both medians and the
// idle worker's RSS.
func BenchmarkWorkerStart(b *testing.B) {
	tr := newTree(&testing.T{})
	cfgs := []Config{tr.config(Config{}), tr.config(noLayers())}
	ds := make([][]time.Duration, len(cfgs))
	rss := make([]string, len(cfgs))
	for b.Loop() {
		for i, cfg := range cfgs {
			t0 := time.Now()
			cmd, _, _ := startWorker(&testing.T{}, cfg, spec{Mode: "wait"}, "ready")
			ds[i] = append(ds[i], time.Since(t0))
			if rss[i] == "" {
				rss[i] = vmRSS(cmd.Process.Pid)
			}
			KillGroup(cmd)
			cmd.Wait()
		}
	}
	for i, name := range []string{"all", "none"} {
		slices.Sort(ds[i])
		b.ReportMetric(float64(ds[i][len(ds[i])/2].Microseconds())/1000, name+"-median-ms")
	}
	b.Logf("%d starts each; idle worker RSS: all layers %s, none %s", len(ds[0]), rss[0], rss[1])
}

func vmRSS(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "VmRSS:") {
			return strings.Join(strings.Fields(line)[1:], " ")
		}
	}
	return ""
}
