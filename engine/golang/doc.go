// Package golang is rlm's Go engine: it runs model-written Go cells with yaegi (v0.16.1), in
// process. It is meant to run inside the confined worker process; a crash of the process (which
// yaegi cannot prevent: a panic in a goroutine, a stack overflow, a huge allocation) is handled
// there, not here.
//
// # Pipeline
//
// The caller parses each cell into the engine's own FileSet, as a unit of package source, and
// validates it (the worker calls validator.Validate with validator.GoFileSet(e.FileSet()), which
// parses with source.ParseGo and source.Options.FileSet set),
//
//	res, _ := validator.Validate(source.Go, "cell.go", src, policy, validator.GoFileSet(e.FileSet()))
//	result := e.Exec(ctx, res.Go)
//
// and Exec type-checks the parsed unit with go/types against the session (package typecheck:
// gc's errors at the cell's positions, missing imports of allowed packages added and announced
// first in the output as `added import "strings"`), desugars it using the inferred types
// (package desugar), compiles it with CompileAST and runs it with ExecuteWithContext, recovering
// every panic. A whole program has its main renamed and called once; a snippet's declarations
// run first, then its statements, which run at top level so that their variables persist into
// later cells. Cells of one engine share one package main: later cells see earlier variables,
// functions, types and (with the same file name) imports. ExecUnchecked skips the type check,
// to test the interpreter and the layers below it alone.
//
// The API's print formats as fmt.Println does (a call of print is made a call of fmt.Println,
// whose arguments yaegi passes with their methods), and so does fmt for values of the cell's
// types held in interfaces, slices and maps (desugar/box.go).
//
// # What model code sees
//
// Only an allow-list, function by function: the packages of the validator's default policy,
// generated into symbols_gen.go from the toolchain's sources minus the policy's denied symbols
// (fmt.Scan*, time.Sleep, ...), never yaegi's stdlib.Symbols. The engine links no validator:
// the generated tables are its allow-list, and tests hold them to the policy. Package variables are deep copies made per
// engine, so model code cannot change host state through them; nor through what compiled code
// hands out as its own (hostmem.go): crc32.MakeTable returns a copy, and a time.Location, which
// time.Time's Location returns as the host's UTC or Local, is never written in place (the type
// checker's types tell). The generic packages cmp, maps
// and slices are interpreted sources (packages.go). Packages are registered on first import.
//
// The model API (length, peek, search, count, tally, chunk, llm_query, ..., FINAL, FINAL_VAR, print) is
// a trusted prelude generated from the session's registry (Config.API: engine.API and the
// session's own tools, rlm.Tool). Each function calls the host through one bridge,
// rlmhost.Call, which copies arguments into plain data, asks engine.Host, and copies the result
// back into the prelude's types (Context, Match, Slice, Tally, FileInfo). A host error unwinds model
// code as a panic carrying the host's message; FINAL is serialised host-side (a string as it is,
// anything else as JSON). The bridge is harmless when called directly: the host checks
// everything.
//
// # Limits of yaegi that remain
//
//   - a type and its methods keep their first definition for the session: the checker refuses
//     a changed type or method, and a method added to an earlier cell's type, saying so;
//   - values of the cell's types inside struct fields, and as map keys, print without their
//     String and Error methods (Go calls them), and %T prints yaegi's wrapper type for them;
//   - a generic function returning a generic struct type it instantiates with its own type
//     parameters, sorted with slices.SortFunc, does not compile in yaegi;
//   - a top-level variable whose type cannot be written in the cell's file (a type of a
//     package the file does not import, such as hash.Hash) keeps its := form, which yaegi
//     types itself (and fails on for an index of a call's result);
//   - panic positions are those of the top-level statement running (yaegi's own are
//     approximate);
//   - cancelling a cell stops interpreted code at its next step, but not a native call in
//     progress (strings.Repeat of 2 GiB, a long regexp match); when such a call returns after a
//     later cell has started, the old cell stops before its next top-level statement, but the
//     rest of the statement in progress (an assignment) still runs. The worker's hard deadline
//     is the backstop.
package golang
