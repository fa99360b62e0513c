package taskset

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// Seed is the seed of the inputs the tasks are written against.
const Seed = 20261124

// Data is the generated inputs: the files in Dir and the records they were written from. The
// reference answers are computed from the records, never by parsing the files.
type Data struct {
	Dir       string
	Log       []logLine   // server.log, in file order
	Orders    []order     // orders.csv
	Customers []customer  // customers.csv
	Events    []event     // events.jsonl, in file order, duplicate deliveries included
	Crash     []crashLine // crash.log, in file order
	Book      string      // book.txt
	Metrics   []sample    // metrics.csv
}

// Inputs names the generated files.
var Inputs = []string{"server.log", "orders.csv", "customers.csv", "events.jsonl", "crash.log", "book.txt", "metrics.csv"}

// Generate writes every input for seed into dir and returns them with their records. The same
// seed gives the same bytes.
func Generate(dir string, seed uint64) (*Data, error) {
	d := &Data{Dir: dir}
	gens := []struct {
		name  string
		write func(*rand.Rand, *bufio.Writer)
	}{
		{"server.log", d.genLog},
		{"customers.csv", d.genCustomers}, // before orders: orders draw from the customers
		{"orders.csv", d.genOrders},
		{"events.jsonl", d.genEvents},
		{"crash.log", d.genCrash},
		{"book.txt", d.genBook},
		{"metrics.csv", d.genMetrics},
	}
	for i, g := range gens {
		r := rand.New(rand.NewPCG(seed, uint64(i)+1))
		if err := writeFile(filepath.Join(dir, g.name), func(w *bufio.Writer) { g.write(r, w) }); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func writeFile(path string, write func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	write(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("taskset: writing %s: %w", path, err)
	}
	return f.Close()
}

// pick returns an element of xs, the first ones more often: index ⌊n·u^skew⌋.
func pick[T any](r *rand.Rand, xs []T, skew float64) T {
	u := r.Float64()
	p := u
	for i := 1.0; i < skew; i++ {
		p *= u
	}
	return xs[int(p*float64(len(xs)))]
}

// weighted returns an index drawn with the given integer weights.
func weighted(r *rand.Rand, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := r.IntN(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// ms is a duration of n milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
