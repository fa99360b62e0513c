// Package fault defines the closed set of error kinds that every rlm layer uses: the validator,
// the engines, the tools, the model client and the controller.
//
// A Kind is itself an error, so callers test with errors.Is:
//
//	if errors.Is(err, fault.Timeout) { ... }
//
// and any error can carry a kind by wrapping it in an *Error (or by implementing Is for a Kind).
// Only cmd/rlm maps kinds to exit codes.
package fault
