package validator

import (
	"fmt"
	"go/ast"
	"slices"
)

// Values a cell can reach that are the host's own memory: the allowed packages' variables, and
// the results of the calls that return one (hostCalls, hostMethods). A cell may only read them,
// in the places below; any other use (assigned, addressed, indexed, passed on, stored, ranged
// over) is rejected, since through it the cell could write into the host's state.
//
// Read-only places: an operand of == or != and a case value; the receiver of a method that only
// reads its receiver (readOnlyMethods, by the value's type); an argument of a package function
// that neither writes through that argument nor hands it back in reach of the cell
// (readOnlyFuncs). Every other function counts as writing: json.Unmarshal(b, unicode.Letter)
// overwrote the table it was given, and slices.Insert(s, 0, unicode.Letter) would hand it back.

// argSpan is a range of argument indexes; to < 0 runs to the last argument.
type argSpan struct{ from, to int }

var allArgs = argSpan{0, -1}

func (s argSpan) has(i int) bool { return i >= s.from && (s.to < 0 || i <= s.to) }

// readOnlyFuncs are the package functions ("path.Name") that only read the listed arguments
// and keep no reference to them that the cell could reach. TestReadOnlyFuncsClassified checks
// that every function of the default packages taking a parameter a package variable could be
// passed to is listed here or in the test's list of writers.
var readOnlyFuncs = map[string]argSpan{
	"unicode.Is": allArgs, "unicode.In": allArgs, "unicode.IsOneOf": allArgs,
	"strings.ToLowerSpecial": allArgs, "strings.ToTitleSpecial": allArgs, "strings.ToUpperSpecial": allArgs,
	"bytes.ToLowerSpecial": allArgs, "bytes.ToTitleSpecial": allArgs, "bytes.ToUpperSpecial": allArgs,
	"hash/crc32.Checksum": allArgs, "hash/crc32.Update": allArgs, "hash/crc32.New": allArgs,
	"time.Date": allArgs, "time.ParseInLocation": allArgs,
	"encoding/base64.NewEncoder": {0, 0}, "encoding/base64.NewDecoder": allArgs,
	"errors.Is": allArgs, "errors.Join": allArgs, "errors.Unwrap": allArgs, "errors.As": {0, 0},
	"fmt.Print": allArgs, "fmt.Printf": allArgs, "fmt.Println": allArgs,
	"fmt.Sprint": allArgs, "fmt.Sprintf": allArgs, "fmt.Sprintln": allArgs, "fmt.Errorf": allArgs,
	"fmt.Fprint": {1, -1}, "fmt.Fprintf": {1, -1}, "fmt.Fprintln": {1, -1},
	"fmt.Append": {1, -1}, "fmt.Appendf": {1, -1}, "fmt.Appendln": {1, -1},
	"encoding/json.Marshal": allArgs, "encoding/json.MarshalIndent": {0, 0},
}

// readOnlyMethods are, by the type of a host value, the methods that only read their receiver.
// TestReadOnlyMethodsClassified checks that every type of a package variable is listed, and
// that every method it has is listed or known to write.
var readOnlyMethods = map[string][]string{
	"*encoding/base64.Encoding": {"AppendDecode", "AppendEncode", "Decode", "DecodeString",
		"DecodedLen", "Encode", "EncodeToString", "EncodedLen", "Strict", "WithPadding"},
	"*time.Location":                   {"String"},
	"error":                            {"Error"},
	"unicode.SpecialCase":              {"ToLower", "ToTitle", "ToUpper"},
	"*hash/crc32.Table":                nil,
	"*unicode.RangeTable":              nil,
	"[]*unicode.RangeTable":            nil,
	"[]unicode.CaseRange":              nil,
	"io.Writer":                        nil, // io.Discard: its Write is a write
	"map[string]*unicode.RangeTable":   nil,
	"map[string][]*unicode.RangeTable": nil,
	"map[string]string":                nil,
}

// hostCalls are package functions whose result can be the host's own memory:
// crc32.MakeTable(crc32.IEEE) returns crc32.IEEETable itself.
var hostCalls = map[string]string{"hash/crc32.MakeTable": "*hash/crc32.Table"}

// hostMethods are methods, known by name only (the validator has no types), whose result can
// be the host's own memory when called without arguments: time.Time's Location returns the
// host's time.UTC or time.Local.
var hostMethods = map[string]string{"Location": "*time.Location"}

// hostValue describes e when it is a host value: what it is, for messages, and its type.
func (g *goChecker) hostValue(e ast.Expr) (what, typ string) {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if v := g.packageVarName(e); v != "" {
			return "package variable " + v, packageVars[v]
		}
	case *ast.CallExpr:
		fun, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr)
		if !ok {
			return "", ""
		}
		if t, ok := hostCalls[g.pkgPath(fun)]; ok {
			return "the result of " + g.qualified(fun), t
		}
		if t, ok := hostMethods[fun.Sel.Name]; ok && len(e.Args) == 0 && g.qualified(fun) == "" {
			return "the result of ." + fun.Sel.Name + "()", t
		}
	}
	return "", ""
}

// packageVarName returns "path.Name" when n names an exported variable of an allowed package.
func (g *goChecker) packageVarName(n *ast.SelectorExpr) string {
	if v := g.pkgPath(n); packageVars[v] != "" {
		return v
	}
	return ""
}

// markRead records that e, if it is a host value, is only read where it stands.
func (g *goChecker) markRead(e ast.Expr) {
	if what, _ := g.hostValue(e); what != "" {
		g.readOK[ast.Unparen(e)] = true
	}
}

// readOnlyArgs marks the read-only uses of host values in a call: the receiver of a method that
// only reads it (base64.StdEncoding.EncodeToString(b)) and the arguments a package function
// only reads (unicode.Is(unicode.Han, r), errors.Is(err, io.EOF)). A host value passed to any
// other package function is reported here, with the function's name.
func (g *goChecker) readOnlyArgs(call *ast.CallExpr) {
	fun, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return
	}
	if _, typ := g.hostValue(fun.X); typ != "" && slices.Contains(readOnlyMethods[typ], fun.Sel.Name) {
		g.markRead(fun.X)
	}
	name := g.pkgPath(fun)
	if name == "" {
		return
	}
	span, known := readOnlyFuncs[name]
	for i, a := range call.Args {
		what, _ := g.hostValue(a)
		switch {
		case what == "":
		case known && span.has(i):
			g.markRead(a)
		default:
			g.c.report(g.off(a.Pos()), PackageVar, fmt.Sprintf("%s passed to %s, which may write through it or hand it back", what, g.qualified(fun)))
			g.readOK[ast.Unparen(a)] = true // reported once
		}
	}
}

// hostCall reports a call returning a host value where it is not only read.
func (g *goChecker) hostCall(n *ast.CallExpr) {
	if what, _ := g.hostValue(n); what != "" && !g.readOK[n] {
		g.c.report(g.off(n.Pos()), PackageVar, fmt.Sprintf("use of %s as a value (it can be the host's own memory); pass it directly to a function that only reads it", what))
	}
}
