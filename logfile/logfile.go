package logfile

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/redact"
)

// Options configures Open. The zero value logs at Info and above, keeps 30 days, redacts with
// redact.New() and reads the real clock.
type Options struct {
	Level     slog.Leveler     // the minimum level; nil means slog.LevelInfo
	Redactor  *redact.Redactor // nil means redact.New()
	Retention time.Duration    // files older than this are deleted; 0 means limits.Retention
	Now       func() time.Time // nil means time.Now
	Disabled  bool             // discard everything and touch no file (--no-log, SFA_NO_LOG=1)
}

// Logger is a *slog.Logger writing to the daily files of one directory. It is safe for
// concurrent use. Close it when done.
type Logger struct {
	*slog.Logger
	w *dailyWriter // nil when disabled
}

// Open creates dir if needed, deletes the expired rlm-*.log files in it and returns a Logger
// that writes to dir/rlm-YYYY-MM-DD.log (UTC date). With opts.Disabled it does nothing and the
// Logger discards every record.
func Open(dir string, opts Options) (*Logger, error) {
	if opts.Disabled {
		return &Logger{Logger: slog.New(slog.DiscardHandler)}, nil
	}
	if opts.Redactor == nil {
		opts.Redactor = redact.New()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Retention <= 0 {
		opts.Retention = limits.Retention
	}
	if opts.Level == nil {
		opts.Level = slog.LevelInfo
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("logfile: create log directory: %w", err)
	}
	w := &dailyWriter{dir: dir, red: opts.Redactor, now: opts.Now, retention: opts.Retention}
	now := opts.Now()
	pruneErr := w.prune(now)
	if err := w.at(now); err != nil {
		return nil, err
	}
	text := slog.NewTextHandler(w, &slog.HandlerOptions{Level: opts.Level})
	l := &Logger{Logger: slog.New(&redactHandler{h: text, r: opts.Redactor, w: w}), w: w}
	for _, err := range unwrapAll(pruneErr) {
		l.Warn("log retention: could not delete an expired log file", "err", err)
	}
	return l, nil
}

// Path returns the file the next record goes to (it changes at midnight UTC), or "" when the
// Logger is disabled.
func (l *Logger) Path() string {
	if l.w == nil {
		return ""
	}
	return l.w.path()
}

// Close closes the current file. Records logged after Close are dropped.
func (l *Logger) Close() error {
	if l.w == nil {
		return nil
	}
	return l.w.close()
}

// unwrapAll lists the errors joined in err.
func unwrapAll(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
