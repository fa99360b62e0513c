package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/command"
	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// maxSourceBytes bounds what is read of a source.json: a path and an argv.
const maxSourceBytes = 64 << 10

// run runs the converter over the file at abs and returns its text, refusing output that is not
// text.
func run(ctx context.Context, label, abs string, s convert.Spec) (string, error) {
	argv, err := command.Expand(s.Exec, map[string]string{convert.Param: abs})
	if err != nil {
		return "", fault.New(fault.Schema, "%s: the converter %s cannot take this file: %v", label, s.Exec[0], err)
	}
	timeout := time.Duration(limits.Or(int64(s.Timeout), int64(limits.ConvertTimeout)))
	max := limits.Or(s.MaxBytes, limits.ConvertBytes)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	text, err := command.Run(cctx, command.Spec{Argv: s.Exec, MaxBytes: int(max)}, argv)
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return "", fault.New(fault.Timeout, "%s: the converter %s did not finish within %s and was stopped; raise timeout in its [convert] entry, or convert the file yourself and pass the text", label, s.Exec[0], timeout)
	case errors.Is(err, command.ErrTooLong):
		return "", fault.New(fault.Limit, "%s: the converter %s printed more than %d bytes and was stopped; raise max_output in its [convert] entry (at most %d), or pass a smaller file", label, s.Exec[0], max, int64(limits.ConvertMaxBytes))
	case err != nil:
		return "", fault.New(fault.Schema, "%s: the converter failed: %v", label, err)
	}
	head := text[:min(len(text), 8<<10)]
	if i := strings.IndexByte(head, 0); i >= 0 {
		return "", fault.New(fault.Schema, "%s: the converter %s printed binary data (a NUL byte at offset %d), not text; make it print text on stdout", label, s.Exec[0], i)
	}
	return text, nil
}

// lookup finds the conversion of src in the cache: its source.json must describe src (by
// identity: the same file under another name or link is the same input), and its text be a
// regular file of the size recorded.
func (c Cache) lookup(src source) (source, bool) {
	if c.Dir == "" {
		return source{}, false
	}
	dir := filepath.Join(c.Dir, src.name())
	got, err := readSource(dir)
	if err != nil || !got.same(src) {
		return source{}, false
	}
	st, err := os.Lstat(filepath.Join(dir, textName))
	if err != nil || !st.Mode().IsRegular() || st.Size() != got.TextBytes {
		return source{}, false
	}
	return got, true
}

// readSource reads the source.json of a conversion's directory.
func readSource(dir string) (source, error) {
	f, err := tools.OpenRegular(filepath.Join(dir, sourceName))
	if err != nil {
		return source{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil {
		return source{}, err
	}
	if len(b) > maxSourceBytes {
		return source{}, errors.New("too long")
	}
	var s source
	return s, json.Unmarshal(b, &s)
}

// keep writes a conversion into a new temporary directory of the cache, then renames it into
// place when the original is unchanged since it was identified and settled before start; else
// the text stays in the temporary directory for this run only (Text.Close removes it).
func (c Cache) keep(t Text, src source, text string, start time.Time) (Text, error) {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return Text{}, c.cannot(err)
	}
	tmp, err := os.MkdirTemp(c.Dir, tempPrefix)
	if err != nil {
		return Text{}, c.cannot(err)
	}
	if err := writeFiles(tmp, src, text); err != nil {
		os.RemoveAll(tmp)
		return Text{}, c.cannot(err)
	}
	t.Path, t.temp = filepath.Join(tmp, textName), tmp
	now, err := identify(src.Path)
	now.Exec, now.TextBytes = src.Exec, src.TextBytes
	settled := start.Add(-limits.Or(c.Settle, limits.IndexSettle)).UnixNano()
	if err != nil || !now.same(src) || src.Mtime > settled || src.Ctime > settled {
		return t, nil
	}
	final := filepath.Join(c.Dir, src.name())
	if err := os.Rename(tmp, final); err != nil {
		if _, ok := c.lookup(src); !ok { // another run kept it first: use theirs
			return t, nil
		}
		os.RemoveAll(tmp)
	}
	c.dropOlder(src)
	t.Path, t.temp, t.Kept = filepath.Join(final, textName), "", true
	return t, nil
}

// writeFiles writes a conversion's text and source.json into dir, 0600.
func writeFiles(dir string, src source, text string) error {
	if err := os.WriteFile(filepath.Join(dir, textName), []byte(text), 0o600); err != nil {
		return err
	}
	b, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, sourceName), b, 0o600)
}

// dropOlder removes the other conversions of the same file (by device and inode): made of an
// older version of it, or by another converter.
func (c Cache) dropOlder(src source) {
	name := src.name()
	prefix := name[:len(name)-16]
	entries, _ := os.ReadDir(c.Dir)
	for _, e := range entries {
		if e.Name() != name && strings.HasPrefix(e.Name(), prefix) {
			os.RemoveAll(filepath.Join(c.Dir, e.Name()))
		}
	}
}

func (c Cache) cannot(err error) error {
	return fmt.Errorf("the converted-text cache %s cannot be written (%v): make it writable, free some space, or set RLM_HOME elsewhere", c.Dir, err)
}

// Stale lists the conversions in a cache directory that no longer describe their original (it
// is gone or changed, or source.json cannot be read) and temporary directories over an hour old
// (left by a run that died), for rlm clean.
func Stale(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), tempPrefix) {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				stale = append(stale, p)
			}
			continue
		}
		if !current(p) {
			stale = append(stale, p)
		}
	}
	return stale, nil
}

// current reports whether the conversion in dir describes its original as it is now.
func current(dir string) bool {
	got, err := readSource(dir)
	if err != nil || filepath.Base(dir) != got.name() {
		return false
	}
	now, err := identify(got.Path)
	if err != nil {
		return false
	}
	now.Exec = got.Exec
	return now.same(got)
}
