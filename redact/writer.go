package redact

import (
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
)

// Stream limits.
const (
	maxPend = 64 << 10 // a partial line longer than this is cut maxLook bytes before its end
	hardCap = 1 << 20  // pending bytes past which a run of overlapping secrets is split
	ctxKeep = 64       // bytes of already-written text kept as left context
)

// ErrClosed is returned by Write and Flush after Close.
var ErrClosed = errors.New("redact: write to closed Writer")

// Writer redacts a stream on its way to an underlying io.Writer. Text is held back until
// it can no longer be part of a secret: the current line, an unterminated private-key block
// (up to its END line or 64 KiB), a tail that may begin a known value, and at most the last
// 16 KiB of a line longer than 64 KiB. The bytes written to the underlying writer are then
// exactly Redactor.String of the whole stream (the only exception: a single run of
// overlapping secrets longer than 1 MiB is replaced by two or more markers).
//
// Close must be called at the end of the stream to write what is held back; it does not
// close the underlying writer. A Writer is safe for concurrent use; errors from the
// underlying writer are sticky.
type Writer struct {
	r     *Redactor
	w     io.Writer
	mu    sync.Mutex
	buf   []byte // buf[:done] written already (context), buf[done:] pending
	done  int
	carry []span // decided merged spans at or after done
	out   []byte
	err   error
}

// Writer returns a Writer that writes the redacted stream to w.
func (r *Redactor) Writer(w io.Writer) *Writer {
	if r == nil {
		r = &Redactor{}
	}
	return &Writer{r: r, w: w}
}

const (
	modeWrite = iota
	modeFlush
	modeClose
)

// Write buffers p and writes out what is decided. It returns len(p) unless the Writer is
// closed or a previous write to the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	if slices.Contains(p, '\n') || len(w.buf)-w.done > maxPend {
		return len(p), w.process(modeWrite)
	}
	return len(p), nil
}

// Flush writes out everything pending, as if the stream ended here, except an unterminated
// private-key block and a possible prefix of a known value, which stay buffered. A secret
// cut in two by a Flush (one half written before it, one after) may not be recognised, so
// flush at record boundaries. If the underlying writer has a Flush() error method, it is
// called too.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.process(modeFlush); err != nil {
		return err
	}
	if f, ok := w.w.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// Close writes out everything still held back, treating it as the end of the stream. Later
// writes fail with ErrClosed. It does not close the underlying writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		if w.err == ErrClosed {
			return nil
		}
		return w.err
	}
	err := w.process(modeClose)
	w.buf, w.carry, w.out, w.done = nil, nil, nil, 0
	if err == nil {
		w.err = ErrClosed
	}
	return err
}

// process writes out the decided prefix of the pending text.
func (w *Writer) process(mode int) error {
	s := string(w.buf)
	n := len(s)
	lim := n
	if mode == modeWrite {
		lim = w.done
		if k := strings.LastIndexByte(s[w.done:], '\n'); k >= 0 {
			lim = w.done + k + 1
		}
		if n-w.done > maxPend {
			lim = max(lim, n-maxLook)
		}
	}
	if lim <= w.done && mode != modeClose {
		return nil
	}
	sp, hold := w.r.findSpans(s, w.done, lim, mode == modeClose, nil)
	if hold < lim {
		lim = hold
		sp = slices.DeleteFunc(sp, func(x span) bool { return x.pos >= lim })
	}
	iv := merge(append(sp, w.carry...))
	// A merged secret running past lim may still grow with undecided ones: stop before it.
	c := lim
	for _, x := range iv {
		if x.ss < c && x.se > c {
			c = x.ss
			break
		}
	}
	if c <= w.done && n-w.done > hardCap {
		c = lim
	}
	return w.emit(s, c, iv)
}

// emit writes s[done:c] with the spans of iv replaced, keeps the spans past c, and drops
// written text beyond the left context.
func (w *Writer) emit(s string, c int, iv []span) error {
	var now, later []span
	for _, x := range iv {
		if x.ss < c {
			now = append(now, span{x.pos, x.ss, min(x.se, c), x.pat})
		}
		if x.se > c {
			later = append(later, span{x.pos, max(x.ss, c), x.se, x.pat})
		}
	}
	w.carry = later
	if c > w.done {
		w.out = appendRedacted(w.out[:0], s, w.done, c, now)
		w.done = c
		if _, err := w.w.Write(w.out); err != nil {
			w.err = err
			return err
		}
	}
	if cut := w.done - ctxKeep; cut > 0 {
		w.buf = append(w.buf[:0], w.buf[cut:]...)
		w.done -= cut
		for k := range w.carry {
			w.carry[k].pos -= cut
			w.carry[k].ss -= cut
			w.carry[k].se -= cut
		}
	}
	return nil
}
