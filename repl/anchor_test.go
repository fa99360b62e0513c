package repl

import (
	"strings"
	"testing"
)

func TestTextAnchored(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{`^2026-11-01T10:00:06Z ERROR`, true},
		{`ERROR$`, true},
		{`(?m)^ERROR`, false},
		{`ERROR`, false},
		{`[^a]ERROR`, false},
		{`\$5`, false},
		{`(`, false},
		{`a|^b`, true},
	} {
		if got := textAnchored(c.pattern); got != c.want {
			t.Errorf("textAnchored(%q) = %v; want %v", c.pattern, got, c.want)
		}
	}
}

// TestAnchoredRegexGetsANote: a search or count whose ^ anchors the whole text and finds
// nothing gets a note after the cell's output that names (?m) and what it would find; one that
// finds something, or that used (?m), gets none. Both languages.
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
			if !strings.Contains(lines[1], `"(?m)^\\S+ ERROR" finds 9 matches.`) {
				t.Errorf("note %q does not say what (?m) finds", lines[1])
			}
			for _, code := range []string{`print(count(context, "(?m)^\\S+ ERROR") > 0)`, `print(count(context, "^2026"))`} {
				if c.lang == "go" {
					code = strings.ReplaceAll(strings.ReplaceAll(code, `"(?m)^\\S+ ERROR"`, "`(?m)^\\S+ ERROR`"), `"^2026"`, "`^2026`")
				}
				if r := run(t, s, code); r.Err != nil || strings.Contains(r.Stdout, "note:") {
					t.Errorf("%s: output %q, err %v; want no note", code, r.Stdout, r.Err)
				}
			}
		})
	}
}
