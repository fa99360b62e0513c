package traceview

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/rlm-sandbox/rlm/tools"
	"github.com/rlm-sandbox/rlm/trace"
)

// Options describe what goes with a trace.
type Options struct {
	Name    string         // shown as the trace's name, e.g. its file name
	Outcome *trace.Outcome // how the run ended (kept beside the trace); nil when unknown
}

// Render writes one self-contained HTML page that shows the trace read from r: the question,
// the answer, usage over the iterations, and each iteration with its prompt, response, code
// blocks (output, errors, variables, sub-calls) and timings. The page loads nothing: see the
// package documentation for what it allows and how trace content is kept inert.
func Render(w io.Writer, r io.Reader, o Options) error {
	m, err := read(r, o.Name, o.Outcome)
	if err != nil {
		return err
	}
	return m.write(w)
}

// RenderFile renders the trace at path with the outcome kept beside it, if any.
func RenderFile(w io.Writer, path string) error {
	f, err := tools.OpenRegular(path) // a path the user names: never wait on a fifo
	if err != nil {
		return fmt.Errorf("traceview: %w", err)
	}
	defer f.Close()
	opts := Options{Name: filepath.Base(path)}
	o, ok, err := trace.ReadOutcome(path)
	if err != nil {
		return err
	}
	if ok {
		opts.Outcome = &o
	}
	return Render(w, f, opts)
}
