package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// testIndexes is an Indexes over dir that caches files however recently they changed, and
// records its warnings.
func testIndexes(dir string) (*Indexes, *[]error) {
	var mu sync.Mutex
	var warns []error
	x := NewIndexes(dir, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		warns = append(warns, err)
	})
	x.settle = 0
	return x, &warns
}

func writeCtx(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkDoc compares what a Doc reports with the reference decoding of content.
func checkDoc(t *testing.T, d *Doc, content []byte) {
	t.Helper()
	ref := chars(content)
	if d.Length() != int64(len(ref)) || d.Lines() != int64(bytes.Count(content, nl))+1 || d.Size() != int64(len(content)) {
		t.Fatalf("Length, Lines, Size = %d, %d, %d; want %d, %d, %d", d.Length(), d.Lines(), d.Size(),
			len(ref), bytes.Count(content, nl)+1, len(content))
	}
	for _, off := range []int64{0, int64(len(ref)) / 2, max(int64(len(ref))-100, 0)} {
		got, err := d.Peek(off, 100)
		if want := strings.Join(ref[off:min(off+100, int64(len(ref)))], ""); err != nil || got.Text != want {
			t.Fatalf("Peek(%d, 100) = %q, %v; want %q", off, got.Text, err, want)
		}
	}
}

// openWith opens path with x and checks it against content.
func openWith(t *testing.T, x *Indexes, path string, content []byte) *Doc {
	t.Helper()
	s, err := x.Open([]string{path}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	checkDoc(t, s.Docs()[0], content)
	return s.Docs()[0]
}

// cached decodes the one index file in dir.
func cached(t *testing.T, dir string) (string, *indexed) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	if len(m) != 1 {
		t.Fatalf("index files in %s: %v, want one", dir, m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	ix, err := decode(b)
	if err != nil {
		t.Fatalf("the cached index does not decode: %v", err)
	}
	return m[0], ix
}

// reseal recomputes the checksum of an encoding that a test changed.
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

func encodingOf(t testing.TB, content []byte) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ctx.txt")
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := (*Indexes)(nil).Encoded(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestIndexRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	straddle := append(bytes.Repeat([]byte("a"), blockSize-1), "世界\n"...)
	for name, content := range map[string][]byte{
		"empty": nil, "one byte": []byte("x"), "one block": bytes.Repeat([]byte("ab\n"), blockSize/3+1)[:blockSize],
		"straddling character": straddle, "random": randomDoc(r, 5*blockSize+321),
		"invalid bytes at a border": append(bytes.Repeat([]byte("z"), blockSize-2), 0xe2, 0x82, 0xff, 0x80, 0x80, 'q'),
	} {
		t.Run(name, func(t *testing.T) {
			p := writeCtx(t, t.TempDir(), "ctx.txt", content)
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			key, data, err := mapRegular(f, p)
			if err != nil {
				t.Fatal(err)
			}
			defer unmapFile(data)
			built, err := (*Indexes)(nil).get(key, p, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decode(built.encode())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, built) {
				t.Fatalf("decode(encode(ix)) differs from ix:\n got %+v\nwant %+v", got.x, built.x)
			}
			if n := len(built.encode()); int64(n) != encodedLen(int64(len(content)), len(p)) {
				t.Fatalf("encoding is %d bytes, encodedLen says %d", n, encodedLen(int64(len(content)), len(p)))
			}
		})
	}
}

// TestIndexDecodeRefuses: every field decode relies on is checked. Each case changes a valid
// encoding of a four-block file (and fixes its checksum, except where the checksum is the test).
func TestIndexDecodeRefuses(t *testing.T) {
	content := append(bytes.Repeat([]byte("héllo wörld\n"), 3*blockSize/13), "tail"...)
	good := encodingOf(t, content)
	pathLen := int(binary.LittleEndian.Uint32(good[60:]))
	rec := func(b []byte, k int) []byte { return b[headerLen+pathLen+k*blockLen:] }
	le := binary.LittleEndian
	for _, c := range []struct {
		name, want string
		edit       func(b []byte) []byte
	}{
		{"short", "shorter than a header", func(b []byte) []byte { return b[:40] }},
		{"magic", "header", func(b []byte) []byte { b[0] = 'R'; return reseal(b) }},
		{"version", "version 2", func(b []byte) []byte { le.PutUint32(b[8:], 2); return reseal(b) }},
		{"block size", "65536-byte blocks", func(b []byte) []byte { le.PutUint32(b[12:], 65536); return reseal(b) }},
		{"checksum", "checksum", func(b []byte) []byte { rec(b, 1)[3] ^= 1; return b }},
		{"truncated", "checksum", func(b []byte) []byte { return b[:len(b)-7] }},
		{"one byte more", "bytes, want", func(b []byte) []byte { return reseal(append(b, 0)) }},
		{"negative size", "negative size", func(b []byte) []byte { le.PutUint64(b[16:], 1<<63); return reseal(b) }},
		{"size and blocks disagree", "blocks for", func(b []byte) []byte { le.PutUint64(b[16:], 10*blockSize); return reseal(b) }},
		{"block count", "blocks for", func(b []byte) []byte { le.PutUint64(b[64:], 5); return reseal(b) }},
		{"path length", "path of", func(b []byte) []byte { le.PutUint32(b[60:], 5000); return reseal(b) }},
		{"start offset", "past its border", func(b []byte) []byte { rec(b, 2)[0] = 4; return reseal(b) }},
		{"first block offset", "past its border", func(b []byte) []byte { rec(b, 0)[0] = 1; return reseal(b) }},
		{"ascii flag", "ascii flag", func(b []byte) []byte { rec(b, 1)[1] = 2; return reseal(b) }},
		{"too many characters", "characters in", func(b []byte) []byte { le.PutUint32(rec(b, 1)[2:], blockSize+9); return reseal(b) }},
		{"too few characters", "characters in", func(b []byte) []byte { le.PutUint32(rec(b, 1)[2:], 10); return reseal(b) }},
		{"ascii with fewer characters", "marked ASCII", func(b []byte) []byte { rec(b, 1)[1] = 1; return reseal(b) }},
		{"too many lines", "newlines", func(b []byte) []byte { le.PutUint32(rec(b, 2)[6:], blockSize+5); return reseal(b) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode(c.edit(bytes.Clone(good)))
			if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("decode: %v; want a malformed-index error saying %q", err, c.want)
			}
		})
	}
	if _, err := decode(good); err != nil {
		t.Fatalf("the unchanged encoding: %v", err)
	}
}

// FuzzIndexDecode: whatever decode accepts, the context operations stay within the data: no
// panic (which guard would report as ErrInternal), no read out of bounds. The input's checksum
// is fixed up first, so the fuzzer explores the checks behind it.
func FuzzIndexDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range [][]byte{nil, []byte("a\nb"), randomDoc(r, 2*blockSize+77), bytes.Repeat([]byte("é"), blockSize)} {
		f.Add(encodingOf(f, c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) >= headerLen+4 {
			b = reseal(bytes.Clone(b)) // a checksum the fuzzer would not find: test what it guards
		}
		ix, err := decode(b)
		if err != nil {
			return
		}
		data := randomDoc(rand.New(rand.NewPCG(1, uint64(len(b)))), int(ix.key.size))[:ix.key.size]
		d := &Doc{name: "ctx0", store: &Store{lim: Limits{}.Effective()}, data: data, idx: ix.x}
		n := d.Length()
		for _, off := range []int64{0, 1, n / 3, n / 2, n - 1, n, n + 5} {
			if _, err := d.Peek(max(off, 0), 50); errors.Is(err, ErrInternal) {
				t.Fatalf("Peek(%d): %v", off, err)
			}
		}
		if _, err := d.Search(`[a-z]+\n`, 0); errors.Is(err, ErrInternal) {
			t.Fatalf("Search: %v", err)
		}
		if _, err := d.Chunk(max(n/3, 1), 0); errors.Is(err, ErrInternal) {
			t.Fatalf("Chunk: %v", err)
		}
		if _, err := d.PlanSlices([]string{"a"}, 3); errors.Is(err, ErrInternal) {
			t.Fatalf("PlanSlices: %v", err)
		}
	})
}

// TestIndexesCache walks one file through the cache's cases: a miss builds and writes the
// index, a hit (in a new process's Indexes) reads it, and each kind of change is noticed.
func TestIndexesCache(t *testing.T) {
	dir, cacheDir := t.TempDir(), filepath.Join(t.TempDir(), "index")
	content := randomDoc(rand.New(rand.NewPCG(11, 12)), 3*blockSize+5)
	p := writeCtx(t, dir, "ctx.txt", content)
	build := func(t *testing.T, content []byte, wantBuilds int64) *indexed {
		t.Helper()
		x, warns := testIndexes(cacheDir)
		openWith(t, x, p, content)
		if got := x.builds.Load(); got != wantBuilds {
			t.Fatalf("builds = %d, want %d", got, wantBuilds)
		}
		if len(*warns) != 0 {
			t.Fatalf("warnings: %v", *warns)
		}
		_, ix := cached(t, cacheDir)
		if ix.key.size != int64(len(content)) || ix.path != p {
			t.Fatalf("the cached index describes %d bytes of %s; want %d bytes of %s", ix.key.size, ix.path, len(content), p)
		}
		return ix
	}
	t.Run("miss", func(t *testing.T) { build(t, content, 1) })
	t.Run("hit", func(t *testing.T) { build(t, content, 0) })
	t.Run("hit in memory", func(t *testing.T) {
		x, _ := testIndexes(cacheDir)
		openWith(t, x, p, content)
		os.RemoveAll(cacheDir)
		f, _ := os.Open(p)
		defer f.Close()
		if _, err := x.Encoded(f); err != nil || x.builds.Load() != 0 {
			t.Fatalf("Encoded after Open: err %v, builds %d; want the remembered index", err, x.builds.Load())
		}
		build(t, content, 1) // and the cache is written again
	})
	t.Run("stale: size", func(t *testing.T) {
		content = append(content, "more\n"...)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		build(t, content, 1)
	})
	t.Run("stale: same size and mtime", func(t *testing.T) {
		st, _ := os.Stat(p)
		content = bytes.Clone(content)
		copy(content[blockSize+10:], "CHANGED IN THE MIDDLE")
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		build(t, content, 1) // the change time moved
	})
	t.Run("stale: touched", func(t *testing.T) {
		if err := os.Chtimes(p, time.Now(), time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		build(t, content, 1)
	})
	t.Run("stale: another inode, same size and mtime", func(t *testing.T) {
		st, _ := os.Stat(p)
		oldIdx, _ := cached(t, cacheDir)
		content = bytes.Clone(content)
		copy(content, "REPLACED")
		q := writeCtx(t, dir, "new.txt", content)
		if err := os.Chtimes(q, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(q, p); err != nil {
			t.Fatal(err)
		}
		x, _ := testIndexes(cacheDir)
		openWith(t, x, p, content)
		if x.builds.Load() != 1 {
			t.Fatalf("builds = %d, want 1", x.builds.Load())
		}
		stale, err := StaleIndexes(cacheDir)
		if err != nil || len(stale) != 1 || stale[0] != oldIdx {
			t.Fatalf("StaleIndexes = %v, %v; want the old inode's index %s", stale, err, oldIdx)
		}
		os.Remove(oldIdx)
	})
	t.Run("same key, other content", func(t *testing.T) {
		idx, ix := cached(t, cacheDir)
		ix.sample++
		ix.x.lines[len(ix.x.lines)-1]++ // were it trusted, Lines would be off
		if err := os.WriteFile(idx, ix.encode(), 0o600); err != nil {
			t.Fatal(err)
		}
		build(t, content, 1)
	})
	for name, spoil := range map[string]func([]byte) []byte{
		"corrupt":   func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b },
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"empty":     func(b []byte) []byte { return nil },
		"garbage":   func(b []byte) []byte { return bytes.Repeat([]byte{0xff}, len(b)) },
	} {
		t.Run(name, func(t *testing.T) {
			idx, _ := cached(t, cacheDir)
			b, _ := os.ReadFile(idx)
			if err := os.WriteFile(idx, spoil(b), 0o600); err != nil {
				t.Fatal(err)
			}
			build(t, content, 1) // rebuilt and rewritten whole
		})
	}
	t.Run("a planted index is read", func(t *testing.T) {
		// The hit path really reads the file: an index whose counts are off (but possible)
		// shows through Lines. Only a file with the right key and content sample is used.
		idx, ix := cached(t, cacheDir)
		ix.x.lines[len(ix.x.lines)-1]--
		if err := os.WriteFile(idx, ix.encode(), 0o600); err != nil {
			t.Fatal(err)
		}
		x, _ := testIndexes(cacheDir)
		s, err := x.Open([]string{p}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if got, want := s.Docs()[0].Lines(), int64(bytes.Count(content, nl)); got != want || x.builds.Load() != 0 {
			t.Fatalf("Lines = %d (builds %d); want the planted %d", got, x.builds.Load(), want)
		}
	})
}

// TestIndexesRecentFileNotCached: a file changed within the settle window is indexed but not
// cached, since a second change within the same timestamp tick would go unnoticed.
func TestIndexesRecentFileNotCached(t *testing.T) {
	cacheDir := filepath.Join(t.TempDir(), "index")
	content := []byte("fresh\nfile\n")
	p := writeCtx(t, t.TempDir(), "ctx.txt", content)
	x := NewIndexes(cacheDir, nil)
	openWith(t, x, p, content)
	if m, _ := filepath.Glob(filepath.Join(cacheDir, "*")); len(m) != 0 {
		t.Fatalf("a file changed just now was cached: %v", m)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, old, old); err != nil { // mtime back, but ctime is now
		t.Fatal(err)
	}
	openWith(t, NewIndexes(cacheDir, nil), p, content)
	if m, _ := filepath.Glob(filepath.Join(cacheDir, "*")); len(m) != 0 {
		t.Fatalf("a file whose change time is recent was cached: %v", m)
	}
}

// TestIndexesConcurrent: processes building the same index at once (separate Indexes, one
// directory) all get a good index, and the cache ends with one whole file, no temporary ones.
func TestIndexesConcurrent(t *testing.T) {
	cacheDir := filepath.Join(t.TempDir(), "index")
	content := randomDoc(rand.New(rand.NewPCG(13, 14)), 10*blockSize)
	p := writeCtx(t, t.TempDir(), "ctx.txt", content)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x, _ := testIndexes(cacheDir)
			s, err := x.Open([]string{p}, Limits{})
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Close()
			if got, want := s.Docs()[0].Length(), int64(len(chars(content))); got != want {
				errs[i] = fmt.Errorf("Length = %d, want %d", got, want)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(cacheDir, ".tmp-*")); len(tmp) != 0 {
		t.Fatalf("temporary files left: %v", tmp)
	}
	cached(t, cacheDir)
}

// TestIndexesUnwritable: a cache directory that cannot be created falls back to memory, with
// one warning however many files are indexed. (A read-only and a full file system are in
// TestIndexesReadOnlyAndFull.)
func TestIndexesUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := writeCtx(t, dir, "not-a-dir", []byte("x"))
	x, warns := testIndexes(filepath.Join(blocker, "index"))
	for i := range 3 {
		content := []byte(strings.Repeat(fmt.Sprintf("file %d\n", i), 100))
		openWith(t, x, writeCtx(t, dir, fmt.Sprintf("ctx%d.txt", i), content), content)
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0].Error(), "kept in memory") {
		t.Fatalf("warnings: %v; want one that says the indexes are kept in memory", *warns)
	}
}

// TestOpenIndexed is the worker's side: it uses a good index, and refuses one that is
// malformed or describes another file or other content.
func TestOpenIndexed(t *testing.T) {
	dir := t.TempDir()
	content := randomDoc(rand.New(rand.NewPCG(15, 16)), 4*blockSize+9)
	p := writeCtx(t, dir, "ctx.txt", content)
	other := writeCtx(t, dir, "other.txt", content)
	f, _ := os.Open(p)
	good, err := (*Indexes)(nil).Encoded(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	openIdx := func(t *testing.T, path string, idx []byte) (*Store, error) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ip := writeCtx(t, t.TempDir(), "idx", idx)
		fi, _ := os.Open(ip)
		defer fi.Close()
		return OpenIndexed([]*os.File{f}, []*os.File{fi}, Limits{})
	}
	t.Run("good", func(t *testing.T) {
		s, err := openIdx(t, p, good)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		checkDoc(t, s.Docs()[0], content)
	})
	for _, c := range []struct {
		name string
		path string
		idx  []byte
		kind error
	}{
		{"garbage", p, bytes.Repeat([]byte("rlmindex"), 40), ErrInvalid},
		{"empty", p, nil, ErrInvalid},
		{"bad block", p, func() []byte { b := bytes.Clone(good); b[len(b)-4-blockLen] = 7; return reseal(b) }(), ErrInvalid},
		{"another file's", other, good, ErrChanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := openIdx(t, c.path, c.idx)
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), "index") && !strings.Contains(err.Error(), "indexed") {
				t.Fatalf("OpenIndexed: %v; want an %v error about the index", err, c.kind)
			}
		})
	}
	t.Run("content changed", func(t *testing.T) {
		changed := bytes.Clone(content)
		copy(changed, "XYZ")
		if err := os.WriteFile(p, changed, 0o644); err != nil { // same inode, same size
			t.Fatal(err)
		}
		if s, err := openIdx(t, p, good); !errors.Is(err, ErrChanged) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("OpenIndexed: %v; want ErrChanged", err)
		}
	})
	t.Run("grown since", func(t *testing.T) {
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(p)
		idx, err := (*Indexes)(nil).Encoded(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		af, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		af.WriteString("appended later\n")
		af.Close()
		s, err := openIdx(t, p, idx)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		checkDoc(t, s.Docs()[0], content) // read up to the size it was indexed at
	})
	t.Run("count mismatch", func(t *testing.T) {
		f, _ := os.Open(p)
		defer f.Close()
		if _, err := OpenIndexed([]*os.File{f}, nil, Limits{}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("OpenIndexed with no index: %v; want ErrInvalid", err)
		}
	})
}

func TestStaleIndexes(t *testing.T) {
	dir, cacheDir := t.TempDir(), filepath.Join(t.TempDir(), "index")
	x, _ := testIndexes(cacheDir)
	keep := writeCtx(t, dir, "keep.txt", []byte("kept\n"))
	changed := writeCtx(t, dir, "changed.txt", []byte("will change\n"))
	gone := writeCtx(t, dir, "gone.txt", []byte("will go\n"))
	var idx []string
	for _, p := range []string{keep, changed, gone} {
		openWith(t, x, p, mustRead(t, p))
		f, _ := os.Open(p)
		key, _ := keyOf(f)
		f.Close()
		idx = append(idx, x.cachePath(key))
	}
	os.WriteFile(changed, []byte("has changed\n"), 0o644)
	os.Remove(gone)
	corrupt := writeCtx(t, cacheDir, "00000000000000aa-00000000000000bb.idx", []byte("rlmindex and then nothing"))
	oldTmp := writeCtx(t, cacheDir, ".tmp-1.idx", []byte("half"))
	os.Chtimes(oldTmp, time.Now().Add(-2*time.Hour), time.Now().Add(-2*time.Hour))
	writeCtx(t, cacheDir, ".tmp-2.idx", []byte("being written"))
	writeCtx(t, cacheDir, "notes.txt", []byte("not an index"))
	got, err := StaleIndexes(cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{idx[1], idx[2], corrupt, oldTmp}
	if strings.Join(sorted(got), "\n") != strings.Join(sorted(want), "\n") {
		t.Fatalf("StaleIndexes:\n%s\nwant:\n%s", strings.Join(sorted(got), "\n"), strings.Join(sorted(want), "\n"))
	}
	if got, err := StaleIndexes(filepath.Join(dir, "missing")); got != nil || err != nil {
		t.Fatalf("StaleIndexes of a missing directory: %v, %v; want nothing", got, err)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
