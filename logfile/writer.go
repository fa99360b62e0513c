package logfile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rlm-sandbox/rlm/redact"
)

const dayLayout = "2006-01-02"

// dailyWriter appends to dir/rlm-<UTC date>.log. The file is chosen by at, from the time the
// record is stamped with; Write then appends the formatted record to it.
type dailyWriter struct {
	seq       sync.Mutex // held by the handler from stamping a record to writing it
	mu        sync.Mutex // guards the fields below
	dir       string
	red       *redact.Redactor
	now       func() time.Time
	retention time.Duration
	day       string
	f         *os.File
	closed    bool
}

func fileName(day string) string { return "rlm-" + day + ".log" }

// at makes the file of t's UTC date the current one, deleting expired files when it changes.
func (w *dailyWriter) at(t time.Time) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("logfile: write to closed log in %s", w.dir)
	}
	day := t.UTC().Format(dayLayout)
	if day == w.day {
		return nil
	}
	if w.f != nil {
		_ = w.prune(t) // best effort; Open reports what it could not delete
	}
	path := filepath.Join(w.dir, fileName(day))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("logfile: open %w", err)
	}
	if w.f != nil {
		_ = w.f.Close()
	}
	w.f, w.day = f, day
	return nil
}

// Write redacts p (one formatted record) and appends it to the current file.
func (w *dailyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, fmt.Errorf("logfile: write to closed log in %s", w.dir)
	}
	if _, err := w.f.Write(w.red.Bytes(p)); err != nil {
		return 0, fmt.Errorf("logfile: write %s: %w", w.f.Name(), err)
	}
	return len(p), nil
}

// prune deletes the regular files named rlm-*.log that are older than the retention period:
// by the date in the name for rlm-YYYY-MM-DD.log, by modification time for any other.
func (w *dailyWriter) prune(now time.Time) error {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		return fmt.Errorf("logfile: retention: %w", err)
	}
	cutoff := now.UTC().Add(-w.retention)
	cutoffDay := cutoff.Format(dayLayout)
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "rlm-") || !strings.HasSuffix(name, ".log") {
			continue
		}
		day := strings.TrimSuffix(strings.TrimPrefix(name, "rlm-"), ".log")
		var expired bool
		if _, perr := time.Parse(dayLayout, day); perr == nil {
			expired = day < cutoffDay // the layout is fixed-width, so text order is date order
		} else if info, ierr := e.Info(); ierr == nil {
			expired = info.ModTime().Before(cutoff)
		}
		if expired {
			if err := os.Remove(filepath.Join(w.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (w *dailyWriter) path() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return filepath.Join(w.dir, fileName(w.day))
}

func (w *dailyWriter) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("logfile: close %w", err)
	}
	return nil
}

// redactHandler stamps a record with the injected clock in UTC, picks the day's file, and
// redacts the message and string attributes before the text handler formats the record.
type redactHandler struct {
	h slog.Handler
	r *redact.Redactor
	w *dailyWriter
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.h.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	h.w.seq.Lock()
	defer h.w.seq.Unlock()
	t := h.w.now().UTC()
	if err := h.w.at(t); err != nil {
		return err
	}
	out := slog.NewRecord(t, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &redactHandler{h: h.h.WithAttrs(red), r: h.r, w: h.w}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{h: h.h.WithGroup(h.r.String(name)), r: h.r, w: h.w}
}

// attr redacts the key and string values of a, groups included; other values are formatted
// by the text handler and caught by the line-level pass.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	a.Key = h.r.String(a.Key)
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		a.Value = slog.StringValue(h.r.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]slog.Attr, len(g))
		for i, e := range g {
			red[i] = h.attr(e)
		}
		a.Value = slog.GroupValue(red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			a.Value = slog.StringValue(h.r.String(err.Error()))
		} else {
			a.Value = v
		}
	default:
		a.Value = v
	}
	return a
}
