package traceview

import (
	"fmt"
	"os"
	"path/filepath"
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
