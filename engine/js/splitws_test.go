package js

import (
	"strings"
	"testing"
	"time"
)

// TestSplitWSAsGoja: X.split(/\s+/), which the rewrite cuts in Go (splitws.go), gives what
// goja's own split with the same regexp gives (the RegExp built at run time, which the rewrite
// leaves alone): every kind of JS white space, none at the ends or runs of it, non-ASCII and
// UTF-16 text, an empty string, a String object and a value that is not a string; called on a
// name (the native function first) and on any other expression (the JS wrapper).
func TestSplitWSAsGoja(t *testing.T) {
	// The context comes from the host as UTF-8: the native cut applies to it, non-ASCII or not.
	e, err := New(Config{}, newFakeHost("t\tv\vf\fsp nb\u00a0bom\ufeffog\u1680en\u2000hair\u200anarrow\u202fmath\u205fideo\u3000nl\nr\rls\u2028ps\u2029 nel\u0085mvs\u180ezw\u200bend  "))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	texts := []string{`peek(context, 0, 1000)`, `peek(context, 0, 1000).trim()`, `"a\vb\fc\rd\te"`,
		`"a b  c"`, `"  lead and trail  "`, `""`, `" "`, `"one"`,
		`"t\tv\vf\fsp nb\u00a0bom\ufeffog\u1680en\u2000hair\u200anarrow\u202fmath\u205fideo\u3000nl\nr\rls\u2028ps\u2029end"`,
		`"not space: nel\u0085mvs\u180ezw\u200bend"`,
		`"naïve café\t世界 😀  x"`, `"\ud800 lone"`, `"é".repeat(3) + " " + "x".repeat(40) + "  y"`,
		`new String("boxed  string")`, `({ split: (re) => "custom " + re.source })`,
	}
	for _, x := range texts {
		r := mustRun(t, e, `{ const x = `+x+`; const want = JSON.stringify(x.split(new RegExp("\\s+")));
print(JSON.stringify(x.split(/\s+/)) === want, JSON.stringify([x][0].split(/\s+/)) === want, JSON.stringify(x.split(/\s+/))) }`)
		if !strings.HasPrefix(r.Stdout, "true true ") {
			t.Errorf("%s: %s", x, r.Stdout)
		}
	}
}

// TestSplitWSIsFaster: a loop splitting 100,000 lines on /\s+/ takes at most two thirds of what
// it takes with goja's split (measured: about half).
func TestSplitWSIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var lines = []; for (let i = 0; i < 100000; i++) lines.push("2026-11-29T10:00:00Z ERROR svc-" + (i % 7) + " request " + i + " failed");`)
	timeIt := func(src string) time.Duration {
		start := time.Now()
		if r := mustRun(t, e, src); r.Stdout != "600000\n" {
			t.Fatalf("%s: %q", src, r.Stdout)
		}
		return time.Since(start)
	}
	var fast, slow time.Duration
	for range 3 {
		fast += timeIt(`{ let n = 0; for (const l of lines) n += l.split(/\s+/).length; print(n) }`)
		slow += timeIt(`{ const re = /\s+/; let n = 0; for (const l of lines) n += l.split(re).length; print(n) }`)
	}
	t.Logf("rewritten %v, goja %v", fast/3, slow/3)
	if fast*3 > slow*2 {
		t.Errorf("split(/\\s+/) took %v, goja's %v: want at most two thirds", fast/3, slow/3)
	}
}
