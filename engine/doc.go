// Package engine holds what the Go engine (engine/golang, yaegi) and the JS engine (engine/js,
// goja) share: the boundary to the trusted host (Host), the outcome of a cell (Result), and the
// registry of the model-facing API (API), from which both engines' preludes and the system prompt
// are generated, so that the documentation cannot drift from what is enforced.
//
// Only plain data crosses the Host boundary: nil, bool, int64, float64, string, []any and
// map[string]any. Engines copy values in and out; no live host object ever reaches model code.
package engine
