package validator

import (
	"slices"

	"github.com/rlm-sandbox/rlm/source"
)

// Rule identifies a check: source.Rule, whose findings of the parse and its pre-checks (syntax,
// size, depth, source-map) package source reports. Each rule belongs to one class of the escape
// taxonomy per language (SECURITY.md, corpus/README.md).
type Rule = source.Rule

// The policy's rules. Rules shared by both languages (underscore, alloc-size, hang) have a class
// in each.
const (
	Underscore Rule = "underscore" // G9 J10
	AllocSize  Rule = "alloc-size" // G10 J14
	Hang       Rule = "hang"       // G12 J15

	ImportDenied  Rule = "import-denied"  // G1
	PackageDenied Rule = "package-denied" // G1
	ImportForm    Rule = "import-form"    // G2
	Directive     Rule = "directive"      // G3
	Goroutine     Rule = "goroutine"      // G4
	DeniedCall    Rule = "denied-call"    // G5
	DeniedSymbol  Rule = "denied-symbol"  // G6
	PackageVar    Rule = "package-var"    // G7
	InitFunc      Rule = "init-func"      // G8

	Evaluator      Rule = "evaluator"       // J1
	Reflection     Rule = "reflection"      // J2
	GlobalObject   Rule = "global-object"   // J3
	HostAccess     Rule = "host-access"     // J4
	With           Rule = "with"            // J5
	MemberDenied   Rule = "member-denied"   // J6
	ComputedMember Rule = "computed-member" // J7
	EscapedName    Rule = "escaped-name"    // J8
	PatternDenied  Rule = "pattern-denied"  // J9
	Prototype      Rule = "prototype"       // J12
	RegexBacktrack Rule = "regex-backtrack" // J15
)

// ruleInfo is everything written once per rule: its class in each language and the advice that
// ends every message of that rule.
type ruleInfo struct {
	goClass, jsClass string
	advice           string
}

var rules = map[Rule]ruleInfo{
	Underscore: {"G9", "J10", "names starting with _ are reserved for the host; rename it"},
	AllocSize:  {"G10", "J14", "allocate less; process the input in chunks with peek, search or chunk"},
	Hang:       {"G12", "J15", "give the loop an exit (a break, return or bound)"},

	ImportDenied:  {"G1", "", "only the allow-listed pure packages can be imported (rlm validate --policy lists them); use the session tools (peek, search, read_file, write_file) for I/O"},
	PackageDenied: {"G1", "", "use an allow-listed package (rlm validate --policy lists them), or the session tools (peek, search, read_file, write_file) for I/O"},
	ImportForm:    {"G2", "", "import an allow-listed package by its plain path, without a name: import \"strings\""},
	Directive:     {"G3", "", "remove the directive; compiler and interpreter directives are not allowed"},
	Goroutine:     {"G4", "", "run the work sequentially, or use llm_query_batched for concurrent sub-calls"},
	DeniedCall:    {"G5", "", "this function cannot run in the sandbox; see rlm validate --policy for the denied symbols"},
	DeniedSymbol:  {"G6", "", "this symbol cannot be used in the sandbox, even as a value or type"},
	PackageVar:    {"G7", "", "package variables are read-only; copy the value into a local variable instead"},
	InitFunc:      {"G8", "", "do the set-up in ordinary statements; func init is not allowed"},

	Evaluator:      {"", "J1", "write the code directly; eval and Function are not available"},
	Reflection:     {"", "J2", "use plain objects, arrays, Map and Set instead"},
	GlobalObject:   {"", "J3", "refer to the API functions by name (peek, search, print, ...)"},
	HostAccess:     {"", "J4", "there is no Node.js host here; use the session API (peek, search, read_file, write_file, llm_query)"},
	With:           {"", "J5", "name the object explicitly instead of using with"},
	MemberDenied:   {"", "J6", "this property is not accessible in the sandbox; use Object.keys, Object.entries, classes or plain functions instead"},
	ComputedMember: {"", "J7", "this property is not accessible in the sandbox, even through a computed key"},
	EscapedName:    {"", "J8", "write names plainly; escaped spellings of denied names are rejected"},
	PatternDenied:  {"", "J9", "this property cannot be destructured in the sandbox"},
	Prototype:      {"", "J12", "do not change or walk prototypes; use classes or Object.assign on plain objects"},
	RegexBacktrack: {"", "J15", "rewrite the regex without backreferences or nested quantifiers (e.g. (a+)+ -> a+)"},
}

// class returns the policy rule's taxonomy class in language l.
func class(r Rule, l source.Lang) string {
	if l == source.JS {
		return rules[r].jsClass
	}
	return rules[r].goClass
}

// Rules lists every rule id in order, the policy's and package source's, for documentation.
func Rules() []Rule {
	out := source.Rules()
	for r := range rules {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// message is the one place a finding's text is written: the specific detail, then the advice.
func message(r Rule, detail string) string {
	return detail + "; " + rules[r].advice
}

// deniedHints say why a package models often reach for is not needed: the fix, not the rule.
var deniedHints = map[string]string{
	"sync":      "cells run on one goroutine, so nothing needs a lock or a WaitGroup: drop it",
	"os":        "read the context with peek, search, text or chunk, and files with read_file",
	"io/ioutil": "read files with read_file",
	"ioutil":    "read files with read_file",
	"net/http":  "there is no network; ask a model with llm_query",
	"http":      "there is no network; ask a model with llm_query",
	"log":       "print with print or fmt.Println",
}

// deniedHint is "" or "; " and the hint for a denied package, by path or name.
func deniedHint(pkg string) string {
	if h, ok := deniedHints[pkg]; ok {
		return "; " + h
	}
	return ""
}
