package repl

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm/tools"
)

// withIndex opens a session's descriptors for o, with the first context's index replaced by
// edit(the good one), and starts a worker on them.
func withIndex(t *testing.T, o Options, edit func(good []byte) []byte) (*workerProc, error) {
	t.Helper()
	o = o.WithDefaults()
	in, err := openInherited(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.close)
	good, err := tools.NewIndexes("", nil).Encoded(in.files[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := sealedFile("test-index", edit(good))
	if err != nil {
		t.Fatal(err)
	}
	i := len(in.ctxFDs) // the first index follows the context files
	in.files[i].Close()
	in.files[i] = f
	w, _, err := startWorker(context.Background(), o, in)
	if err == nil {
		t.Cleanup(w.killWait)
	}
	return w, err
}

// reseal recomputes an index encoding's checksum (CRC-32C of all but its last 4 bytes).
func reseal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestWorkerRefusesMalformedIndex: a confined worker takes nothing its parent sends on trust. An
// index that is malformed, or describes another file, makes it refuse to start, saying why; it
// neither crashes nor reads out of bounds.
func TestWorkerRefusesMalformedIndex(t *testing.T) {
	o := confinedOptions(t, "go")
	other := filepath.Join(filepath.Dir(o.Contexts[0]), "other.txt")
	sample, err := os.ReadFile(o.Contexts[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, sample, 0o644); err != nil {
		t.Fatal(err)
	}
	otherIndex := func([]byte) []byte {
		f, err := os.Open(other)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := tools.NewIndexes("", nil).Encoded(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct {
		name, want string
		edit       func([]byte) []byte
	}{
		{"garbage", "malformed index", func(b []byte) []byte { return bytes.Repeat([]byte{0xA5}, len(b)) }},
		{"empty", "malformed index", func([]byte) []byte { return nil }},
		{"truncated", "malformed index", func(b []byte) []byte { return b[:len(b)/2] }},
		{"flipped bit", "checksum", func(b []byte) []byte { b[len(b)-6] ^= 4; return b }},
		{"more bytes than the file", "shrank", func(b []byte) []byte {
			size := binary.LittleEndian.Uint64(b[16:]) // 7,390 bytes: one block either way
			binary.LittleEndian.PutUint64(b[16:], size+100)
			return reseal(b)
		}},
		{"another file's", "describes another file", otherIndex},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := withIndex(t, o, c.edit)
			if err == nil || !strings.Contains(err.Error(), "refused to start") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("starting a worker with a %s index: %v; want a refusal that says %q", c.name, err, c.want)
			}
			t.Log(err)
		})
	}
}

// TestWorkerUsesTheParentsIndex: the worker reads the index it is given instead of scanning the
// context. An index whose counts are off but possible (its first block one character short)
// shows through length: the parent is trusted with the counts, never with bounds.
func TestWorkerUsesTheParentsIndex(t *testing.T) {
	o := confinedOptions(t, "go")
	sample, err := os.ReadFile(o.Contexts[0])
	if err != nil {
		t.Fatal(err)
	}
	o = o.WithDefaults()
	w, err := withIndex(t, o, func(b []byte) []byte {
		rec := b[72+int(binary.LittleEndian.Uint32(b[60:])):]
		rec[1] = 0 // not all ASCII, and one character fewer
		binary.LittleEndian.PutUint32(rec[2:], binary.LittleEndian.Uint32(rec[2:])-1)
		return reseal(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := w.exec(context.Background(), execReq{id: 1, code: `fmt.Println(length(context))`, room: [2]int64{1 << 20, 1 << 20}}, o)
	if err != nil || res.Err != nil {
		t.Fatalf("exec: %v, %v", err, res.Err)
	}
	if want := strconv.Itoa(len([]rune(string(sample))) - 1); strings.TrimSpace(res.Stdout) != want {
		t.Fatalf("length(context) = %q; want %s, the count of the index the worker was given", res.Stdout, want)
	}
}
