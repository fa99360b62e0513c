// Package desugar is the Go engine's last phase before compilation. It rewrites the validated
// and type-checked AST of a cell, in place, so that modern Go which yaegi v0.16.1 rejects or
// runs wrongly behaves as the Go spec says. It decides from the types go/types inferred (typecheck.Cell), never by guessing:
//
//   - a snippet's top-level variables (x := f()[0], var n = len(xs)) are declared with their
//     type written out and assigned by a plain statement: yaegi's global type analysis fails
//     on := whose type comes from an index or a call ("constant definition loop") and gives a
//     package-level variable initialised by a generic call its zero value;
//   - calls of generic functions get their type arguments written out: yaegi infers type
//     arguments positionally, cannot infer from compiled functions, and fails on variadic type
//     parameters ("undefined type for T"); one argument as F[A], and a composite literal's
//     element that calls F[A, B] converted to its type (yaegi takes both otherwise for a generic
//     type: "not a generic type");
//   - for i := range n (an integer) becomes a counting loop, and a range over a string a loop
//     that decodes UTF-8 in linear time (yaegi's own is quadratic);
//   - ranging over an iterator function (range-over-func) becomes a call of the iterator with
//     the loop body as the yield function (break, continue, return, goto and jumps to an outer
//     loop work as in Go); a body that defers a call ranges over the values collected first;
//   - a func literal handed to a compiled strings or bytes function as a func(rune) bool
//     (FieldsFunc, IndexFunc, TrimFunc, …) that only tests its rune against constants, unicode
//     classes and strings.ContainsRune of a constant becomes the native predicate of
//     engine/golang/runepred (_runePred): yaegi calls a literal back through reflect, about
//     1 µs per character;
//   - a statement sort.Slice(S, lit), sort.SliceStable, slices.SortFunc or SortStableFunc whose
//     comparator literal only compares keys of the two elements (fields, lengths, values in a
//     map variable, the elements) is preceded by a native sort with a spec of
//     engine/golang/sortspec (_sortBy), which gives the order the literal gives; the statement
//     runs as written only when the host declines (sortcmp.go);
//   - min and max of constants are folded (Go makes them constants), of variables they call
//     generic prelude helpers; clear calls a host shim;
//   - loop variables captured by closures get a fresh copy per iteration (Go 1.22 semantics);
//   - deferred calls get their arguments evaluated at the defer statement;
//   - a snippet's top-level loops, ifs and switches run inside a function literal, where
//     yaegi compiles `n, err := f()` and friends correctly (at top level it does not);
//   - print becomes fmt.Println, and the values printing calls get in interfaces, slices and
//     maps are boxed so that the String and Error methods of the cell's types run (yaegi drops
//     the methods there; see box.go);
//   - a value of the cell's types converted implicitly to the empty interface (in a composite
//     literal, by append) is converted explicitly, which yaegi stores right;
//   - errors.As and errors.Is also see interpreted error types;
//   - a whole program's main is renamed, and called once by the engine.
//
// Names the pass introduces start with "_", which model code cannot use while the validator is
// on. A construct whose types cannot be written at its place (a type of a package the file
// does not import) is left as it is.
package desugar
