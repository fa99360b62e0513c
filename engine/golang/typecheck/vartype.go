package typecheck

import "go/types"

// VarType returns the type of the session's package-level variable name as a cell would write
// it ("[]string", "map[string]int", "Match", "*strings.Builder"), or "" when the session has
// no variable of that name.
func (s *Session) VarType(name string) string {
	v, ok := s.objs[name].(*types.Var)
	if !ok {
		return ""
	}
	return types.TypeString(v.Type(), func(p *types.Package) string {
		if p.Name() == "main" {
			return "" // the prelude's and the cells' own types: Match, row
		}
		return p.Name()
	})
}
