package validator

// backtrackRisk explains why a JS regex pattern can take exponential time in a backtracking
// engine (goja uses one), or returns "". It flags backreferences, and a group that contains an
// unbounded quantifier and is itself quantified without bound, such as (a+)+ or (\w*\s?)*.
// Alternations of overlapping branches, (a|a)*, are not detected; the engine's match timeout
// (a runtime layer) bounds those.
func backtrackRisk(p string) string {
	var groups []bool // per open group: does it contain an unbounded quantifier?
	class := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			if !class && (p[i] >= '1' && p[i] <= '9' || p[i] == 'k' && i+1 < len(p) && p[i+1] == '<') {
				return "uses a backreference"
			}
			if n := quantifierAt(p, i+1); n > 0 && unbounded(p, i+1) && len(groups) > 0 {
				groups[len(groups)-1] = true
			}
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			groups = append(groups, false)
		case c == ')' && len(groups) > 0:
			inner := groups[len(groups)-1]
			groups = groups[:len(groups)-1]
			if quantifierAt(p, i+1) > 0 && repeats(p, i+1) {
				if inner {
					return "repeats a group that itself repeats without bound (nested quantifiers)"
				}
				inner = unbounded(p, i+1)
			}
			if inner && len(groups) > 0 {
				groups[len(groups)-1] = true
			}
		case (c == '*' || c == '+' || c == '{' && quantifierAt(p, i) > 0) && len(groups) > 0:
			if unbounded(p, i) {
				groups[len(groups)-1] = true
			}
		}
	}
	return ""
}

// quantifierAt returns the length of a quantifier starting at p[i] (*, +, ?, {n}, {n,}, {n,m}),
// or 0.
func quantifierAt(p string, i int) int {
	if i >= len(p) {
		return 0
	}
	switch p[i] {
	case '*', '+', '?':
		return 1
	case '{':
		j := i + 1
		for j < len(p) && (p[j] >= '0' && p[j] <= '9' || p[j] == ',') {
			j++
		}
		if j < len(p) && p[j] == '}' && j > i+1 && p[i+1] != ',' {
			return j - i + 1
		}
	}
	return 0
}

// unbounded reports whether the quantifier at p[i] has no upper bound.
func unbounded(p string, i int) bool {
	switch p[i] {
	case '*', '+':
		return true
	case '{':
		n := quantifierAt(p, i)
		return n > 0 && p[i+n-2] == ','
	}
	return false
}

// repeats reports whether the quantifier at p[i] allows more than one repetition.
func repeats(p string, i int) bool {
	if p[i] == '?' {
		return false
	}
	if p[i] != '{' {
		return true
	}
	n := quantifierAt(p, i)
	body := p[i+1 : i+n-1]
	for k := len(body) - 1; k >= 0; k-- {
		if body[k] == ',' {
			return k == len(body)-1 || body[k+1:] != "0" && body[k+1:] != "1"
		}
	}
	return body != "0" && body != "1"
}
