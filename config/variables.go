package config

import (
	"fmt"
	"slices"
	"strings"
)

// envVar is an environment variable rlm reads that sets no key of [defaults] or [limits] (the
// keys' own variables are in specs).
type envVar struct {
	name, doc string
	// internal: rlm sets it for the processes it starts (a worker, a sub-run); it is never
	// suggested for a misspelt name.
	internal bool
}

// envVars are the variables that set no key. With specs' variables they are every variable
// named RLM_ or SFA_ that rlm reads: Variables lists them (rlm config --keys), and
// UnknownVariables warns about any other name of that form. TestVariablesAreListed checks that
// every such name the code spells is one of them.
var envVars = []envVar{
	{"RLM_HOME", "the directory of rlm's configuration, trust store and records (default ~/.rlm)", false},
	{"RLM_BASE_URL", "the default backend's URL, before OPENAI_BASE_URL (ANTHROPIC_BASE_URL)", false},
	{"RLM_API_KEY", "the default backend's API key, before OPENAI_API_KEY (ANTHROPIC_API_KEY)", false},
	{"RLM_MCP_TOKEN", "the bearer token rlm mcp --http requires (at least 32 characters)", false},
	{"RLM_RETRY_BACKOFF", "the backoff before the first retry of a failed model call (a duration: 1s)", false},
	{"RLM_MIN_FREE_MB", "the free disk space a run needs in RLM_HOME, in MB (default 100)", false},
	{"SFA_MAX_DEPTH", "the deepest --max-depth may go (default 5)", false},
	{"SFA_NO_LOG", "1: write no daily log (as --no-log)", false},
	{"SFA_DEPTH", "a sub-run's depth (rlm sets it)", true},
	{"SFA_CALL_CHAIN", "the agents above a sub-run (rlm sets it)", true},
	{"RLM_SANDBOX_CONFIG", "a worker's configuration (rlm sets it)", true},
}

// testPrefix: variables named so belong to rlm's test suite and scripts, not to rlm.
const testPrefix = "RLM_TEST_"

// Variable is an environment variable rlm reads: its name, the key it sets ("" for none) and
// what it is for.
type Variable struct {
	Name, Key, Doc string
	Internal       bool // rlm sets it for the processes it starts
}

// Variables lists every environment variable rlm reads: the keys' variables, then the others.
func Variables() []Variable {
	var out []Variable
	for _, s := range specs {
		if s.env != "" {
			out = append(out, Variable{Name: s.env, Key: s.key, Doc: s.doc})
		}
	}
	for _, v := range envVars {
		out = append(out, Variable{Name: v.name, Doc: v.doc, Internal: v.internal})
	}
	return out
}

// UnknownVariables returns one warning for each variable of environ ("NAME=value", as
// os.Environ gives them) whose name looks like rlm's (RLM_ or SFA_, in any case) but that rlm
// does not read, so is ignored (an empty one is unset, as for rlm's own): each names the nearest variable rlm reads when one is near
// ("RLM_TIMEOUT … did you mean SFA_DEFAULTS_TIMEOUT (defaults.timeout)?"). Values are never
// quoted: one could be a key.
func UnknownVariables(environ []string) []string {
	vars := Variables()
	var out []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.TrimSpace(value) == "" {
			continue // unset, as rlm reads its own variables
		}
		upper := strings.ToUpper(name)
		if !strings.HasPrefix(upper, "RLM_") && !strings.HasPrefix(upper, "SFA_") || strings.HasPrefix(name, testPrefix) {
			continue
		}
		if slices.ContainsFunc(vars, func(v Variable) bool { return v.Name == name }) {
			continue
		}
		msg := fmt.Sprintf("%s is not a variable rlm reads, and is ignored", name)
		if v, ok := nearestVariable(vars, upper); ok {
			msg += fmt.Sprintf(": did you mean %s (%s)?", v.Name, v.about())
		} else {
			msg += " (rlm config --keys lists the variables rlm reads)"
		}
		out = append(out, msg)
	}
	slices.Sort(out)
	return out
}

func (v Variable) about() string {
	if v.Key != "" {
		return v.Key + ": " + v.Doc
	}
	return v.Doc
}

// nearestVariable is the variable rlm reads whose name is nearest to name (in upper case),
// after its prefix: the same words under the other prefix (RLM_MAX_DEPTH: SFA_MAX_DEPTH), the
// last words of a name or of a key (RLM_TIMEOUT: SFA_DEFAULTS_TIMEOUT, whose key is
// defaults.timeout), or a name or key within a few edits (RLM_MAX_CALL: RLM_MAX_CALLS).
// Variables rlm sets itself are never suggested.
func nearestVariable(vars []Variable, name string) (Variable, bool) {
	rest := name[len("RLM_"):]
	best, bestD := Variable{}, max(1, len(rest)/4)+1
	for _, v := range vars {
		if v.Internal {
			continue
		}
		for _, c := range spellings(v) {
			d := distance(rest, c)
			if strings.HasSuffix(c, "_"+rest) {
				d = min(d, 1) // after the same name spelt out in full
			}
			if d < bestD {
				best, bestD = v, d
			}
		}
	}
	return best, bestD <= max(1, len(rest)/4)
}

// spellings are the ways a user might write v after its prefix: its name's rest, and for a
// key's variable the key's name and the key with its table ("TIMEOUT", "DEFAULTS_TIMEOUT").
func spellings(v Variable) []string {
	out := []string{v.Name[len("RLM_"):]}
	if v.Key != "" {
		table, key, _ := strings.Cut(v.Key, ".")
		out = append(out, strings.ToUpper(key), strings.ToUpper(table+"_"+key))
	}
	return out
}
