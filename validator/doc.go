// Package validator checks a parsed Go or JS unit against the sandbox policy (Policy): the
// imports, names, members, directives, allocations and loops that the escape taxonomy lists
// (SECURITY.md), each finding with its position, rule, class and a message that says what to do
// instead.
//
// Validate is the whole layer: it parses with package source, under the policy's size and depth
// limits (the parser never sees a source that fails source's pre-checks), then runs the checks
// over the unit, and returns the findings and the unit that the engines run. Parsing, positions
// and the Finding and List types are package source's; this package adds the policy's rules.
package validator
