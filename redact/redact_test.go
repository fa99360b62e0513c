package redact

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestKnownValues(t *testing.T) {
	key := "Zq7" + fake(200, alnumChars, 29)
	other := "mysecretvalue123"
	r := New(key, other, "a", "short", "", "[REDACTED:openai]", "REDACTED", key)
	cases := []struct{ in, want string }{
		{"no secret here", "no secret here"},
		{"key=" + key + " and again " + key + ".", "key=[REDACTED:known] and again [REDACTED:known]."},
		{"xx" + other + "yy", "xx[REDACTED:known]yy"},                                      // inside a longer word
		{other + other, "[REDACTED:known][REDACTED:known]"},                                // twice in a row
		{"a banana, a short story", "a banana, a short story"},                             // values under 8 bytes ignored
		{"[REDACTED:openai] REDACTED", "[REDACTED:openai] REDACTED"},                       // marker-like values ignored
		{"Authorization: Bearer " + key, "Authorization: Bearer [REDACTED:authorization]"}, // pattern label first
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if n := len(r.known); n != 2 {
		t.Errorf("kept %d known values, want 2 (duplicates and short ones dropped)", n)
	}
}

func TestKnownOverlapping(t *testing.T) {
	r := New("abcdefgh", "efghijkl")
	if got, want := r.String("xabcdefghijklx"), "x[REDACTED:known]x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	r = New("aaaaaaaa")
	if got, want := r.String(strings.Repeat("a", 20)), "[REDACTED:known]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNilAndZero(t *testing.T) {
	var r *Redactor
	in := "AKIA" + fake(1, upperDigits, 16)
	if got := r.String(in); got != "[REDACTED:aws-access-key]" {
		t.Errorf("nil Redactor: %q", got)
	}
	var z Redactor
	if got := z.String(in); got != "[REDACTED:aws-access-key]" {
		t.Errorf("zero Redactor: %q", got)
	}
}

func TestBytes(t *testing.T) {
	r := New()
	clean := []byte("nothing to see")
	if got := r.Bytes(clean); &got[0] != &clean[0] {
		t.Error("Bytes copied a clean input")
	}
	in := []byte("token: " + fake(2, alnumChars, 20))
	orig := string(in)
	got := r.Bytes(in)
	if string(got) != "token: [REDACTED:token]" || string(in) != orig {
		t.Errorf("Bytes = %q, input now %q", got, in)
	}
}

// TestOverlapLabels: a secret inside an assignment gets the specific label, and overlapping
// secrets become one marker.
func TestOverlapLabels(t *testing.T) {
	r := New()
	ghp := "ghp_" + fake(3, alnumChars, 36)
	cases := []struct{ in, want string }{
		{"GITHUB_TOKEN=" + ghp, "GITHUB_TOKEN=[REDACTED:github]"},
		{"token: " + ghp + "/suffix123", "token: [REDACTED:github]"},
		{"foo-" + ghp + ".token=abcd1234", "foo-[REDACTED:github].token=[REDACTED:token]"},
	}
	for _, c := range cases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriterStraddle(t *testing.T) {
	ghp := "ghp_" + fake(4, alnumChars, 36)
	known := "Zq7" + fake(5, alnumChars, 20)
	rsa, h, f := fakePEM(6, "RSA PRIVATE KEY", "\n")
	r := New(known)
	in := "log: token " + ghp + " used\nknown " + known + " here\n" + rsa + "\ndone"
	want := "log: token [REDACTED:github] used\nknown [REDACTED:known] here\n" + h + "\n[REDACTED:private-key]\n" + f + "\ndone"
	if got := r.String(in); got != want {
		t.Fatalf("String = %q", got)
	}
	// Every split point, two writes.
	for k := 0; k <= len(in); k++ {
		var out bytes.Buffer
		w := r.Writer(&out)
		w.Write([]byte(in[:k]))
		w.Write([]byte(in[k:]))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("split at %d: got %q", k, out.String())
		}
	}
	// Byte by byte.
	var out bytes.Buffer
	w := r.Writer(&out)
	for k := range len(in) {
		w.Write([]byte{in[k]})
	}
	w.Close()
	if out.String() != want {
		t.Fatalf("byte by byte: got %q", out.String())
	}
}

func TestWriterStreamsLines(t *testing.T) {
	var out bytes.Buffer
	w := New().Writer(&out)
	w.Write([]byte("first line\nsecond "))
	if out.String() != "first line\n" {
		t.Errorf("after first write: %q", out.String())
	}
	rsa, h, _ := fakePEM(7, "PRIVATE KEY", "\n")
	w.Write([]byte("line\n" + rsa[:len(rsa)/2]))
	if got := out.String(); got != "first line\nsecond line\n" {
		t.Errorf("an unterminated key block must be held back, got %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); strings.Contains(got, "BEGIN") {
		t.Errorf("Flush wrote part of an unterminated key block: %q", got)
	}
	w.Close()
	if got := out.String(); !strings.HasSuffix(got, h+"\n[REDACTED:private-key]") {
		t.Errorf("Close: %q", got)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
}

func TestWriterFlushPartialLine(t *testing.T) {
	var out bytes.Buffer
	w := New().Writer(&out)
	w.Write([]byte("prompt> "))
	w.Flush()
	if out.String() != "prompt> " {
		t.Errorf("Flush: %q", out.String())
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("disk full")
}

func TestWriterError(t *testing.T) {
	fw := &failWriter{}
	w := New().Writer(fw)
	if _, err := w.Write([]byte("a\n")); err == nil {
		t.Fatal("want error")
	}
	if _, err := w.Write([]byte("b\n")); err == nil || fw.n != 1 {
		t.Fatalf("error not sticky: %v, %d writes", err, fw.n)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close should report the error")
	}
}

func TestConcurrent(t *testing.T) {
	key := "Zq7" + fake(8, alnumChars, 20)
	r := New(key)
	in := english(3, 20000) + " token=" + fake(9, alnumChars, 20) + " " + key + " " + fakeJWT(10)
	want := r.String(in)
	var out bytes.Buffer
	w := r.Writer(&out)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if got := r.String(in); got != want {
					t.Error("concurrent String differs")
					return
				}
				w.Write([]byte("line " + key + "\n"))
			}
		})
	}
	wg.Wait()
	w.Close()
	if strings.Contains(out.String(), key) {
		t.Error("known value leaked through concurrent Writer use")
	}
}

func TestWriterFlushHoldsKnownPrefix(t *testing.T) {
	key := "Zq7" + fake(11, alnumChars, 20)
	var out bytes.Buffer
	w := New(key).Writer(&out)
	w.Write([]byte("abc " + key[:5]))
	w.Flush()
	if out.String() != "abc " {
		t.Errorf("Flush wrote a possible known-value prefix: %q", out.String())
	}
	w.Write([]byte(key[5:] + "\n"))
	w.Close()
	if out.String() != "abc [REDACTED:known]\n" {
		t.Errorf("got %q", out.String())
	}
}

// TestWriterHardCap: a run of overlapping secrets longer than hardCap is split into several
// markers rather than buffered without bound.
func TestWriterHardCap(t *testing.T) {
	r := New("aaaaaaaa")
	var out bytes.Buffer
	w := r.Writer(&out)
	chunk := []byte(strings.Repeat("a", 256<<10))
	for range 6 {
		w.Write(chunk)
	}
	if out.Len() == 0 {
		t.Error("nothing written after 1.5 MiB without a line break")
	}
	w.Close()
	if rest := strings.ReplaceAll(out.String(), "[REDACTED:known]", ""); rest != "" {
		t.Errorf("left over %d bytes, e.g. %q", len(rest), rest[:min(20, len(rest))])
	}
}

// A JWT at the end of a sentence is still redacted; one followed by a dot and more text is not a
// whole token (FuzzRedact found the pass-dependent case this guards).
func TestJWTBoundaries(t *testing.T) {
	tok := "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".SflKxwRJSMeKKF2QT4fwpM"
	r := New()
	if got, want := r.String("the token is "+tok+"."), "the token is [REDACTED:jwt]."; got != want {
		t.Errorf("sentence end: got %q, want %q", got, want)
	}
	in := "eyJ00000000000000000..0000000000.rcy50ehtxi6b2o5dvnuz"
	once := New("rcy50ehtxi6b2o5dvnuz").String(in)
	if twice := New("rcy50ehtxi6b2o5dvnuz").String(once); twice != once {
		t.Errorf("not idempotent: %q then %q", once, twice)
	}
}
