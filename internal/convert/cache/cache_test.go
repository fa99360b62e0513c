package cache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/convert"
)

// sh is a converter written in sh: script runs with the input's path as $1.
func sh(script string) convert.Spec {
	return convert.Spec{Exec: []string{"sh", "-c", script, "sh", "{path}"}}
}

// input writes a file whose times are long settled for a cache with Settle 1ns.
func input(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConvertKeepsText: the first conversion runs the converter and keeps its text; the second
// reads it from the cache without running it (the converter counts its runs in a file); a
// changed file or a changed argv converts again, and the older conversion of the same file goes.
func TestConvertKeepsText(t *testing.T) {
	dir := t.TempDir()
	c := Cache{Dir: filepath.Join(dir, "cache"), Settle: time.Nanosecond}
	doc := input(t, dir, "doc.pdf", "ONE")
	runs := filepath.Join(dir, "runs")
	spec := sh(`echo run >> ` + runs + `; tr A-Z a-z < "$1"`)
	ctx := context.Background()

	first, err := c.Convert(ctx, "--ctx doc.pdf", doc, spec)
	if err != nil || first.Cached || !first.Kept {
		t.Fatalf("first: %+v, %v; want converted and kept", first, err)
	}
	if b, _ := os.ReadFile(first.Path); string(b) != "one" {
		t.Fatalf("text %q, want %q", b, "one")
	}
	if st, _ := os.Stat(first.Path); st.Mode().Perm() != 0o600 {
		t.Errorf("text mode %v, want 0600", st.Mode().Perm())
	}
	second, err := c.Convert(ctx, "--ctx doc.pdf", doc, spec)
	if err != nil || !second.Cached || second.Path != first.Path {
		t.Fatalf("second: %+v, %v; want the cached text at %s", second, err, first.Path)
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Fatalf("the converter ran %d times, want 1", strings.Count(string(b), "run"))
	}

	input(t, dir, "doc.pdf", "TWO")
	third, err := c.Convert(ctx, "--ctx doc.pdf", doc, spec)
	if err != nil || third.Cached || third.Path == first.Path {
		t.Fatalf("after a change: %+v, %v; want a new conversion", third, err)
	}
	if _, err := os.Stat(first.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the older conversion is still there: %v", err)
	}
	spec.Exec = append(spec.Exec[:len(spec.Exec):len(spec.Exec)], "extra")
	fourth, err := c.Convert(ctx, "--ctx doc.pdf", doc, spec)
	if err != nil || fourth.Cached {
		t.Fatalf("another argv: %+v, %v; want a new conversion", fourth, err)
	}
}

// TestConvertUnsettled: a file changed within Settle is converted for the run only, in a
// temporary directory that Close removes, and the next run converts it again.
func TestConvertUnsettled(t *testing.T) {
	dir := t.TempDir()
	c := Cache{Dir: filepath.Join(dir, "cache"), Settle: time.Hour}
	doc := input(t, dir, "doc.pdf", "x")
	got, err := c.Convert(context.Background(), "--ctx doc.pdf", doc, sh(`cat "$1"`))
	if err != nil || got.Kept || got.Cached {
		t.Fatalf("%+v, %v; want converted, not kept", got, err)
	}
	if !strings.HasPrefix(filepath.Base(filepath.Dir(got.Path)), tempPrefix) {
		t.Errorf("text at %s, want it in a temporary directory", got.Path)
	}
	again, _ := c.Convert(context.Background(), "--ctx doc.pdf", doc, sh(`cat "$1"`))
	if again.Cached {
		t.Error("a conversion of an unsettled file was used again")
	}
	got.Close()
	again.Close()
	if entries, _ := os.ReadDir(c.Dir); len(entries) != 0 {
		t.Errorf("left in the cache after Close: %v", entries)
	}
}

// TestConvertBounds: the converter's time, output size and output kind are bounded, and its
// failure names it with its stderr; nothing is kept of a failed conversion.
func TestConvertBounds(t *testing.T) {
	dir := t.TempDir()
	c := Cache{Dir: filepath.Join(dir, "cache"), Settle: time.Nanosecond}
	doc := input(t, dir, "doc.pdf", "x")
	slow := sh(`sleep 30 & sleep 30; cat "$1"`)
	slow.Timeout = 200 * time.Millisecond
	long := sh(`head -c 5000 /dev/zero | tr '\0' a`)
	long.MaxBytes = 1000
	for _, tc := range []struct {
		name string
		spec convert.Spec
		kind fault.Kind
		want string
	}{
		{"timeout", slow, fault.Timeout, "did not finish within 200ms and was stopped; raise timeout"},
		{"too long", long, fault.Limit, "printed more than 1000 bytes and was stopped; raise max_output"},
		{"binary", sh(`printf 'ab\000c'`), fault.Schema, "printed binary data (a NUL byte at offset 2)"},
		{"failed", sh(`echo "encrypted: no password" >&2; exit 3`), fault.Schema, "sh failed (exit status 3): encrypted: no password"},
		{"missing", convert.Spec{Exec: []string{"no-such-converter-rlm", "{path}"}}, fault.Schema, "no-such-converter-rlm: not found on PATH"},
	} {
		start := time.Now()
		_, err := c.Convert(context.Background(), "--ctx doc.pdf", doc, tc.spec)
		if err == nil || fault.KindOf(err) != tc.kind || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--ctx doc.pdf") {
			t.Errorf("%s: %v (kind %q); want a %s error with %q", tc.name, err, fault.KindOf(err), tc.kind, tc.want)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: took %s", tc.name, took)
		}
	}
	if entries, _ := os.ReadDir(c.Dir); len(entries) != 0 {
		t.Errorf("left in the cache after failures: %v", entries)
	}
}

// TestConverterEnvironment: the converter gets the reduced environment (no API key) and the
// input's absolute path as one word, however it is spelled.
func TestConverterEnvironment(t *testing.T) {
	t.Setenv("RLM_API_KEY", "sk-secret-for-test")
	dir := t.TempDir()
	c := Cache{Dir: filepath.Join(dir, "cache"), Settle: time.Hour}
	doc := input(t, dir, "a doc; $(touch pwned).pdf", "x")
	got, err := c.Convert(context.Background(), "--ctx", doc, sh(`env; echo "path=$1"`))
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	b, _ := os.ReadFile(got.Path)
	if strings.Contains(string(b), "sk-secret-for-test") || strings.Contains(string(b), "RLM_API_KEY") {
		t.Errorf("the converter saw the API key:\n%s", b)
	}
	if !strings.Contains(string(b), "path="+doc+"\n") {
		t.Errorf("the converter did not get the path %q as one word:\n%s", doc, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the file name ran as a command")
	}
}

// TestStale: a conversion whose original changed or is gone is stale, a current one is not, and
// so is a directory without a readable source.json.
func TestStale(t *testing.T) {
	dir := t.TempDir()
	c := Cache{Dir: filepath.Join(dir, "cache"), Settle: time.Nanosecond}
	keep := input(t, dir, "keep.pdf", "k")
	gone := input(t, dir, "gone.pdf", "g")
	spec := sh(`cat "$1"`)
	k, err1 := c.Convert(context.Background(), "", keep, spec)
	g, err2 := c.Convert(context.Background(), "", gone, spec)
	if err1 != nil || err2 != nil || !k.Kept || !g.Kept {
		t.Fatal(err1, err2)
	}
	os.Remove(gone)
	junk := filepath.Join(c.Dir, "junk")
	os.Mkdir(junk, 0o700)
	stale, err := Stale(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{filepath.Dir(g.Path): true, junk: true}
	if len(stale) != len(want) || !want[stale[0]] || !want[stale[1]] {
		t.Errorf("stale %v, want %v", stale, want)
	}
}
