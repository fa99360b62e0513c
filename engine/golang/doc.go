// Package golang is rlm's Go engine: it runs model-written Go cells with yaegi (v0.16.1), in
// process. It is meant to run inside the confined worker process; a crash of the process (which
// yaegi cannot prevent: a panic in a goroutine, a stack overflow, a huge allocation) is handled
// there, not here.
//
// # Pipeline
//
// The caller validates each cell with the engine's own FileSet,
//
//	res, _ := validator.Validate(validator.Go, "cell.go", src, policy, validator.GoFileSet(e.FileSet()))
//	result := e.Exec(ctx, res.Go)
//
// and Exec desugars the parsed unit (desugar*.go), compiles it with CompileAST and runs it with
// ExecuteWithContext, recovering every panic. A whole program has its main renamed and called
// once; a snippet's declarations run first, then its statements, which run at top level so that
// their variables persist into later cells. Cells of one engine share one package main: later
// cells see earlier variables, functions, types and (with the same file name) imports.
//
// # What model code sees
//
// Only an allow-list, function by function: the packages of the validator's policy, generated
// into symbols_gen.go from the toolchain's sources minus the policy's denied symbols (fmt.Scan*,
// time.Sleep, ...), never yaegi's stdlib.Symbols. Package variables are deep copies made per
// engine, so model code cannot change host state through them. The generic packages cmp, maps
// and slices are interpreted sources (packages.go). Packages are registered on first import.
//
// The model API (length, peek, search, count, chunk, llm_query, ..., FINAL, FINAL_VAR, print) is
// a trusted prelude generated from engine.API. Each function calls the host through one bridge,
// rlmhost.Call, which copies arguments into plain data, asks engine.Host, and copies the result
// back into the prelude's types (Context, Match, Slice, FileInfo). A host error unwinds model
// code as a panic carrying the host's message; FINAL is serialised host-side (a string as it is,
// anything else as JSON). The bridge is harmless when called directly: the host checks
// everything.
//
// # Limits of yaegi that remain
//
//   - type redeclaration across cells keeps the first definition of a type;
//   - maps of interpreted interface values (map[string]Shape), and such values inside structs,
//     print yaegi's internal representation (slices of them, and the values themselves, print
//     through their String and Error methods);
//   - a top-level := from a generic call whose result type cannot be written (a generic struct,
//     an interface type declared by the cell) needs an explicit `var x T` first;
//   - panic positions are those of the top-level statement running (yaegi's own are
//     approximate);
//   - cancelling a cell stops interpreted code at its next step, but not a native call in
//     progress (strings.Repeat of 2 GiB, a long regexp match); when such a call returns after a
//     later cell has started, the old cell stops before its next top-level statement, but the
//     rest of the statement in progress (an assignment) still runs. The worker's hard deadline
//     is the backstop.
package golang
