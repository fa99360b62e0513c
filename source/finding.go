package source

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rlm-sandbox/rlm/fault"
)

// Rule identifies the check behind a finding. Each rule belongs to one class of the escape
// taxonomy per language (SECURITY.md, corpus/README.md). The rules below are this package's:
// the parser's and the pre-checks'; package validator adds the policy's.
type Rule string

// The rules of the parse and its pre-checks.
const (
	Syntax    Rule = "syntax"     // the source does not parse
	Size      Rule = "size"       // G11 J13
	Depth     Rule = "depth"      // G11 J13
	SourceMap Rule = "source-map" // J11
)

// ruleInfo is everything written once per rule: its class in each language and the advice that
// ends every message of that rule.
type ruleInfo struct {
	goClass, jsClass string
	advice           string
}

var rules = map[Rule]ruleInfo{
	Syntax:    {"", "", "fix the syntax error"},
	Size:      {"G11", "J13", "split the work into smaller cells"},
	Depth:     {"G11", "J13", "flatten the code: use intermediate variables instead of deep nesting"},
	SourceMap: {"", "J11", "remove the sourceMappingURL/sourceURL comment"},
}

// Rules lists this package's rules in order, for documentation.
func Rules() []Rule {
	out := make([]Rule, 0, len(rules))
	for r := range rules {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// Finding is one reason a source is rejected: a syntax error, a failed pre-check, or (from
// package validator) a policy violation.
type Finding struct {
	Pos     fault.Position `json:"pos"`
	Rule    Rule           `json:"rule"`
	Class   string         `json:"class,omitempty"` // taxonomy class, e.g. "G1" or "J7"; empty for syntax errors
	Message string         `json:"message"`         // what is wrong, and what to do instead
}

// Error formats f as FILE:LINE:COL: RULE: message.
func (f Finding) Error() string {
	return fmt.Sprintf("%s: %s: %s", f.Pos, f.Rule, f.Message)
}

// List is a sorted list of findings. A non-empty List is an error of kind fault.Rejected.
type List []Finding

func (l List) Error() string {
	switch len(l) {
	case 0:
		return "no findings"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more findings)", l[0].Error(), len(l)-1)
}

// Is makes errors.Is(list, fault.Rejected) true.
func (l List) Is(target error) bool { return target == fault.Rejected }

// Sort orders l by offset in the source, keeping the order of findings at one offset.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.Offset < l[j].Pos.Offset })
}

// pass collects the findings of one parse, each once.
type pass struct {
	lang  Lang
	file  *File
	found List
	seen  map[string]bool
}

func newPass(lang Lang, filename string, src []byte) *pass {
	return &pass{lang: lang, file: NewFile(filename, src), seen: map[string]bool{}}
}

// report records a finding of rule r at byte offset off of the source as written: the detail,
// then the rule's advice.
func (p *pass) report(off int, r Rule, detail string) {
	class := rules[r].goClass
	if p.lang == JS {
		class = rules[r].jsClass
	}
	f := Finding{Pos: p.file.Position(off), Rule: r, Class: class, Message: detail + "; " + rules[r].advice}
	if key := f.Error(); !p.seen[key] {
		p.seen[key] = true
		p.found = append(p.found, f)
	}
}

// err returns the findings as a sorted List, or nil when there are none.
func (p *pass) err() error {
	if len(p.found) == 0 {
		return nil
	}
	p.found.Sort()
	return p.found
}
