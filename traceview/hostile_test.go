package traceview

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/trace"
)

// payloads each set an attribute on <html> (data-pwned) or change document.title if they
// run. They are what a model or the code it ran could print.
var payloads = []string{
	`<script>document.documentElement.setAttribute('data-pwned','script');document.title='PWNED'</script>`,
	`</script><script>document.documentElement.setAttribute('data-pwned','close-script')</script>`,
	`</textarea><img src=x onerror="document.documentElement.setAttribute('data-pwned','img')">`,
	`<svg onload="document.documentElement.setAttribute('data-pwned','svg')"></svg>`,
	`<a href="javascript:document.documentElement.setAttribute('data-pwned','href')">click</a> javascript:document.title='PWNED'`,
	"\u2028\u2029\"});document.documentElement.setAttribute('data-pwned','separator');//",
	`<!--<script>document.documentElement.setAttribute('data-pwned','comment')</script>-->`,
	`<iframe srcdoc="<script>parent.document.documentElement.setAttribute('data-pwned','iframe')</script>"></iframe>`,
	`<style>body{display:none}</style><meta http-equiv="refresh" content="0;url=javascript:document.title='PWNED'">`,
}

var hostile = strings.Join(payloads, "\n")

// hostileTrace writes a trace with the payloads in every field a page shows, and its outcome.
func hostileTrace(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, trace.FileName(time.Now(), "hostile"))
	w, err := trace.Create(path, trace.Metadata{RootModel: hostile, TaskID: "hostile", Lang: "js",
		Question: "</title><script>document.title='PWNED'</script>" + hostile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	final := hostile
	for i := range 3 {
		it := trace.Iteration{Prompt: []trace.Message{{Role: hostile, Content: hostile}}, Response: hostile + "\n```js\n" + hostile + "\n```",
			FinalAnswer: &final, Time: time.Second,
			CodeBlocks: []trace.CodeBlock{{Code: hostile, Stdout: fmt.Sprintf("iteration %d\n", i+1) + hostile, Stderr: hostile,
				Locals: []trace.Var{{Name: hostile, Type: hostile, Repr: hostile}}, Final: &final,
				ErrKind: fault.Kind(hostile), ErrMsg: hostile,
				SubCalls: []trace.SubCall{{Model: hostile, Prompt: hostile, Response: hostile}, {Model: hostile, Prompt: hostile, Error: hostile}}}}}
		if err := w.Iteration(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(trace.Outcome{Status: hostile, Answer: hostile, ErrKind: fault.Kind(hostile), ErrMsg: hostile}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return path
}

func writePage(t *testing.T, trace, out string) {
	t.Helper()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := RenderFile(f, trace); err != nil {
		t.Fatal(err)
	}
}

// protoKeys are the names a plain JavaScript object answers for without holding them, the
// properties of Object.prototype: a trace string used as the key of such an object finds them.
var protoKeys = []string{"constructor", "__proto__", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
	"isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__"}

// protoTrace writes a trace of two iterations in which every string is key: the language, the
// question, models, roles, error kinds, variable names and types, the status, the fence tag of
// the response's code and the names in the code.
func protoTrace(t *testing.T, dir, key string) string {
	t.Helper()
	path := filepath.Join(dir, trace.FileName(time.Now(), "proto"))
	w, err := trace.Create(path, trace.Metadata{RootModel: key, TaskID: key, Lang: key, Question: key, Backend: key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	code := fmt.Sprintf("%s(%s)\nx.%s = %s\n", key, key, key, key)
	fenced := fmt.Sprintf("%s\n```%s\n%s %s\n```\n```%s %s\n%s\n```\n", key, key, key, key, key, key, key)
	for range 2 {
		it := trace.Iteration{Prompt: []trace.Message{{Role: key, Content: key}, {Role: "user", Content: key}}, Response: fenced + code,
			FinalAnswer: &key, Time: time.Second,
			CodeBlocks: []trace.CodeBlock{{Code: code, Stdout: key, Stderr: key,
				Locals: []trace.Var{{Name: key, Type: key, Repr: key}}, Final: &key, ErrKind: fault.Kind(key), ErrMsg: key,
				SubCalls: []trace.SubCall{{Model: key, Prompt: key, Response: key}, {Model: key, Prompt: key, Error: key}}}}}
		if err := w.Iteration(it); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(trace.Outcome{Status: key, Answer: key, ErrKind: fault.Kind(key), ErrMsg: key}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return path
}

// TestBrowserPrototypeKeys renders, for each property name of Object.prototype, a trace whose
// every string is that name: each page draws every iteration and logs no error. (The first
// screen alone, "#i1", draws an iteration with the same code.)
func TestBrowserPrototypeKeys(t *testing.T) {
	bin := chromium(t)
	for _, key := range protoKeys {
		t.Run(key, func(t *testing.T) {
			dir := t.TempDir()
			page := filepath.Join(dir, "proto.html")
			writePage(t, protoTrace(t, dir, key), page)
			dom, console := browseConsole(t, bin, page, "#all")
			if len(console) > 0 {
				t.Errorf("the page logged %d messages, want none: %s", len(console), strings.Join(console, "\n"))
			}
			for _, want := range []string{`data-all-rendered="2"`, `id="iteration-1"`, `id="iteration-2"`,
				`<span class="k">language</span><span class="v">` + key + `</span>`, `<td class="name">` + key + `</td>`,
				`<span class="model">` + key + `</span>`, `<span class="tag bad">` + key + `</span>`} {
				if !strings.Contains(dom, want) {
					t.Errorf("the page lacks %q", want)
				}
			}
		})
	}
}

// TestScriptInert reads view.js for what could make trace content markup, code, a link or a
// request, and for plain objects used as tables: a trace string looked up in one ({}, the in
// operator, for-in) finds Object.prototype's properties. Tables are table() and read with own().
func TestScriptInert(t *testing.T) {
	for _, tc := range []struct {
		what string
		re   *regexp.Regexp
	}{
		{"markup made from a string", regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser`)},
		{"code made from a string", regexp.MustCompile(`\beval\b|new Function|set(?:Timeout|Interval)\(\s*['"]`)},
		{"a link, a resource or a handler", regexp.MustCompile(`\.(?:href|src|action|srcdoc)\s*=|setAttribute\(\s*['"](?:href|src|style|on)|fetch\(|XMLHttpRequest|\.open\(`)},
		{"a plain object as a table (use table())", regexp.MustCompile(`=\s*\{\s*\}`)},
		{"the in operator or for-in (use own() or Object.keys)", regexp.MustCompile(`\w+\s+in\s+\w+\s*\)`)},
	} {
		if got := tc.re.FindAllString(script, -1); len(got) > 0 {
			t.Errorf("view.js has %s: %q, want none", tc.what, got)
		}
	}
}
