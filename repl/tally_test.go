package repl

import "testing"

// TestTallyAsModelsWriteIt: tally, written as models write a frequency question, in both
// languages, through the real engines and the worker's native scan.
func TestTallyAsModelsWriteIt(t *testing.T) {
	const text = "the cat The dog the end\nuser=ann user=bob user=ann\n"
	runCases(t, []cellCase{
		{"top words, (?i)", "go", "top := tally(context, `(?i)\\b\\w+\\b`)\nfor _, t := range top[:3] {\n\tprint(t.Text, t.Count)\n}\nprint(len(top), top[0].Distinct)",
			"the 3\nuser 3\nann 2\n7 7\n", ""},
		{"a capture group, printed", "go", "users := tally(context, `user=(\\w+)`)\nprint(users)\nvar ts []Tally = users\nprint(len(ts))", "[{ann 2 2} {bob 1 2}]\n2\n", ""},
		{"no match", "go", "print(len(tally(context, `\\d+`)))", "0\n", ""},
		{"anchored note", "go", "print(len(tally(context, `^user=(\\w+)`)))", "0\nnote: tally(ctx0, \"^user=(\\\\w+)\") found nothing: ^ and $ match only at the start and end of the whole context; with (?m) in front they match at each line, and \"(?m)^user=(\\\\w+)\" finds 1 match.\n", ""},
		{"invalid regex", "go", "tally(context, `(?<=a)b`)", "", "no backreferences or lookaround"},
		{"a RegExp literal with /i", "js", "const t = tally(context, /\\w+/i); print(t.slice(0,3).map(x => `${x.text}=${x.count}`).join(\" \"))", "the=3 user=3 ann=2\n", ""},
		{"a capture group, printed", "js", `print(tally(context, "user=(\\w+)"))`, `[{"text":"ann","count":2,"distinct":2},{"text":"bob","count":1,"distinct":2}]` + "\n", ""},
		{"a Map from it", "js", `const m = new Map(tally(context, /\b[a-z]{3}\b/).map(x => [x.text, x.count])); print(m.get("the"), m.size)`, "2 6\n", ""},
		{"invalid regex", "js", `tally(context, "(")`, "", "invalid regular expression"},
		{"a variable named tally hides it", "js", `let tally = {}; tally.x = 1; print(tally.x)`, "1\n", ""},
	}, text)
}
