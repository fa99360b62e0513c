// Package cache turns an input into text with its converter (package convert) and keeps that
// text in a cache keyed on the original file, so that the next run over the same file does not
// convert it again.
//
// The converter runs in the parent, as the user, through package command: its argv as
// configured with {path} replaced by the original file's absolute path (no shell), the reduced
// environment, stdin closed, its stdout read up to a cap and its process group killed at a
// timeout. Its output must be text (no NUL byte in its first 8 KiB).
//
// The cache is a directory (rlm uses RLM_HOME/index/text) with one directory per conversion,
// named by the original's device and inode and a digest of its size, modification and change
// times and the converter's argv: a changed file or a changed converter gives another name. Each
// holds the text (text.txt), which the run maps as its context, and what it was made from
// (source.json). A conversion is written into a temporary directory and renamed into place
// whole, so that a reader sees all of it or none; an original changed during the conversion, or
// less than Cache.Settle before it, is converted for this run only (a timestamp's granularity
// could hide a second change). Stale lists what no longer describes its original (rlm clean).
package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/tools"
)

// Text is an input converted to text.
type Text struct {
	Path     string        // the text file, to map as the context
	Original string        // the file converted, absolute
	Program  string        // the converter's program, as configured (exec[0])
	Cached   bool          // the text came from the cache: the converter did not run
	Took     time.Duration // the conversion's time (0 when Cached)
	Bytes    int64         // the text's size
	Kept     bool          // the text is in the cache for the next run
	temp     string        // a conversion not kept: Close removes it
}

// Close removes a conversion that was made for this run only.
func (t Text) Close() error {
	if t.temp == "" {
		return nil
	}
	return os.RemoveAll(t.temp)
}

// Cache keeps converted texts in Dir.
type Cache struct {
	Dir    string
	Settle time.Duration // an original changed more recently than this is not kept; 0 = limits.IndexSettle
}

// textName and sourceName are the files of one conversion's directory.
const (
	textName   = "text.txt"
	sourceName = "source.json"
	tempPrefix = ".tmp-"
)

// source is what a conversion was made from (source.json).
type source struct {
	Path      string   `json:"path"` // the original, absolute
	Dev       uint64   `json:"dev"`
	Ino       uint64   `json:"ino"`
	Size      int64    `json:"size"`
	Mtime     int64    `json:"mtime_ns"`
	Ctime     int64    `json:"ctime_ns"`
	Exec      []string `json:"exec"`
	TextBytes int64    `json:"text_bytes"`
}

// same reports whether s and o describe the same file, as it was, and the same converter.
func (s source) same(o source) bool {
	return s.Dev == o.Dev && s.Ino == o.Ino && s.Size == o.Size && s.Mtime == o.Mtime && s.Ctime == o.Ctime && slices.Equal(s.Exec, o.Exec)
}

// name is the directory of the conversion s describes.
func (s source) name() string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%d\x00%d\x00", s.Size, s.Mtime, s.Ctime)
	for _, w := range s.Exec {
		fmt.Fprintf(h, "%d:%s\x00", len(w), w)
	}
	return fmt.Sprintf("%016x-%016x-%s", s.Dev, s.Ino, hex.EncodeToString(h.Sum(nil))[:16])
}

// identify describes the regular file at path as it is now (opened without blocking: a FIFO
// planted under the name cannot stall rlm).
func identify(path string) (source, error) {
	f, err := tools.OpenRegular(path)
	if err != nil {
		return source{}, err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return source{}, err
	}
	return source{Path: path, Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}, nil
}

// Convert gives the text of the file at path: from the cache, when a conversion of the file as
// it is now by the same argv is there, else by running the converter. label names the input in
// messages ("--ctx contract.pdf").
func (c Cache) Convert(ctx context.Context, label, path string, s convert.Spec) (Text, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Text{}, err
	}
	src, err := identify(abs)
	if err != nil {
		return Text{}, fmt.Errorf("%s: %w", label, err)
	}
	src.Exec = s.Exec
	t := Text{Original: abs, Program: s.Exec[0]}
	if got, ok := c.lookup(src); ok {
		t.Path, t.Cached, t.Kept, t.Bytes = filepath.Join(c.Dir, src.name(), textName), true, true, got.TextBytes
		return t, nil
	}
	start := time.Now()
	text, err := run(ctx, label, abs, s)
	if err != nil {
		return Text{}, err
	}
	t.Took, t.Bytes = time.Since(start), int64(len(text))
	src.TextBytes = t.Bytes
	return c.keep(t, src, text, start)
}
