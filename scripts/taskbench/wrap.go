package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// span is one top-level statement or declaration of a cell: its source and its first tokens.
type span struct {
	src  string
	toks []token.Token // the first three tokens that are not comments
	decl bool          // an import, type or func declaration (or the package clause)
}

// splitCell cuts a cell into its top-level statements and declarations, at the semicolons
// (written or inserted at line ends) outside brackets.
func splitCell(src string) ([]span, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("cell.go", -1, len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, []byte(src), func(pos token.Position, msg string) { errs.Add(pos, msg) }, scanner.ScanComments)
	var spans []span
	cur, from, depth := span{}, 0, 0
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch tok {
		case token.COMMENT:
			continue
		case token.LPAREN, token.LBRACE, token.LBRACK:
			depth++
		case token.RPAREN, token.RBRACE, token.RBRACK:
			depth--
		}
		if len(cur.toks) < 3 {
			cur.toks = append(cur.toks, tok)
		}
		if tok == token.SEMICOLON && depth == 0 {
			end := min(file.Offset(pos)+len(lit), len(src))
			cur.src = src[from:end]
			cur.decl = isDecl(cur.toks)
			spans = append(spans, cur)
			cur, from = span{}, end
		}
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	if strings.TrimSpace(src[from:]) != "" {
		spans = append(spans, span{src: src[from:]})
	}
	return spans, nil
}

// isDecl says whether a top-level span is a declaration that must stay at package level in a
// Go program: the package clause, an import, a type, or a named func (not a func literal).
func isDecl(toks []token.Token) bool {
	switch {
	case len(toks) == 0:
		return false
	case toks[0] == token.PACKAGE, toks[0] == token.IMPORT, toks[0] == token.TYPE:
		return true
	case toks[0] == token.FUNC && len(toks) > 1 && toks[1] == token.IDENT:
		return true
	}
	return false
}

var (
	packageClause = regexp.MustCompile(`(?m)^package\s+\w+\s*;?\s*$`)
	funcMain      = regexp.MustCompile(`(?m)^func\s+main\s*\(\s*\)`)
)

// wrapCell returns a cell as the file of a Go program: its declarations at package level, its
// statements in func _cellMain (a cell that is a whole program has its main renamed _cellMain),
// its imports completed and pruned (fixImports).
func wrapCell(cell string) ([]byte, error) {
	spans, err := splitCell(cell)
	if err != nil {
		return nil, fmt.Errorf("splitting the cell: %v", err)
	}
	var imps, decls, stmts strings.Builder
	hasMain := false
	for _, sp := range spans {
		switch {
		case sp.decl && sp.toks[0] == token.PACKAGE:
			decls.WriteString(packageClause.ReplaceAllString(sp.src, ""))
		case sp.decl && sp.toks[0] == token.IMPORT:
			imps.WriteString(sp.src)
		case sp.decl:
			if funcMain.MatchString(sp.src) {
				hasMain = true
				sp.src = funcMain.ReplaceAllString(sp.src, "func _cellMain()")
			}
			decls.WriteString(sp.src)
		default:
			stmts.WriteString(sp.src)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\n%s\n%s\n", imps.String(), decls.String())
	switch {
	case hasMain && strings.TrimSpace(stmts.String()) != "":
		return nil, fmt.Errorf("the cell declares func main and has statements outside it")
	case !hasMain:
		fmt.Fprintf(&b, "func _cellMain() {\n%s\n}\n", stmts.String())
	}
	return fixImports([]byte(b.String()))
}

// unusedVar is the compiler's complaint about a variable a cell declares and never uses: Go
// refuses it, rlm's engine does not.
var unusedVar = regexp.MustCompile(`(?m)^\S*cell\.go:(\d+):(\d+): declared and not used: (\w+)$`)

// useUnused makes a wrapped cell compile despite the unused variables the compiler named in
// out: `_ = x` after the statement that declares x, or _ for an unused range variable. It
// returns the new source and how many it fixed.
func useUnused(src []byte, out string) ([]byte, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", src, parser.ParseComments)
	if err != nil {
		return nil, 0, err
	}
	tf := fset.File(f.Pos())
	fixed := 0
	for _, m := range unusedVar.FindAllStringSubmatch(out, -1) {
		var line, col int
		fmt.Sscan(m[1], &line)
		fmt.Sscan(m[2], &col)
		if line < 1 || line > tf.LineCount() {
			continue
		}
		pos := tf.LineStart(line) + token.Pos(col-1)
		if useAt(f, pos, m[3]) {
			fixed++
		}
	}
	var b bytes.Buffer
	if err := format.Node(&b, fset, f); err != nil {
		return nil, 0, err
	}
	return b.Bytes(), fixed, nil
}

// useAt fixes the unused variable name declared at pos.
func useAt(f *ast.File, pos token.Pos, name string) bool {
	path, _ := astutil.PathEnclosingInterval(f, pos, pos+token.Pos(len(name)))
	for i, n := range path {
		if r, ok := n.(*ast.RangeStmt); ok {
			for _, e := range []ast.Expr{r.Key, r.Value} {
				if id, ok := e.(*ast.Ident); ok && id.Pos() == pos {
					id.Name = "_"
					if isBlank(r.Key) && (r.Value == nil || isBlank(r.Value)) {
						r.Key, r.Value, r.Tok = nil, nil, token.ILLEGAL
					}
					return true
				}
			}
		}
		stmt, ok := n.(ast.Stmt)
		if !ok || i+1 >= len(path) {
			continue
		}
		use := &ast.AssignStmt{Lhs: []ast.Expr{ast.NewIdent("_")}, Tok: token.ASSIGN, Rhs: []ast.Expr{ast.NewIdent(name)}}
		switch p := path[i+1].(type) {
		case *ast.BlockStmt:
			p.List = insertAfter(p.List, stmt, use)
			return true
		case *ast.CaseClause:
			p.Body = insertAfter(p.Body, stmt, use)
			return true
		case *ast.CommClause:
			p.Body = insertAfter(p.Body, stmt, use)
			return true
		}
	}
	return false
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func insertAfter(list []ast.Stmt, after, s ast.Stmt) []ast.Stmt {
	for i, x := range list {
		if x == after {
			return append(list[:i+1], append([]ast.Stmt{s}, list[i+1:]...)...)
		}
	}
	return list
}
