package js

import (
	"strings"
	"testing"
)

// TestUnshownValueNote: a cell that ends with a bare value (as a notebook would show it) is told
// that print shows values, at the line; a cell ending in a call, an assignment or an update is
// not, nor one that failed.
func TestUnshownValueNote(t *testing.T) {
	e, _ := newEngine(t, Config{})
	for _, tc := range []struct {
		src, want string // want "" = no note
	}{
		{"1+1", "cell.js:1:1: the value of this expression is not shown"},
		{"const hits = [1, 2, 3]\nhits.length", "cell.js:2:1: the value"},
		{"const counts = new Map([['a', 1]])\ncounts", "cell.js:2:1: the value"},
		{"const s = 'x'; `${s}!`", "the value"},
		{"const o = {a: 1}; o['a']", "the value"},
		{"!true", "the value"},
		{"print(1+1)", ""},
		{"let n = 0; n += 2", ""},
		{"let i = 0; i++", ""},
		{"const obj = {a: 1}; delete obj.a", ""},
		{"FINAL(42)", ""},
		{"const x = 3", ""},
		{"for (const c of 'ab') { c }", ""},
		{"[1, 2].map(x => x * 2)", ""},
	} {
		res := run(t, e, tc.src)
		if res.Err != nil {
			t.Fatalf("%q: %v", tc.src, res.Err)
		}
		got := strings.Contains(res.Stdout, "note: ")
		if got != (tc.want != "") || !strings.Contains(res.Stdout, tc.want) {
			t.Errorf("%q printed %q; want note %q", tc.src, res.Stdout, tc.want)
		}
	}
	if res := run(t, e, "undefinedName.length"); res.Err == nil || strings.Contains(res.Stdout, "note: ") {
		t.Errorf("a failing cell: %q, %v; want the error and no note", res.Stdout, res.Err)
	}
}
