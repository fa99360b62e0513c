// Package typecheck is the typed front end of rlm's Go engine. It type-checks each cell with
// go/types before the interpreter sees it, against the declarations of the session's earlier
// cells and the packages cells may import, so that:
//
//   - a cell that would not compile gets gc's own errors (undefined: foo, cannot use x (variable
//     of type int) as string value in assignment, ...) at its positions as written, never the
//     interpreter's internals;
//   - a package the cell uses but does not import is imported, goimports-style (Cell.Added);
//   - the engine can rewrite what the interpreter mishandles using the inferred types
//     (Cell.Info, Cell.TypeExpr).
//
// # Type information
//
// The packages' type information ships inside the binary: a Library decodes the export data
// embedded from exportdata/ (generated from the Go toolchain by the engine's go generate, one
// file per package, checked for staleness by a test) on a package's first import, and
// type-checks packages given as source (the interpreted generic packages, the host bridge) on
// theirs. Nothing reads a file or needs a Go toolchain at run time.
//
// # Sessions
//
// Each cell is checked as a package main of its own whose scope holds the objects of the
// prelude and the earlier cells (a later declaration of a name replaces the earlier one, as in
// the interpreter). A snippet's top-level statements are checked as the body of a function; the
// variables they define become package-level variables of the session when the cell commits.
//
// Errors a REPL should not stop for are dropped: declared and not used (a top-level variable
// persists; an unused one inside a function is harmless), imported and not used (imports
// persist per file), unused labels. Everything else gc reports stops the cell, at most ten
// errors as gc reports them. The interpreter keeps the first definition of a type and its
// methods for the whole session, so a changed type or method, or a method added to an earlier
// cell's type, is an error that says so; a word-for-word repeat is dropped.
//
// # Not a security layer
//
// The validator's allow-list and the interpreter's symbol table decide what runs. The checker
// only imports packages the policy allows, adds imports of allowed packages only, under their
// own names, and shows of a compiled package only the symbols the interpreter has; a cell is
// validated before it is checked. A panic inside go/types is recovered and reported as an
// internal error. Its work is bounded: the validator limits a cell's size (128 KB), nesting and
// constant sizes (a doubling string constant), and the checker refuses generic types that
// would nest exponentially deep when instantiated (bound.go), which overflowed go/types' stack,
// a fatal error no recover stops. The largest cell the validator accepts checks in about
// 0.1 s.
package typecheck
