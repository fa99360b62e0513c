// Package taskset is the acceptance corpus for model-written cells: whole-file tasks over
// generated inputs, each solved once in Go and once in JavaScript the way a capable model
// writes them after reading only rlm's system prompt and the first message (question, file
// sizes, head and tail previews), and an independent expected answer for each.
//
// # Tasks
//
// Each file in tasks/ is a txtar archive: header lines "question:", "inputs:" (the generated
// files, in --ctx order: the first is `context`, the second ctx1, …) and "answer:" (text,
// number or json, see Task.Check), then a "go" and a "js" section holding the cell. The cells
// were written blind, once, and are kept as written: modern Go (generics, range over int and
// over iterators, maps/slices/cmp, the occasional forgotten import, top-level := of an index
// expression) and modern JavaScript (destructuring, Map/Set, optional chaining, regex literals
// with named groups, matchAll, at, toSorted, template literals). Most read the whole input
// with a peek loop, as the prompt then made them do; some use count or search; some use
// text(ctx). Tasks 45–47 were written later, from the revised prompt alone, for questions of
// other shapes: the last match of a pattern (count, then search from the last match number),
// two context files at once (ctx0 and ctx1), and an order of events per user. A cell is never
// edited to suit rlm: a cell that rlm cannot run is the finding.
//
// # Inputs and answers
//
// Generate writes seven inputs of 1–5 MB from a seed (server.log, orders.csv, customers.csv,
// events.jsonl, crash.log, book.txt, metrics.csv): timestamped request logs with bursty user
// sessions and one needle, CSV with non-ASCII names and a join key, JSON lines with duplicate
// deliveries and optional fields, Java stack traces with nested causes, wrapped prose with
// curly quotes, and host metrics. The same seed gives the same bytes (a golden hash in
// testdata pins them). The expected answers are computed by Data.Want from the records the
// files were written from, never by parsing the files (the book's words, defined on its text,
// excepted) and never by running rlm.
//
// # The harness
//
// TestModelCells runs every cell in a fresh repl.Session with the real confined worker (the
// test binary serves as the worker): the validator, the engine, the host tools and their caps
// as `rlm run` has them. It compares the FINAL value with the expected answer and logs a
// table per language (passed first try, failed, and every failure with its message). The
// cells that fail today are listed, each with its message, in testdata/known-failures.txt: the
// test fails when a listed cell passes or fails differently, or a cell not listed fails, so a
// fix or a regression shows until the file is rewritten:
//
//	go test ./taskset -run TestModelCells -v            # the whole corpus and its table
//	go test ./taskset -run TestModelCells -update       # after a change: rewrite the list
//	go test ./taskset -short                            # the quick subset (16 cells)
package taskset
