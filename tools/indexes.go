package tools

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
)

// Indexes gives the index of a context file: from memory, from the cache
// directory, or built by one scan of the file (and then cached). Its methods
// are safe for concurrent use; a nil *Indexes builds every index anew and
// caches nothing.
//
// A cached index is used only if it describes the file as it is now: the
// device, inode, size, modification and change times it was built for must
// all match the file, its checksum must hold, and a sample of the file's
// content (its first and last 4 KiB) must match too. Anything else (stale,
// corrupt, truncated, another format) is rebuilt and replaced. A file changed
// less than a few seconds before it is indexed is not cached, as a
// timestamp's granularity could hide a second change within the same tick.
type Indexes struct {
	dir    string
	warn   func(error)
	settle time.Duration // files changed more recently than this are not cached on disk

	builds atomic.Int64 // indexes built by scanning a file (for tests)

	mu     sync.Mutex
	mem    map[fileKey]*indexed
	order  []fileKey // insertion order, for eviction
	warned bool
}

// maxMemIndexes bounds the indexes an Indexes keeps in memory.
const maxMemIndexes = 16

// NewIndexes keeps indexes in memory and, when dir is not "", in files under
// dir (created 0700 if missing). warn, if not nil, is told once when dir
// cannot be written (read-only, full): the indexes are then kept in memory
// only, and the next process builds them again.
func NewIndexes(dir string, warn func(error)) *Indexes {
	return &Indexes{dir: dir, warn: warn, settle: limits.IndexSettle, mem: map[fileKey]*indexed{}}
}

// Open maps the files read-only, as Open does, with their indexes from x.
func (x *Indexes) Open(paths []string, lim Limits) (*Store, error) {
	return open(len(paths), lim, func(s *Store, i int) (*Doc, error) {
		abs, err := filepath.Abs(paths[i])
		if err != nil {
			return nil, err
		}
		f, err := OpenRegular(abs)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return x.doc(s, "ctx"+strconv.Itoa(i), abs, f)
	})
}

// Encoded returns the index of the open file f in the form OpenIndexed reads.
func (x *Indexes) Encoded(f *os.File) ([]byte, error) {
	path, err := filepath.Abs(f.Name())
	if err != nil {
		return nil, err
	}
	key, data, err := mapRegular(f, path)
	if err != nil {
		return nil, err
	}
	defer unmapFile(data)
	ix, err := x.get(key, path, data)
	if err != nil {
		return nil, err
	}
	return ix.encode(), nil
}

// doc maps f and gives it its index.
func (x *Indexes) doc(s *Store, name, path string, f *os.File) (*Doc, error) {
	key, data, err := mapRegular(f, path)
	if err != nil {
		return nil, err
	}
	ix, err := x.get(key, path, data)
	if err != nil {
		unmapFile(data)
		return nil, err
	}
	return &Doc{name: name, path: path, store: s, data: data, idx: ix.x}, nil
}

// statRegular identifies f, which must be a regular file.
func statRegular(f *os.File, path string) (fileKey, error) {
	st, err := f.Stat()
	if err != nil {
		return fileKey{}, err
	}
	if !st.Mode().IsRegular() {
		return fileKey{}, invalidf("context %s is not a regular file (%s)", path, st.Mode().Type())
	}
	return keyOf(f)
}

// mapRegular maps the regular file f read-only: its key and its data.
func mapRegular(f *os.File, path string) (fileKey, []byte, error) {
	key, err := statRegular(f, path)
	if err != nil {
		return fileKey{}, nil, err
	}
	data, err := mapFile(f, key.size)
	if err != nil {
		return fileKey{}, nil, fmt.Errorf("context %s: %w", path, err)
	}
	return key, data, nil
}

// get returns the index of the file with this key and mapped data: from
// memory, from the cache directory, or built. An index in memory or on disk
// is used only if it was made for this key and the same content sample.
func (x *Indexes) get(key fileKey, path string, data []byte) (*indexed, error) {
	var sample uint32
	if err := guard(func() { sample = sampleOf(data) }); err != nil {
		return nil, err
	}
	if ix := x.remembered(key); ix != nil && ix.sample == sample {
		return ix, nil
	}
	if ix := x.load(key, sample); ix != nil {
		x.remember(ix)
		return ix, nil
	}
	start := time.Now()
	xi, err := buildIndex(data, runtime.GOMAXPROCS(0), true)
	if err != nil {
		return nil, err
	}
	// A change during the build moves the change time past key's, so an
	// index stored under key is never used for the changed file.
	ix := &indexed{key: key, sample: sample, path: path, x: xi}
	if x != nil {
		x.builds.Add(1)
	}
	x.remember(ix)
	x.store(ix, start)
	return ix, nil
}

func (x *Indexes) remembered(key fileKey) *indexed {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.mem[key]
}

func (x *Indexes) remember(ix *indexed) {
	if x == nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.mem[ix.key]; !ok {
		if len(x.order) == maxMemIndexes {
			delete(x.mem, x.order[0])
			x.order = x.order[1:]
		}
		x.order = append(x.order, ix.key)
	}
	x.mem[ix.key] = ix
}

// cachePath is where the index of the file with this key is kept: one file
// per device and inode, so a changed file's new index replaces the old one.
func (x *Indexes) cachePath(key fileKey) string { return filepath.Join(x.dir, cacheName(key)) }

func cacheName(key fileKey) string { return fmt.Sprintf("%016x-%016x.idx", key.dev, key.ino) }

// load reads the cached index of the file with this key and content sample,
// if there is one; anything else reads as no index.
func (x *Indexes) load(key fileKey, sample uint32) *indexed {
	if x == nil || x.dir == "" || !diskCache {
		return nil
	}
	b, err := readIndexFile(x.cachePath(key), encodedLen(key.size, maxIndexPath))
	if err != nil {
		return nil
	}
	ix, err := decode(b)
	if err != nil || ix.key != key || ix.sample != sample {
		return nil
	}
	return ix
}

// readIndexFile reads the file at path if it holds at most max bytes.
func readIndexFile(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, max)
}

// readBounded reads f from its start, if it holds at most max bytes.
func readBounded(f *os.File, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > max {
		return nil, malformed("%d bytes, more than the %d an index of this file takes", st.Size(), max)
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// store writes ix to the cache directory, through a temporary file renamed
// into place, so that a reader sees a whole index or none. A file changed
// since the build started, or too recently for its timestamps to tell
// another change apart, is not stored. A failure to write is reported once.
func (x *Indexes) store(ix *indexed, started time.Time) {
	if x == nil || x.dir == "" || !diskCache {
		return
	}
	settled := started.Add(-x.settle).UnixNano()
	if ix.key.mtime > settled || ix.key.ctime > settled {
		return
	}
	if err := x.write(ix); err != nil {
		x.mu.Lock()
		first := !x.warned
		x.warned = true
		x.mu.Unlock()
		if first && x.warn != nil {
			x.warn(fmt.Errorf("the index cache %s cannot be written (%v); indexes are kept in memory, so the next run reads its inputs in full again: make the directory writable, free some space, or set RLM_HOME elsewhere", x.dir, err))
		}
	}
}

func (x *Indexes) write(ix *indexed) error {
	if err := os.MkdirAll(x.dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(x.dir, ".tmp-*.idx")
	if err != nil {
		return err
	}
	_, err = f.Write(ix.encode())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), x.cachePath(ix.key))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// StaleIndexes lists the files in an index cache directory that no longer
// describe a file: the file is gone or changed, the index is corrupt or of
// another format, or it is a temporary file over an hour old (left by a
// process that died while writing it).
func StaleIndexes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var stale []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Hour {
				stale = append(stale, p)
			}
			continue
		}
		if strings.HasSuffix(e.Name(), ".idx") && !current(p) {
			stale = append(stale, p)
		}
	}
	return stale, nil
}

// current reports whether the index file at p describes its file as it is now.
func current(p string) bool {
	f, err := OpenRegular(p)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, headerLen)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return false
	}
	size := int64(binary.LittleEndian.Uint64(hdr[16:]))
	if size < 0 || size > maxCachedSize {
		return false
	}
	b, err := readBounded(f, encodedLen(size, maxIndexPath))
	if err != nil {
		return false
	}
	ix, err := decode(b)
	if err != nil || ix.path == "" || filepath.Base(p) != cacheName(ix.key) {
		return false
	}
	src, err := OpenRegular(ix.path)
	if err != nil {
		return false
	}
	defer src.Close()
	key, err := keyOf(src)
	return err == nil && key == ix.key
}

// maxCachedSize bounds the file size an index file may claim (1 PiB), so that
// a corrupt header cannot make StaleIndexes read an arbitrary amount.
const maxCachedSize = 1 << 50

// indexedDoc maps f with the index read from idx (see OpenIndexed).
func indexedDoc(s *Store, name string, f, idx *os.File) (*Doc, error) {
	path := f.Name()
	key, err := statRegular(f, path)
	if err != nil {
		return nil, err
	}
	b, err := readBounded(idx, encodedLen(key.size, maxIndexPath))
	if err != nil {
		return nil, &toolError{kind: ErrInvalid, msg: fmt.Sprintf("the index of context %s cannot be read: %v", path, err)}
	}
	ix, err := decode(b)
	if err != nil {
		return nil, &toolError{kind: ErrInvalid, msg: fmt.Sprintf("the index of context %s is refused: %v", path, err)}
	}
	if ix.key.dev != key.dev || ix.key.ino != key.ino || ix.key.size > key.size {
		return nil, &toolError{kind: ErrChanged, msg: fmt.Sprintf("the index of context %s describes another file (or the file shrank): %d bytes of inode %d, not %d bytes of inode %d", path, ix.key.size, ix.key.ino, key.size, key.ino)}
	}
	data, err := mapFile(f, ix.key.size)
	if err != nil {
		return nil, fmt.Errorf("context %s: %w", path, err)
	}
	var sample uint32
	if err := guard(func() { sample = sampleOf(data) }); err != nil || sample != ix.sample {
		unmapFile(data)
		return nil, &toolError{kind: ErrChanged, msg: fmt.Sprintf("context %s changed since it was indexed (its first or last 4 KiB differ); start again", path)}
	}
	return &Doc{name: name, path: path, store: s, data: data, idx: ix.x}, nil
}
