// Package source turns a Go or JS source, as written, into a parsed unit that later phases
// check (package validator) and run (the engines), or into findings that say why it cannot be.
//
// It is the first phase of the pipeline and holds the data the later phases share: the
// languages (Lang), the source as written (File, which resolves fault.Position), findings (Finding,
// List) and the parsed units (GoUnit, JSUnit).
//
// The parser never sees an unchecked source. ParseGo and ParseJS first run the pre-checks: the
// size cap, then one scan that never recurses and estimates how deeply the parser would nest
// (for JS, over every way goja may read a '/' or a '`', with goja's error recovery and its
// re-reading of arrow parameters counted), and for JS the comments that would make goja's
// parser read a file. A source that fails one is rejected unparsed. Only Options.Unchecked,
// which exists so that the layers below the validator can be tested on their own
// (rlm run --no-validate), parses without them.
//
// Positions are resolved when a finding is reported: the units keep the parser's compact
// positions (token.Pos, goja's file.Idx) and turn them into a fault.Position on demand.
package source
