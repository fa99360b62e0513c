package redact

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// fragments are the building blocks of random inputs: every secret and near-miss of the
// pattern table, pieces of them, and punctuation that the grammars care about.
func fragments() []string {
	var fr []string
	for _, tc := range patternCases() {
		fr = append(fr, tc.in)
		if tc.want != "" {
			fr = append(fr, tc.want) // already-redacted text
		}
	}
	fr = append(fr, " ", "\n", "\t", "=", ":", "://", "@", "[", "]", "'", `"`, ".", "-", "_", "-----BEGIN ",
		"-----END PRIVATE KEY-----", "PRIVATE KEY-----", "token", "Password", "api_key", "Authorization", "Bearer ",
		"sk-", "ghp_", "AKIA", "eyJ", "xoxb-", "SG.", "hf_", "npm_", "hooks.slack.com/services/", "AIza",
		"[REDACTED:openai]", "]token", `\n`, "==", ":=", "=>")
	return fr
}

// randomInput glues up to 12 fragments, sometimes cut, mutated or doubled.
func randomInput(rng *rand.Rand, fr []string, known []string) string {
	var b strings.Builder
	for range 1 + rng.IntN(12) {
		f := fr[rng.IntN(len(fr))]
		if len(known) > 0 && rng.IntN(6) == 0 {
			f = known[rng.IntN(len(known))]
		}
		switch rng.IntN(8) {
		case 0:
			f = f[:rng.IntN(len(f)+1)]
		case 1:
			f = f[rng.IntN(len(f)+1):]
		case 2:
			if len(f) > 0 {
				k := rng.IntN(len(f))
				f = f[:k] + string(" -_.:=[]a0\n"[rng.IntN(11)]) + f[k+1:]
			}
		case 3:
			f += f
		}
		b.WriteString(f)
	}
	return b.String()
}

// TestDifferential checks the prefiltered scan against the every-position reference, the
// prefilter's candidates against every position where a matcher fires, idempotence, that
// known values are gone, and that the Writer agrees with String under random chunking.
func TestDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	fr := fragments()
	known := []string{"Zq7" + fake(100, alnumChars, 13), fake(101, digits, 9) + "x", "pass1234word"}
	r := New(known...)
	n := 3000
	if testing.Short() {
		n = 300
	}
	for it := range n {
		in := randomInput(rng, fr, known)
		checkAll(t, r, in, known, rng.Uint64())
		if t.Failed() {
			t.Fatalf("iteration %d input %q", it, in)
		}
	}
}

func checkAll(t *testing.T, r *Redactor, in string, known []string, seed uint64) {
	t.Helper()
	got := r.String(in)
	if want := slowRedact(r, in); got != want {
		t.Errorf("prefiltered vs reference:\n in: %q\ngot: %q\nref: %q", in, got, want)
	}
	if m := missedCandidates(in); len(m) > 0 {
		t.Errorf("prefilter missed positions %v of %q", m, in)
	}
	if again := r.String(got); again != got {
		t.Errorf("not idempotent:\n in: %q\nonce: %q\ntwice %q", in, got, again)
	}
	for _, k := range known {
		if strings.Contains(got, k) {
			t.Errorf("known value %q survives in %q", k, got)
		}
	}
	if b := r.Bytes([]byte(in)); string(b) != got {
		t.Errorf("Bytes = %q, String = %q", b, got)
	}
	if w := writeChunked(t, r, in, seed); w != got {
		t.Errorf("Writer vs String:\n in: %q\nwriter: %q\nstring: %q", in, w, got)
	}
}

// writeChunked writes in through a Writer in random pieces, with the odd Flush-free
// boundary, and returns what came out.
func writeChunked(t *testing.T, r *Redactor, in string, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var out bytes.Buffer
	w := r.Writer(&out)
	for p := 0; p < len(in); {
		n := min(len(in)-p, 1+rng.IntN(max(1, len(in)/3)))
		if _, err := w.Write([]byte(in[p : p+n])); err != nil {
			t.Fatal(err)
		}
		p += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestWriterLongLines exercises the cut inside lines longer than maxPend and the hold on an
// unterminated private key.
func TestWriterLongLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	r := New()
	rsa, _, _ := fakePEM(1, "RSA PRIVATE KEY", "\n")
	parts := []string{english(1, 5000), "token=" + fake(3, alnumChars, 30), rsa, fakeJWT(4), " ",
		"ghp_" + fake(5, alnumChars, 36), strings.Repeat("A", 3000)}
	for range 20 {
		var b strings.Builder
		for b.Len() < 3*maxPend {
			b.WriteString(strings.ReplaceAll(parts[rng.IntN(len(parts))], "\n", " "))
		}
		in := b.String()
		want := r.String(in)
		if got := writeChunked(t, r, in, rng.Uint64()); got != want {
			t.Fatalf("long line: writer and String differ (len %d vs %d)", len(got), len(want))
		}
	}
}

// FuzzRedact: no panic, idempotence, embedded known values gone, agreement with the
// reference (on small inputs) and with the Writer.
func FuzzRedact(f *testing.F) {
	for _, fr := range fragments() {
		f.Add(fr, uint64(1), uint(0))
	}
	f.Add("password=abcd1234 and AKIA0123456789ABCDEF", uint64(2), uint(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64, pos uint) {
		k := fake(seed, "abcdefghijklmnopqrstuvwxyz0123456789", 8+int(seed%24))
		at := int(pos % uint(len(text)+1))
		in := text[:at] + k + text[at:] + " " + k
		r := New(k)
		got := r.String(in)
		if strings.Contains(got, k) {
			t.Fatalf("known value %q survives in %q", k, got)
		}
		if again := r.String(got); again != got {
			t.Fatalf("not idempotent:\n in: %q\nonce: %q\ntwice %q", in, got, again)
		}
		if len(in) <= 4096 {
			if ref := slowRedact(r, in); ref != got {
				t.Fatalf("reference disagrees:\n in: %q\ngot: %q\nref: %q", in, got, ref)
			}
		}
		if w := writeChunked(t, r, in, seed); w != got {
			t.Fatalf("Writer vs String:\n in: %q\nwriter: %q\nstring: %q", in, w, got)
		}
	})
}
