package repl

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
)

// cellFile is the file name every cell is validated and compiled under, by language (see
// runners.go); positions in a cell's errors start with it.
var cellFile = map[string]string{"go": "cell.go", "js": "cell.js"}

// ExecFile runs code read from the file name as one cell, as Exec does, and names that file in
// the positions of its errors ("solve.js:3:7: ..."), where a cell typed in would say cell.js.
// The cell is still compiled under the session's cell name, so a Go file sees the imports of
// the session's earlier cells.
func (s *Session) ExecFile(ctx context.Context, name, code string) Result {
	res := s.Exec(ctx, code)
	res.Err = renameFile(res.Err, cellFile[s.opts.Lang], name)
	return res
}

// renameFile rewrites the positions "from:LINE:COL" in a cell's error to "to:LINE:COL".
func renameFile(err error, from, to string) error {
	var ce *fault.Error
	if from == "" || to == "" || !errors.As(err, &ce) {
		return err
	}
	re := regexp.MustCompile(`(^|[^\w./-])` + regexp.QuoteMeta(from) + `:(\d)`)
	repl := "${1}" + strings.ReplaceAll(to, "$", "$$") + ":${2}"
	out := *ce
	out.Msg = re.ReplaceAllString(ce.Msg, repl)
	if out.Pos.Filename == from {
		out.Pos.Filename = to
	}
	return &out
}
