package repl

import (
	"strings"
	"testing"
)

// TestAnchoredRegexGetsANote: a search or count whose ^ anchors the whole text and finds fewer
// matches than (?m) would (none, or only the first line's) gets a note after the cell's output
// that names (?m) and what it would find; one that used (?m), or whose anchor finds all there
// is, gets none. Both languages.
func TestAnchoredRegexGetsANote(t *testing.T) {
	for _, c := range []struct{ lang, code string }{
		{"js", `print(count(context, "^\\S+ ERROR"), search(context, "^\\S+ ERROR").length)`},
		{"go", "print(count(context, `^\\S+ ERROR`), len(search(context, `^\\S+ ERROR`)))"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			s := open(t, realOptions(t, c.lang))
			r := run(t, s, c.code)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
			if len(lines) != 3 || lines[0] != "0 0" ||
				!strings.HasPrefix(lines[1], `note: count(ctx0, "^\\S+ ERROR") found nothing: ^ and $ match only at the start and end of the whole context; with (?m) in front`) ||
				!strings.HasPrefix(lines[2], `note: search(ctx0, `) {
				t.Fatalf("output:\n%s\nwant 0 0 and a note for count and for search", r.Stdout)
			}
			if testing.Verbose() {
				t.Log(r.Stdout)
			}
			want := `"(?m)^\\S+ ERROR" finds 9 matches.`
			if c.lang == "js" { // a JS cell may write a RegExp literal: the note names that form too
				want = `"(?m)^\\S+ ERROR" (or the literal /^\S+ ERROR/m) finds 9 matches.`
			}
			if !strings.Contains(lines[1], want) {
				t.Errorf("note %q does not say what (?m) finds, as %s", lines[1], want)
			}
			first := run(t, s, strings.ReplaceAll(`print(count(context, "^2026"))`, `"`, litQuote(c.lang)))
			if !strings.HasPrefix(first.Stdout, "1\nnote: count(ctx0, \"^2026\") found 1 match: ") || !strings.Contains(first.Stdout, "finds 120 matches.") {
				t.Errorf("the first line's match: output %q; want a note that (?m) finds every line", first.Stdout)
			}
			for _, code := range []string{`print(count(context, "(?m)^\\S+ ERROR") > 0)`, `print(count(context, "^2026-11-01T10:00:00Z INFO"))`} {
				code = strings.ReplaceAll(code, `"`, litQuote(c.lang))
				if r := run(t, s, code); r.Err != nil || strings.Contains(r.Stdout, "note:") {
					t.Errorf("%s: output %q, err %v; want no note", code, r.Stdout, r.Err)
				}
			}
		})
	}
}

// litQuote is the quote a cell's regex literal takes: Go's raw strings keep backslashes as JS's
// double quotes do after the test's own escaping.
func litQuote(lang string) string {
	if lang == "go" {
		return "`"
	}
	return `"`
}

// TestAnchoredCheckedOncePerCell: a loop calling count with the same anchored regex gets one
// note, and the regex is checked again with (?m) once per cell, not once per call.
func TestAnchoredCheckedOncePerCell(t *testing.T) {
	s := open(t, realOptions(t, "js"))
	r := run(t, s, `let n = 0; for (let i = 0; i < 200; i++) { n += count(context, "^\\S+ ERROR") } print(n)`)
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if got := strings.Count(r.Stdout, "note: count("); got != 1 {
		t.Errorf("output %q has %d notes; want 1", r.Stdout, got)
	}
	if r = run(t, s, `print(count(context, "^\\S+ ERROR"))`); !strings.Contains(r.Stdout, "note: count(") {
		t.Errorf("the next cell's output %q has no note; want the check made again in a new cell", r.Stdout)
	}
}
