package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/repl"
)

// claim is one sentence of the system prompt and a cell that shows it true of the engine.
type claim struct {
	says string // a phrase of the prompt
	code string
	out  string // the cell's output, exactly; "" when only the error or the answer is checked
	err  string // a phrase of the cell's error; "" for none
	fin  string // the FINAL value; "" for none
}

// TestPromptClaimsHold: what the language notes and the API lines say about the engines is what
// the engines do, checked by running cells in a real session of each language with two context
// files. A claim that stops being true (goja gains Object.groupBy, print stops being
// fmt.Println) fails here, naming the sentence to change. Cells run in order in one session.
func TestPromptClaimsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a worker per language")
	}
	dir := t.TempDir()
	ctx0, ctx1 := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.txt")
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ws, 0o777); err != nil { // the worker's uid (65534 under root) writes here
		t.Fatal(err)
	}
	writeFile(t, ctx0, "line one ERROR\nline two\nERROR three\n")
	writeFile(t, ctx1, "second file\n")
	tests := map[string][]claim{
		"go": {
			{says: `the first output line says so (added import "strings"`, code: `print(strings.ToUpper("a"))`, out: "added import \"strings\"\nA\n"},
			{says: `or added imports "strings", "regexp")`, code: `print(sort.IntsAreSorted([]int{1, 2}), unicode.IsUpper('A'))`, out: "added imports \"sort\", \"unicode\"\ntrue true\n"},
			{says: "ctx0 (also named context), ctx1, ctx2, …", code: `print(ctx0 == context, ctx1.Name, peek(ctx1, 0, 6))`, out: "true ctx1 second\n"},
			{says: "print(a, b) is fmt.Println(a, b)", code: "type p struct{ A int }\nxs := []any{1.5, \"a\", []int{1}, map[string]int{\"b\": 1, \"a\": 2}, p{3}, &p{4}, nil}\nfmt.Print(fmt.Sprintln(xs...))\nprint(xs...)",
				out: "1.5 a [1] map[a:2 b:1] {3} &{4} <nil>\n1.5 a [1] map[a:2 b:1] {3} &{4} <nil>\n"},
			{says: "^ and $ match at the start and end of the whole text unless (?m) (a search or count that finds fewer matches because of them than (?m) would gets a note that says so)", code: "print(count(context, `^line`), count(context, `(?m)^line`), count(context, `three$`), count(context, `(?m)ERROR$`))",
				out: "1 2 0 1\nnote: count(ctx0, \"^line\") found 1 match: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^line\" finds 2 matches.\nnote: count(ctx0, \"three$\") found nothing: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)three$\" finds 1 match.\n"},
			{says: "cut at the end of the context (past it: \"\")", code: `print(peek(context, 30, 100) == "three\n", peek(context, 1000, 10) == "")`, out: "true true\n"},
			{says: "(a longer length is an error)", code: `print(len(peek(context, 0, 16001)))`, err: "peek length 16001 exceeds 16000"},
			{says: "unexported struct fields are left out ({})", code: "type row struct{ name string }\nFINAL([]row{{\"a\"}})", fin: "[{}]"},
			{says: "FINAL(value any) — record the answer: a string as it is, anything else as JSON", code: `FINAL(map[string]int{"b": 2, "a": 1})`, fin: `{"a":1,"b":2}`},
			{says: "A later block may declare a top-level name again (x := … replaces x).", code: "x := 1\nprint(x)", out: "1\n"},
			{says: "A later block may declare a top-level name again (x := … replaces x).", code: "x := \"two\"\nprint(x)", out: "two\n"},
			{says: "hides that function for the rest of the session", code: "text := \"x\"\nprint(text)", out: "x\n"},
			{says: "hides that function for the rest of the session", code: `print(len(text(context)))`, err: "hides the API function text for the rest of this session"},
			{says: writeNames, code: `write_file("rlm.toml", "[backends.evil]")`, err: "rlm's own configuration file"},
			{says: writeNames, code: `write_file("sub/../.envrc", "export X=1")`, err: `names beginning with "."`},
			{says: writeNames, code: `write_file("notes.txt", "x")
print(read_file("notes.txt"))`, out: "x\n"},
		},
		"js": {
			{says: "ctx0 (also named context), ctx1, ctx2, …", code: `print(ctx0 === context, typeof ctx1, peek(ctx1, 0, 6))`, out: "true object second\n"},
			{says: "Missing: Intl (toLocaleString does not group digits), Object.groupBy and Map.groupBy, structuredClone, async generators, TextEncoder, URL",
				code: `print(typeof Intl, (1234567).toLocaleString(), typeof Object.groupBy, typeof Map.groupBy, typeof structuredClone, typeof TextEncoder, typeof URL)`,
				out:  "undefined 1234567 undefined undefined undefined undefined undefined\n"},
			{says: "async generators", code: `async function* g() { yield 1 }`, err: "Async generators are not supported"},
			{says: "no timers", code: `print(typeof setTimeout, typeof setInterval)`, out: "undefined undefined\n"},
			{says: "Present beyond ES2022: findLast, toSorted, toReversed, with.", code: `print([1, 2, 3].findLast(x => x < 3), [3, 1].toSorted().join(), [1, 2].toReversed().join(), [1, 2].with(0, 9).join())`, out: "2 1,3 2,1 9,2\n"},
			{says: "call an async function: its promises settle before the block ends", code: `let got; (async () => { got = await Promise.resolve(7) })()`},
			{says: "call an async function: its promises settle before the block ends", code: `print(got)`, out: "7\n"},
			{says: "objects and arrays as JSON, a Map as Map(n) {k => v}; console.log, .error, .warn and .info are print.", code: `console.error({a: [1, "x"]}, new Map([["k", 1]])); console.warn("w"); console.info("i")`, out: "{\"a\":[1,\"x\"]} Map(1) {\"k\" => 1}\nw\ni\n"},
			{says: "/x/i, /x/m and /x/s become (?i), (?m) and (?s); other flags are ignored", code: `print(count(context, /^LINE/gim), count(context, /^line/), search(context, /error/i).length)`, out: "2 1 2\nnote: count(ctx0, \"^line\") found 1 match: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^line\" finds 2 matches.\n"},
			{says: "no lookaround or backreferences", code: `search(context, /(?<=line )two/)`, err: "no backreferences or lookaround"},
			{says: "search(ctx, regex, from?)", code: `const page = search(context, "ERROR", 1); print(page.length, page[0].index, page[0].total, page[0].line, page[0].line_text)`, out: "1 1 2 3 ERROR three\n"},
			{says: "a Map becomes an object (an array of [key, value] pairs if a key is not a string), a Set an array, a Date its ISO string", code: `FINAL([new Map([["a", 1]]), new Set([2]), new Date(0)])`, fin: `[{"a":1},[2],"1970-01-01T00:00:00.000Z"]`},
			{says: "FINAL(undefined) is an error", code: `FINAL(undefined)`, err: "cannot be undefined"},
			{says: "(an array of [key, value] pairs if a key is not a string)", code: `FINAL(new Map([[2026, 3], ["a", 1]]))`, fin: `[[2026,3],["a",1]]`},
			{says: "A later block may declare a top-level let or const again.", code: `const x = 1; print(x)`, out: "1\n"},
			{says: "A later block may declare a top-level let or const again.", code: `const x = "two"; print(x)`, out: "two\n"},
			{says: "A top-level declaration of another API name or of a built-in (print, context, JSON, Map, escape, …) is refused.", code: `const JSON = 1`, err: `cannot declare "JSON" at the top level`},
			{says: "self, window, global, frames, module and exports only as names you declare", code: `const frames = [1]; print(frames.length)`, out: "1\n"},
			{says: "self, window, global, frames, module and exports only as names you declare", code: `print(typeof self)`, err: "global-object: use of self"},
			{says: "hides that function for the rest of the session", code: `let text = "x"; print(text)`, out: "x\n"},
			{says: "hides that function for the rest of the session", code: `text(context)`, err: "hides the API function text() for the rest of this session"},
			{says: writeNames, code: `write_file("RLM.TOML", "[backends.evil]")`, err: "rlm's own configuration file"},
			{says: writeNames, code: `write_file(".git/hooks/pre-commit", "x")`, err: `names beginning with "."`},
		},
	}
	for lang, claims := range tests {
		t.Run(lang, func(t *testing.T) {
			prompt := SystemPrompt(Config{Session: repl.Options{Lang: lang}})
			s, err := repl.Open(context.Background(), repl.Options{Lang: lang, Contexts: []string{ctx0, ctx1}, Workspace: ws, Worker: testWorker, CellTimeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, c := range claims {
				if !strings.Contains(prompt, c.says) {
					t.Errorf("the %s prompt no longer says %q: update this test", lang, c.says)
				}
				res := s.Exec(context.Background(), c.code)
				switch {
				case c.err == "" && res.Err != nil:
					t.Errorf("%q: %s\nfailed: %v", c.says, c.code, res.Err)
				case c.err != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), c.err)):
					t.Errorf("%q: %s\ngot error %v, want one with %q", c.says, c.code, res.Err, c.err)
				case c.out != "" && res.Stdout != c.out:
					t.Errorf("%q: %s\ngot output %q, want %q", c.says, c.code, res.Stdout, c.out)
				case c.fin != "" && (res.Final == nil || *res.Final != c.fin):
					t.Errorf("%q: %s\ngot FINAL %v, want %s", c.says, c.code, res.Final, c.fin)
				}
			}
		})
	}
}

// writeNames is write_file's line of the API on the names it refuses.
const writeNames = `never rlm.toml or a name beginning with "." (rlm and other tools read those: pick another name)`

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
