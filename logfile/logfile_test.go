package logfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable fake clock, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestRolloverAndLevels(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 22, 23, 59, 30, 0, time.UTC)}
	l, err := Open(dir, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	day1 := filepath.Join(dir, "rlm-2026-11-22.log")
	if l.Path() != day1 {
		t.Errorf("Path: got %q, want %q", l.Path(), day1)
	}
	l.Debug("hidden at the default level")
	l.Info("before midnight", "n", 1)
	l.Warn("careful")
	c.Set(time.Date(2026, 11, 23, 0, 0, 1, 0, time.UTC))
	l.Error("after midnight", "err", errors.New("boom"))
	day2 := filepath.Join(dir, "rlm-2026-11-23.log")
	if l.Path() != day2 {
		t.Errorf("Path after midnight: got %q, want %q", l.Path(), day2)
	}
	want1 := "time=2026-11-22T23:59:30.000Z level=INFO msg=\"before midnight\" n=1\n" +
		"time=2026-11-22T23:59:30.000Z level=WARN msg=careful\n"
	if got := read(t, day1); got != want1 {
		t.Errorf("%s:\n got %q\nwant %q", day1, got, want1)
	}
	want2 := "time=2026-11-23T00:00:01.000Z level=ERROR msg=\"after midnight\" err=boom\n"
	if got := read(t, day2); got != want2 {
		t.Errorf("%s:\n got %q\nwant %q", day2, got, want2)
	}

	// A second Logger on the same day appends, and honours a lower level.
	l2, err := Open(dir, Options{Now: c.Now, Level: slog.LevelDebug})
	if err != nil {
		t.Fatal(err)
	}
	l2.Debug("now visible")
	_ = l2.Close()
	if got := read(t, day2); !strings.HasPrefix(got, want2) || !strings.Contains(got, "level=DEBUG msg=\"now visible\"") {
		t.Errorf("second logger did not append its debug line:\n%s", got)
	}
}

func TestRetention(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 22, 6, 0, 0, 0, time.UTC)
	old := now.Add(-40 * 24 * time.Hour)
	files := map[string]time.Time{ // name → modification time
		"rlm-2026-10-01.log":  now, // expired by its date, whatever its mtime
		"rlm-2026-10-22.log":  now, // 31 days before: expired
		"rlm-2026-10-23.log":  now, // 30 days before: kept
		"rlm-2026-11-21.log":  old, // recent date, old mtime: kept (the date decides)
		"rlm-crash.log":       old, // no date: expired by mtime
		"rlm-fresh.log":       now, // no date, recent: kept
		"other.log":           old, // not rlm-*: kept
		"rlm-2026-01-01.txt":  old, // not *.log: kept
		"notes.md":            old, // kept
		"rlm-2026-01-01.log":  {},  // made a directory below: kept
		"rlm-2026-01-02.log":  old, // made a symlink below: kept
		"target":              old, // symlink target: kept
		"rlm-2026-11-22.log":  now, // today: kept and appended to
		"xrlm-2026-01-01.log": old, // prefix must be exact: kept
	}
	makeFiles(t, dir, files)
	c := &clock{t: now}
	l, err := Open(dir, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := []string{"notes.md", "other.log", "rlm-2026-01-01.log", "rlm-2026-01-01.txt",
		"rlm-2026-01-02.log", "rlm-2026-10-23.log", "rlm-2026-11-21.log", "rlm-2026-11-22.log",
		"rlm-fresh.log", "target", "xrlm-2026-01-01.log"}
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after Open:\n got %v\nwant %v", got, want)
	}
	// The next day's first record rolls over and expires rlm-2026-10-23.log.
	c.Set(now.Add(24 * time.Hour))
	l.Info("next day")
	want = slices.DeleteFunc(want, func(s string) bool { return s == "rlm-2026-10-23.log" })
	want = append(want, "rlm-2026-11-23.log")
	slices.Sort(want)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("after rollover:\n got %v\nwant %v", got, want)
	}
}

// makeFiles creates the files named in files with their modification times; two names become
// a directory and a symbolic link instead.
func makeFiles(t *testing.T, dir string, files map[string]time.Time) {
	t.Helper()
	for name, mt := range files {
		p := filepath.Join(dir, name)
		switch name {
		case "rlm-2026-01-01.log":
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		case "rlm-2026-01-02.log":
			if err := os.Symlink("target", p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

type config struct{ Token string }

func TestRedaction(t *testing.T) {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	key := []byte("sk-proj-")
	for range 40 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alnum))))
		key = append(key, alnum[n.Int64()])
	}
	k := string(key)
	dir := t.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.With("base", k).WithGroup(k).Info("msg "+k, "s", k, k, 1,
		"err", fmt.Errorf("auth with %s failed", k), "any", config{Token: k},
		slog.Group("grp", "inner", k), "multi", "line one\nBearer "+k+"\n")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := read(t, l.Path())
	if strings.Contains(got, k[8:]) {
		t.Fatalf("the key reached the log file:\n%s", got)
	}
	if n := strings.Count(got, "[REDACTED:openai]"); n < 9 {
		t.Errorf("%d redaction markers, want one per place the key was (9):\n%s", n, got)
	}
}

func TestDisabled(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	l, err := Open(dir, Options{Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Error("dropped")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Path() != "" {
		t.Errorf("Path of a disabled logger: %q", l.Path())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a disabled logger created %s: %v", dir, err)
	}
}

func TestConcurrentAcrossMidnight(t *testing.T) {
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC)}
	l, err := Open(dir, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if w == 0 && i == each/2 {
					c.Set(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
				}
				l.Info("line", "w", w, "i", i)
			}
		})
	}
	wg.Wait()
	_ = l.Close()
	total := 0
	for _, day := range []string{"2026-11-22", "2026-11-23"} {
		p := filepath.Join(dir, "rlm-"+day+".log")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if !strings.HasPrefix(line, "time="+day) {
				t.Errorf("%s holds a line of another day or a torn line: %q", p, line)
			}
			total++
		}
	}
	if total != workers*each {
		t.Errorf("got %d lines across both days, want %d", total, workers*each)
	}
}

func TestWriteAfterClose(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = l.Close()
	if _, err := l.w.Write([]byte("x\n")); err == nil {
		t.Error("write after Close succeeded")
	}
}
