package controller

import (
	"regexp"
	"slices"

	"github.com/rlm-sandbox/rlm/repl"
)

// noteVars tracks the variables a failed block introduced. The block may have stopped before
// assigning them, so they are listed apart until a block that works names them.
func (r *run) noteVars(before []string, res repl.Result, code string) {
	if r.ghosts == nil {
		r.ghosts = map[string]bool{}
	}
	if res.Err != nil {
		for _, v := range r.sess.Vars() {
			if !slices.Contains(before, v) {
				r.ghosts[v] = r.ghosts[v] || !res.Kept()
			}
		}
		return
	}
	if len(r.ghosts) == 0 {
		return
	}
	for _, id := range identRE.FindAllString(code, -1) {
		delete(r.ghosts, id)
	}
}

var identRE = regexp.MustCompile(`[\pL_$][\pL\pN_$]*`)

// vars is the session's variables, without those only a failed block introduced.
func (r *run) vars() []string {
	var out []string
	for _, v := range r.sess.Vars() {
		if _, ghost := r.ghosts[v]; !ghost {
			out = append(out, v)
		}
	}
	return out
}

// partialVars is the variables only a failed block introduced: they exist, but may hold what
// the block set before it stopped, or nothing. unkept is set when a restart would lose some.
func (r *run) partialVars() (partial []string, unkept bool) {
	for _, v := range r.sess.Vars() {
		if lost, ghost := r.ghosts[v]; ghost {
			partial = append(partial, v)
			unkept = unkept || lost
		}
	}
	return partial, unkept
}
