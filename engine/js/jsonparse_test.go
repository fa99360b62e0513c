package js

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// jsonTexts are texts for JSON.parse: valid ones of every kind, and invalid ones, which the fast
// parse hands to goja's.
var jsonTexts = []string{
	`{"id":"e1","ts":"2026-03-09T00:00:37.737Z","user":"u0143","type":"page_view","props":{"page":"/home","ms":889}}`,
	`[1, -2, 3.5, -0, 0, 1e3, 2E-2, 123456789012345, 1234567890123456789, 1e400, -1e-400]`,
	`{"a": 1, "b": 2, "a": 3, "2": "two", "1": "one", "__proto__": {"x": 1}, "toString": 5, "constructor": null}`,
	`"esc: \" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u4e16 \u0000"`,
	`"naïve café 世界 😀"`, `"\ud83d\ude00"`, `"\ud800"`, `  true `, `false`, `null`, `[]`, `{}`, `[[[[{"deep": [1]}]]]]`,
	`{"k": "a string longer than sixteen bytes", "é": "ü"}`,
	``, ` `, `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `01`, `-`, `1.`, `.5`, `+1`, `"tab	in"`, `"\x"`, `"\u12"`, `nul`, `[1] x`, `{"a":1}}`, `'s'`, `NaN`,
	`{"a":[1,{"b":[true,false,null,"s"]}],"c":-12.5e+2}`, strings.Repeat("[", 1200) + strings.Repeat("]", 1200),
}

// TestJSONParseAsGoja: JSON.parse gives what goja's own gives, for every text: the same
// JSON.stringify of the result, the same keys in the same order, -0 kept, and for an invalid
// text the same error.
func TestJSONParseAsGoja(t *testing.T) {
	e, _ := newEngine(t, Config{})
	plain := goja.New()
	const probe = `(function (x) { try { const v = JSON.parse(x); return JSON.stringify(v) + "|" + (v !== null && typeof v === "object" ? Object.keys(v).join(",") + "|" + (Object.getPrototypeOf(v) === Object.prototype) : "") + "|" + (v === 0 && 1 / v < 0) } catch (err) { return "throws " + err.name + ": " + err.message } })`
	want, err := plain.RunString(probe)
	if err != nil {
		t.Fatal(err)
	}
	wantFn, _ := goja.AssertFunction(want)
	for _, text := range jsonTexts {
		w, err := wantFn(goja.Undefined(), plain.ToValue(text))
		if err != nil {
			t.Fatal(err)
		}
		r := mustRun(t, e, `print(`+probe+`(`+quoteJS(text)+`))`)
		if got := strings.TrimSuffix(r.Stdout, "\n"); got != w.String() {
			t.Errorf("JSON.parse(%.60q):\n got %s\nwant %s", text, got, w.String())
		}
	}
}

// quoteJS writes s as a JS string literal.
func quoteJS(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			b.WriteString(`\u00` + string("0123456789abcdef"[r>>4]) + string("0123456789abcdef"[r&15]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestJSONParseReviver: a reviver is goja's parse, as before; the function looks the same.
func TestJSONParseReviver(t *testing.T) {
	e, _ := newEngine(t, Config{})
	r := mustRun(t, e, `print(JSON.stringify(JSON.parse('{"a":1,"b":[2,3]}', (k, v) => typeof v === "number" ? v * 10 : v)), JSON.parse.length, JSON.parse.name, JSON.parse("5", 7))`)
	if r.Stdout != `{"a":10,"b":[20,30]} 2 parse 5`+"\n" {
		t.Errorf("got %q", r.Stdout)
	}
}

// TestJSONParseIsFaster: parsing 20,000 event lines takes at most two thirds of goja's own parse.
func TestJSONParseIsFaster(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	line := jsonTexts[0]
	e, _ := newEngine(t, Config{})
	mustRun(t, e, `var lines = []; for (let i = 0; i < 20000; i++) lines.push(`+quoteJS(line)+`.replace("e1", "e" + i));`)
	plain := goja.New()
	if _, err := plain.RunString(`var lines = []; for (let i = 0; i < 20000; i++) lines.push(` + quoteJS(line) + `.replace("e1", "e" + i));`); err != nil {
		t.Fatal(err)
	}
	const loop = `{ let n = 0; for (const l of lines) n += JSON.parse(l).props.ms; n }`
	var fast, slow time.Duration
	for range 3 {
		start := time.Now()
		mustRun(t, e, loop)
		fast += time.Since(start)
		start = time.Now()
		if _, err := plain.RunString(loop); err != nil {
			t.Fatal(err)
		}
		slow += time.Since(start)
	}
	t.Logf("rlm %v, goja %v", fast/3, slow/3)
	if fast*3 > slow*2 {
		t.Errorf("JSON.parse took %v, goja's %v: want at most two thirds", fast/3, slow/3)
	}
}
