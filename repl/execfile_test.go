package repl

import (
	"errors"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestRenameFile(t *testing.T) {
	at := func(file string, line, col int) fault.Position {
		return fault.Position{Filename: file, Line: line, Column: col}
	}
	tests := []struct {
		msg          string
		pos          fault.Position
		want         string // the renamed error's text
		wantFilename string
	}{
		{"evaluator: use of eval", at("cell.js", 1, 1), "dir/solve.js:1:1: evaluator: use of eval", "dir/solve.js"},
		{"cell.js:1:1: a\ncell.js:2:5: b", fault.Position{}, "dir/solve.js:1:1: a\ndir/solve.js:2:5: b", ""},
		{"Uncaught Error: see mycell.js:3 and cell.js:x", fault.Position{}, "Uncaught Error: see mycell.js:3 and cell.js:x", ""},
		{"at (cell.js:4:2)", fault.Position{}, "at (dir/solve.js:4:2)", ""},
		{"b", at("other.js", 2, 3), "other.js:2:3: b", "other.js"},
	}
	for _, tc := range tests {
		err := renameFile(&fault.Error{Kind: fault.Code, Msg: tc.msg, Pos: tc.pos}, "cell.js", "dir/solve.js")
		var ce *fault.Error
		if !errors.As(err, &ce) || err.Error() != tc.want || ce.Pos.Filename != tc.wantFilename || !errors.Is(err, fault.Code) {
			t.Errorf("renameFile(%q at %v) = %v (file %q); want %q in file %q, kind code", tc.msg, tc.pos, err, ce.Pos.Filename, tc.want, tc.wantFilename)
		}
	}
	// A file name with $ is written as it is, and other errors pass unchanged.
	if err := renameFile(&fault.Error{Msg: "cell.go:1:2: x"}, "cell.go", "$1.go"); err.Error() != "$1.go:1:2: x" {
		t.Errorf("got %q", err)
	}
	plain := errors.New("cell.go:1:1: not a cell error")
	if renameFile(plain, "cell.go", "x.go") != plain {
		t.Error("a non-cell error was changed")
	}
}
