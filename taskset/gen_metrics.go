package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"time"
)

// sample is one row of metrics.csv.
type sample struct {
	T    time.Time
	Host string
	CPU  int // tenths of a percent
	Mem  int
	IO   int
}

// genMetrics writes metrics.csv: a sample every 10 s from 20 hosts over 8 hours, with busy
// spells during which a host's CPU stays high.
func (d *Data) genMetrics(r *rand.Rand, w *bufio.Writer) {
	w.WriteString("timestamp,host,cpu_pct,mem_mb,disk_io\n")
	var hosts []string
	for _, p := range []struct {
		kind string
		n    int
	}{{"web", 12}, {"db", 4}, {"cache", 4}} {
		for i := range p.n {
			hosts = append(hosts, fmt.Sprintf("%s-%02d", p.kind, i+1))
		}
	}
	base := make([]int, len(hosts))
	busy := make([]int, len(hosts))
	mem := make([]int, len(hosts))
	for i := range hosts {
		base[i] = 150 + r.IntN(400)
		mem[i] = 1024 + r.IntN(6000)
	}
	start := time.Date(2026, 3, 14, 8, 0, 0, 0, time.UTC)
	for step := range 8 * 360 {
		t := start.Add(time.Duration(step) * 10 * time.Second)
		for i, h := range hosts {
			if busy[i] == 0 && r.IntN(400) == 0 {
				busy[i] = 5 + r.IntN(60)
			}
			cpu := base[i] + r.IntN(200) - 100
			if busy[i] > 0 {
				busy[i]--
				cpu = 850 + r.IntN(150)
			}
			cpu = min(max(cpu, 0), 1000)
			mem[i] = min(max(mem[i]+r.IntN(81)-40, 512), 16000)
			s := sample{T: t, Host: h, CPU: cpu, Mem: mem[i], IO: r.IntN(900)}
			fmt.Fprintf(w, "%s,%s,%d.%d,%d,%d\n", t.Format(time.RFC3339), h, cpu/10, cpu%10, s.Mem, s.IO)
			d.Metrics = append(d.Metrics, s)
		}
	}
}
