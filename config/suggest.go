package config

import (
	"reflect"
	"strings"

	"github.com/rlm-sandbox/rlm/llm"
)

// suggest returns the known key closest to an unknown one, or "": a key of the same table
// within a few edits ("limits.max_call" → limits.max_calls), or the same name in the other
// table ("limits.timeout" → defaults.timeout, "defaults.max_calls" → limits.max_calls).
func suggest(key string) string {
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	var candidates []string
	switch {
	case len(parts) == 3 && parts[0] == "models":
		candidates = prefixed("models."+parts[1]+".", tomlKeys(llm.ModelSettings{}))
	case len(parts) == 3 && parts[0] == "backends":
		candidates = prefixed("backends."+parts[1]+".", tomlKeys(llm.BackendSettings{}))
	default:
		for _, s := range specs {
			candidates = append(candidates, s.key)
		}
	}
	best, bestD := "", 3
	for _, c := range candidates {
		cl := c[strings.LastIndexByte(c, '.')+1:]
		d := distance(last, cl)
		if len(parts) == 1 || !strings.HasPrefix(c, parts[0]+".") {
			if cl != last { // another table (or the top level): the same name only
				continue
			}
			d = 0
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// tomlKeys are the toml tags of a settings struct.
func tomlKeys(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" {
			out = append(out, tag)
		}
	}
	return out
}

// distance is the edit distance between two short keys, counting the swap of two neighbouring
// letters as one edit (RLM_MODLE is one edit from RLM_MODEL), as typing slips are.
func distance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
