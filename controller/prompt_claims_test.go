package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
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
			{says: "^ and $ match at the start and end of the whole text unless (?m) (a search, count or tally that finds fewer matches because of them than (?m) would gets a note that says so)", code: "print(count(context, `^line`), count(context, `(?m)^line`), count(context, `three$`), count(context, `(?m)ERROR$`))",
				out: "1 2 0 1\nnote: count(ctx0, \"^line\") found 1 match: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^line\" finds 2 matches.\nnote: count(ctx0, \"three$\") found nothing: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)three$\" finds 1 match.\n"},
			{says: "a search, count or tally that finds fewer matches because of them than (?m) would gets a note", code: "print(len(tally(context, `^line (\\w+)`)))",
				out: "1\nnote: tally(ctx0, \"^line (\\\\w+)\") found 1 match: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^line (\\\\w+)\" finds 2 matches.\n"},
			{says: "call tally(context, regex) instead of splitting and counting in a loop: one call counts the whole context", code: "t := tally(context, `\\w+`)\nprint(t[0].Text, t[0].Count, count(context, t[0].Text), t[0].Distinct)", out: "ERROR 2 2 5\n"},
			{says: "a capture group picks the value (`user=(\\w+)` counts users)", code: "print(tally(context, `line (\\w+)`))", out: "[{one 1 2} {two 1 2}]\n"},
			{says: "so `user=(\\w+)` counts users", code: "users := tally(context, `(?m)^(\\w+) `)\nprint(users[0].Text, users[0].Count, len(users))", out: "line 2 2\n"},
			{says: "most frequent first (ties by text)", code: "t := tally(context, `[a-z]+`)\nprint(t[0].Text, t[0].Count, t[1].Text, t[1].Count, t[3].Text)", out: "line 2 one 1 two\n"},
			{says: "with (?i) matches that differ only in case are one, written in lower case", code: "print(tally(context, `(?i)error|LINE`))", out: "[{error 2 2} {line 2 2}]\n"},
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
			{says: "the rest of the cell still runs, and a later FINAL in it replaces the answer", code: "FINAL(\"a\")\nprint(\"after\")\nFINAL(\"b\")", out: "after\n", fin: "b"},
			{says: "index (its number, from 0)", code: "p := search(context, \"ERROR\")\nprint(p[0].Index, p[0].Start, p[0].End, peek(context, p[0].Start, p[0].End-p[0].Start), len(search(context, \"ERROR\", 2)), len(search(context, \"ERROR\", 9)))", out: "0 9 14 ERROR 0 0\n"},
			{says: "from at or past total gives an empty one", code: "print(len(search(context, \"ERROR\", 2)), len(search(context, \"ERROR\", 99)))", out: "0 0\n"},
			{says: "line (the 1-based line the match starts on), text (the match) and line_text (that whole line)", code: "m := search(context, `(?s)two.ERROR`)\nprint(m[0].Line, m[0].LineText)", out: "2 line two\n"},
			{says: "descriptors {index, start, end} (end exclusive) of consecutive slices of size characters, each overlapping the one before by overlap (0 up to size-1)", code: "c := chunk(context, 10, 3)\nprint(len(c), c[0].End, c[1].Start, c[len(c)-1].End == length(context))", out: "5 10 7 true\n"},
			{says: "each overlapping the one before by overlap (0 up to size-1)", code: "chunk(context, 10, 10)", err: "less than the size 10"},
			{says: "(more is an error that names the smallest size that fits)", code: "chunk(context, 1, 0)", err: "more than 30; use size ≥ 2"},
			{says: "rewritten to it everywhere (inside functions too, with no import of fmt needed)", code: "func shout(s string) { print(s + \"!\") }\nshout(\"hi\")", out: "hi!\n"},
			{says: "Generics, min and max, and range over an int and over a function (an iterator) work. Unused variables and imports are not errors.", code: "func first[T any](xs []T) T { return xs[0] }\nseq := func(yield func(int) bool) {\n\tfor i := 0; i < 2; i++ {\n\t\tif !yield(i * 10) {\n\t\t\treturn\n\t\t}\n\t}\n}\nunused := 1\nfor i := range 2 {\n\tprint(i)\n}\nfor v := range seq {\n\tprint(v)\n}\nprint(first([]string{\"g\"}), min(3, 1), max(2, 5))", out: "0\n1\n0\n10\ng 1 5\n"},
			{says: "Functions a block declares see its top-level variables", code: "limit := 3\nfunc under(n int) bool { return n < limit }\nprint(under(2), under(5))", out: "true false\n"},
			{says: "x, err := …; y, err := … is fine at the top level", code: "a, err := strconv.Atoi(\"4\")\nb, err := strconv.Atoi(\"5\")\nprint(a+b, err)", out: "added import \"strconv\"\n9 <nil>\n"},
			{says: "A variable named like a package (path, url, sort, …) hides it as in Go", code: "path := \"a/b\"\nprint(path)", out: "a/b\n"},
			{says: "A variable named like a package (path, url, sort, …) hides it as in Go", code: "print(path.Base(\"x/y\"))", err: "path.Base undefined"},
			{says: "allocations whose size is a constant over 16,777,216 (make([]T, n) or [n]T with n a constant)", code: "xs := make([]int, 1<<25)\nprint(len(xs))", err: "make size 33554432 is over the limit of 16777216"},
			{says: "allocations whose size is a constant over 16,777,216 (make([]T, n) or [n]T with n a constant)", code: "var big [1 << 25]byte\nprint(len(big))", err: "is over the limit of 16777216"},
			{says: "An empty search page has no element to read Total from: count(ctx, regex) gives the total.", code: "print(len(search(context, \"nomatch\")), count(context, \"ERROR\"))", out: "0 2\n"},
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
			{says: "a Map as Map(n) {k => v} and a Set as Set(n) {v} at any depth; console.log, .error, .warn and .info are print.", code: `console.error({a: [1, "x"]}, new Map([["k", 1]])); console.warn("w"); console.info("i")`, out: "{\"a\":[1,\"x\"]} Map(1) {\"k\" => 1}\nw\ni\n"},
			{says: "/x/i, /x/m and /x/s become (?i), (?m) and (?s); other flags are ignored", code: `print(count(context, /^LINE/gim), count(context, /^line/), search(context, /error/i).length)`, out: "2 1 2\nnote: count(ctx0, \"^line\") found 1 match: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^line\" (or the literal /^line/m) finds 2 matches.\n"},
			{says: "search, count, tally and grep take a regex as a string or a RegExp literal", code: `print(tally(context, /^LINE (\w+)/im).map(x => x.text + "=" + x.count).join(" "))`, out: "one=1 two=1\n"},
			{says: "call tally(context, regex) instead of splitting and counting in a loop: one call counts the whole context", code: `const t = tally(context, "line (\\w+)"); print(t.length, t[0].text, t[0].count, t[0].distinct)`, out: "2 one 1 2\n"},
			{says: "inside a literal an inline flag, /(?m)^x/, is a syntax error", code: `print(count(context, /(?m)^line/))`, err: `SyntaxError: Invalid group: a JavaScript regex literal takes no inline flags such as (?m); put the flags after it, /^x.*$/m, or pass the pattern as a string, "(?m)^x.*$"`},
			{says: "no lookaround or backreferences", code: `search(context, /(?<=line )two/)`, err: "no backreferences or lookaround"},
			{says: "search(ctx, regex, from?)", code: `const page = search(context, "ERROR", 1); print(page.length, page[0].index, page[0].total, page[0].line, page[0].line_text)`, out: "1 1 2 3 ERROR three\n"},
			{says: "a Map becomes an object (an array of [key, value] pairs if a key is not a string), a Set an array, a Date its ISO string", code: `FINAL([new Map([["a", 1]]), new Set([2]), new Date(0)])`, fin: `[{"a":1},[2],"1970-01-01T00:00:00.000Z"]`},
			{says: "FINAL(undefined) is an error", code: `FINAL(undefined)`, err: "cannot be undefined"},
			{says: "(an array of [key, value] pairs if a key is not a string)", code: `FINAL(new Map([[2026, 3], ["a", 1]]))`, fin: `[[2026,3],["a",1]]`},
			{says: "A later block may declare a top-level let or const again.", code: `const x = 1; print(x)`, out: "1\n"},
			{says: "A later block may declare a top-level let or const again.", code: `const x = "two"; print(x)`, out: "two\n"},
			{says: "A top-level declaration of another API name or of a built-in (print, context, JSON, Map, escape, …) is refused", code: `const JSON = 1`, err: `cannot declare "JSON" at the top level`},
			{says: "self, window, global, frames, module and exports only as names you declare", code: `const frames = [1]; print(frames.length)`, out: "1\n"},
			{says: "self, window, global, frames, module and exports only as names you declare", code: `print(typeof self)`, err: "global-object: use of self"},
			{says: "hides that function for the rest of the session", code: `let text = "x"; print(text)`, out: "x\n"},
			{says: "hides that function for the rest of the session", code: `text(context)`, err: "hides the API function text() for the rest of this session"},
			{says: writeNames, code: `write_file("RLM.TOML", "[backends.evil]")`, err: "rlm's own configuration file"},
			{says: writeNames, code: `write_file(".git/hooks/pre-commit", "x")`, err: `names beginning with "."`},
			{says: "the rest of the cell still runs, and a later FINAL in it replaces the answer", code: "FINAL(\"a\"); print(\"after\"); FINAL(\"b\")", out: "after\n", fin: "b"},
			{says: "(inside them undefined and functions are null, or left out of an object), a Map as Map(n) {k => v} and a Set as Set(n) {v} at any depth", code: `print([undefined, () => 1], {a: undefined, s: new Set([1])}, new Set(["x"]), undefined)`, out: "[null,null] {\"s\":Set(1) {1}} Set(1) {\"x\"} undefined\n"},
			{says: "A block's last value is not shown: print it.", code: "1 + 1", out: "note: cell.js:1:1: the value of this expression is not shown (a cell shows only what it prints); print(...) it to see it\n"},
			{says: "A search page is an array that also has total (0 on an empty page), truncated and next (the from of the next page; total on the last one).", code: `const pg = search(context, "ERROR"), none = search(context, "nomatch"); print(pg.total, pg.truncated, pg.next, none.length, none.total)`, out: "2 false 2 0 0\n"},
			{says: "browser globals do not exist (top, name, status, location, … are names like any other)", code: `let top = 1, name = "n", status = 2, location = 3; print(top, name, status, location)`, out: "1 n 2 3\n"},
			{says: "allocations whose size is a constant over 16,777,216 (new Array(n) or \"x\".repeat(n) with n a constant)", code: `const xs = new Array(1 << 25); print(xs.length)`, err: "Array size 33554432 is over the limit of 16777216"},
			{says: "allocations whose size is a constant over 16,777,216 (new Array(n) or \"x\".repeat(n) with n a constant)", code: `print("ab".repeat(20_000_000).length)`, err: "over the limit of 16777216"},
			{says: "(at 256 MiB, 3 million short strings fit, 10 million do not)", code: `const many = "w ".repeat(3_000_000).split(" "); print(many.length)`, out: "3000001\n"},
			{says: "allocations whose size is a constant over 16,777,216 (new Array(n) or \"x\".repeat(n) with n a constant)", code: `const xs = new Array(1 << 25); print(xs.length)`, err: "Array size 33554432 is over the limit of 16777216"},
			{says: "allocations whose size is a constant over 16,777,216 (new Array(n) or \"x\".repeat(n) with n a constant)", code: `print("ab".repeat(20_000_000).length)`, err: "over the limit of 16777216"},
			{says: "(at 256 MiB, 3 million short strings fit, 10 million do not)", code: `const more = "w ".repeat(10_000_000).split(" "); print(more.length)`, err: "heap passed 256"},
		},
	}
	for lang, claims := range tests {
		t.Run(lang, func(t *testing.T) {
			prompt := SystemPrompt(Config{Session: repl.Options{Lang: lang}})
			// Chunks 30: the chunk cap's error is reachable in a 36-character context.
			s, err := repl.Open(context.Background(), repl.Options{Lang: lang, Contexts: []string{ctx0, ctx1}, Workspace: ws, Worker: testWorker, CellTimeout: 20 * time.Second, Limits: engine.Limits{Chunks: 30}})
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
