package engine

import (
	"fmt"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/rlm-sandbox/rlm/limits"
)

// Registry is one session's model-facing API: API followed by the session's own tools (users'
// trusted functions, served by the parent). The engines build their functions from it, the
// worker and the parent dispatch by it, and the system prompt lists it, so that what a model is
// told and what the session serves come from the same entries. The global API is never changed:
// a session with tools has a Registry of its own (WithTools). A nil Registry is API.
type Registry []Func

// Funcs are the registry's functions, in the order the system prompt lists them.
func (r Registry) Funcs() []Func {
	if r == nil {
		return API
	}
	return r
}

// Lookup returns the function with the given name.
func (r Registry) Lookup(name string) (Func, bool) {
	for _, f := range r.Funcs() {
		if f.Name == name {
			return f, true
		}
	}
	return Func{}, false
}

// Tools are the registry's functions that are not API's: the session's own tools.
func (r Registry) Tools() []Func {
	fs := r.Funcs()
	return fs[min(len(API), len(fs)):]
}

// ToolParamTypes are the Go types a tool's parameter may have; JS passes the same plain values
// (a number for int and float64, a boolean, a string, an array of strings).
var ToolParamTypes = []string{"string", "int", "float64", "bool", "[]string"}

// ToolResultTypes are the Go types a tool's result may have. "any" is plain JSON-like data
// (map[string]any, []any, string, float64, bool, nil), as JS receives it.
var ToolResultTypes = []string{"string", "int", "float64", "bool", "[]string", "any"}

var toolName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// WithTools returns API followed by tools, each checked: its name is an identifier that clashes
// with nothing a cell sees in either language (the API, the preludes' names, Go's keywords and
// predeclared names, JavaScript's reserved words and standard globals, or another tool), its
// description is one line, its parameter and result types are among ToolParamTypes and
// ToolResultTypes, and it is served by the parent (InParent), counted against its own cap
// (ToolBudget) and journaled. The error says which tool and how to fix it.
func WithTools(tools []Func) (Registry, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	reg := slices.Clone(API)
	seen := map[string]bool{}
	for _, f := range tools {
		if err := checkTool(f, seen); err != nil {
			return nil, err
		}
		seen[f.Name] = true
		f.Params = slices.Clone(f.Params)
		reg = append(reg, f)
	}
	return reg, nil
}

func checkTool(f Func, seen map[string]bool) error {
	name := f.Name
	switch {
	case name == "":
		return fmt.Errorf("a tool has no name; name it as a Go and JavaScript identifier, such as lookup_order")
	case len(name) > limits.ToolNameChars || !toolName.MatchString(name):
		return fmt.Errorf("tool %q: a name is a letter then letters, digits or _, at most %d characters (such as lookup_order)", name, limits.ToolNameChars)
	case seen[name]:
		return fmt.Errorf("tool %q is declared twice; give each tool its own name", name)
	}
	if _, ok := Lookup(name); ok {
		return fmt.Errorf("tool %q clashes with rlm's API function %s; give the tool another name (such as my_%s)", name, name, name)
	}
	if why := ReservedName(name); why != "" {
		return fmt.Errorf("tool %q clashes with %s; give the tool another name (such as my_%s)", name, why, name)
	}
	if f.Doc == "" || len(f.Doc) > 2*limits.ToolDocChars || strings.IndexFunc(f.Doc, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return fmt.Errorf("tool %q: the description is one line of at most %d bytes, printable (it goes into the system prompt and the Go prelude)", name, limits.ToolDocChars)
	}
	if len(f.Params) > limits.ToolParams {
		return fmt.Errorf("tool %q has %d parameters, more than %d; take a list or fewer parameters", name, len(f.Params), limits.ToolParams)
	}
	params := map[string]bool{}
	for _, p := range f.Params {
		switch {
		case !toolName.MatchString(p.Name) || len(p.Name) > limits.ToolNameChars || token.IsKeyword(p.Name) || jsReserved[p.Name] ||
			goPredeclared[p.Name] || preludeNames[p.Name]:
			// A predeclared name (int, string) or the bridge's (rlmhost) would be shadowed in the
			// prelude function that passes the arguments on.
			return fmt.Errorf("tool %q: parameter %q is not a usable identifier in Go and JavaScript (a keyword, a predeclared or prelude name); rename it", name, p.Name)
		case params[p.Name]:
			return fmt.Errorf("tool %q: parameter %q is declared twice", name, p.Name)
		case !slices.Contains(ToolParamTypes, p.GoType):
			return fmt.Errorf("tool %q: parameter %s has type %q; a parameter's type is one of %s", name, p.Name, p.GoType, strings.Join(ToolParamTypes, ", "))
		case p.Arity != One:
			return fmt.Errorf("tool %q: parameter %s must take exactly one argument", name, p.Name)
		}
		params[p.Name] = true
	}
	if !slices.Contains(ToolResultTypes, f.Result) {
		return fmt.Errorf("tool %q: result type %q; a result's type is one of %s", name, f.Result, strings.Join(ToolResultTypes, ", "))
	}
	if f.Place != InParent || f.Budget != ToolBudget || f.Replay != Journaled {
		return fmt.Errorf("tool %q: a tool is served by the parent (InParent), counted against its own cap (ToolBudget) and journaled (Journaled)", name)
	}
	return nil
}

// ReservedName says what name is already in either language's scope of a cell, or "" if it is
// free for a tool: Go's keywords and predeclared names, the Go prelude's names, the packages a Go
// cell may import, JavaScript's reserved words and standard globals, and the JS engine's globals.
// (The engines' tests check that their own names are all listed here.)
func ReservedName(name string) string {
	switch {
	case token.IsKeyword(name):
		return "a Go keyword"
	case goPredeclared[name]:
		return "a predeclared Go name"
	case preludeNames[name] || ctxName.MatchString(name):
		return "a name of rlm's prelude (the context handles and API types)"
	case GoPackages[name]:
		return "a Go package a cell may import"
	case jsReserved[name]:
		return "a JavaScript reserved word"
	case JSGlobals[name]:
		return "a JavaScript global"
	}
	return ""
}

var ctxName = regexp.MustCompile(`^ctx[0-9]+$`)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	goPredeclared = set(`any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
		true false iota nil append cap clear close complex copy delete imag len make max min new panic print println real recover`)
	preludeNames = set(`context Context Match Slice Tally FileInfo Opts console rlmhost main init`)
	jsReserved   = set(`await break case catch class const continue debugger default delete do else enum export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield arguments eval undefined NaN Infinity`)
	// GoPackages are the last elements of the import paths a Go cell may use, and their usual
	// names; engine/golang's tests check that every allowed import is listed.
	GoPackages = set(`fmt strings strconv sort slices maps math bits cmplx rand big regexp syntax unicode utf8 utf16 bytes errors time json csv xml hex base64 base32 sha256 sha1 sha512 md5 crc32 fnv adler32 hash heap list ring container encoding path filepath iter cmp bufio io html template text tabwriter scanner sync atomic context url mime unsafe os reflect runtime`)
	// JSGlobals are the global names of a JS cell before it runs: ECMAScript's and the engine's
	// own; engine/js's tests check that every global of a fresh engine is listed.
	JSGlobals = set(`globalThis Object Function Array Number String Boolean Symbol BigInt Date RegExp Error EvalError RangeError ReferenceError SyntaxError TypeError URIError AggregateError
		Math JSON Reflect Proxy Promise Map Set WeakMap WeakSet WeakRef FinalizationRegistry ArrayBuffer SharedArrayBuffer DataView Atomics
		Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float32Array Float64Array BigInt64Array BigUint64Array
		parseInt parseFloat isNaN isFinite decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape Iterator Intl
		setTimeout setInterval clearTimeout clearInterval queueMicrotask structuredClone require module exports process global window self`)
)
