package repl

import (
	"errors"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

func TestRenameFile(t *testing.T) {
	tests := []struct{ msg, pos, wantMsg, wantPos string }{
		{"cell.js:1:1: evaluator: use of eval", "cell.js:1:1", "dir/solve.js:1:1: evaluator: use of eval", "dir/solve.js:1:1"},
		{"cell.js:1:1: a\ncell.js:2:5: b", "", "dir/solve.js:1:1: a\ndir/solve.js:2:5: b", ""},
		{"Uncaught Error: see mycell.js:3 and cell.js:x", "", "Uncaught Error: see mycell.js:3 and cell.js:x", ""},
		{"at (cell.js:4:2)", "", "at (dir/solve.js:4:2)", ""},
	}
	for _, tc := range tests {
		err := renameFile(&CellError{Kind: fault.Code, Msg: tc.msg, Pos: tc.pos}, "cell.js", "dir/solve.js")
		var ce *CellError
		if !errors.As(err, &ce) || ce.Msg != tc.wantMsg || ce.Pos != tc.wantPos || !errors.Is(err, fault.Code) {
			t.Errorf("renameFile(%q) = %v; want %q at %q, kind code", tc.msg, err, tc.wantMsg, tc.wantPos)
		}
	}
	// A file name with $ is written as it is, and other errors pass unchanged.
	if err := renameFile(&CellError{Msg: "cell.go:1:2: x"}, "cell.go", "$1.go"); err.Error() != "$1.go:1:2: x" {
		t.Errorf("got %q", err)
	}
	plain := errors.New("cell.go:1:1: not a cell error")
	if renameFile(plain, "cell.go", "x.go") != plain {
		t.Error("a non-cell error was changed")
	}
}
