package tools

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refCount counts characters the way the package defines them, with utf8.DecodeRune.
func refCount(b []byte) (int, bool) {
	n, ascii := 0, true
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		if r >= utf8.RuneSelf || w > 1 || b[0] >= utf8.RuneSelf {
			ascii = false
		}
		n++
		b = b[w:]
	}
	return n, ascii
}

// TestCountCharsEverySequence checks countCharsASCII against utf8.DecodeRune on every pair of
// bytes, and every third byte after each lead of a three- or four-byte sequence with a valid
// second byte; each in ASCII text, alone, and cut short.
func TestCountCharsEverySequence(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		gotN, gotA := countCharsASCII(b)
		wantN, wantA := refCount(b)
		if gotN != wantN || gotA != wantA {
			t.Fatalf("countCharsASCII(% x) = %d, %v; want %d, %v", b, gotN, gotA, wantN, wantA)
		}
	}
	pad := []byte("0123456789abcdef0123456789abcdef0123456789")
	seq := func(s ...byte) {
		check(s)
		in := append(append(append([]byte(nil), pad...), s...), pad...)
		check(in)
		check(in[:len(pad)+len(s)-1]) // cut inside
	}
	for a := range 256 {
		for b := range 256 {
			seq(byte(a), byte(b))
			seq(byte(a), byte(b), 0x80, 0xbf)
			if a >= 0xe0 && a <= 0xf4 && b >= 0x80 && b <= 0xbf {
				for c := range 256 {
					seq(byte(a), byte(b), byte(c), 0x90)
				}
			}
		}
	}
}

// FuzzCountChars: countCharsASCII agrees with utf8.DecodeRune on any input.
func FuzzCountChars(f *testing.F) {
	for _, s := range []string{"", "abc", "é世界🙂", "\xff\xfe\xed\xa0\x80", "\xf0\x9f\x99", strings.Repeat("a", 40) + "é" + strings.Repeat("b", 33)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gotN, gotA := countCharsASCII(b)
		wantN, wantA := refCount(b)
		if gotN != wantN || gotA != wantA {
			t.Fatalf("countCharsASCII(%q) = %d, %v; want %d, %v", b, gotN, gotA, wantN, wantA)
		}
	})
}

func TestCountCharsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := randomDoc(r, r.IntN(300))
		gotN, gotA := countCharsASCII(b)
		wantN, wantA := refCount(b)
		if gotN != wantN || gotA != wantA {
			t.Fatalf("countCharsASCII(%q) = %d, %v; want %d, %v", b, gotN, gotA, wantN, wantA)
		}
	}
}

// BenchmarkCountChars measures the index's character counter on 32 KiB blocks of ASCII
// log lines, of lines with some accented names, and of CJK text:
// go test ./tools -run '^$' -bench CountChars
func BenchmarkCountChars(b *testing.B) {
	for _, kind := range []struct{ name, line string }{
		{"ascii", "2025-03-01T10:00:00.000Z INFO svc=api-1 req=0af3 user=bob GET /v1/items/17 status=200 dur=12ms\n"},
		{"mixed", "2025-03-01T10:00:00.000Z INFO svc=api-1 req=0af3 user=josé GET /v1/items/17 status=200 dur=12ms\n"},
		{"cjk", "日志条目：用户李雷访问了页面，状态正常。\n"},
	} {
		data := bytes.Repeat([]byte(kind.line), blockSize/len(kind.line)+1)
		blk := data[:boundaryAtOrAfter(data, blockSize)]
		b.Run(kind.name, func(b *testing.B) {
			b.SetBytes(int64(len(blk)))
			for b.Loop() {
				countCharsASCII(blk)
			}
		})
	}
}
