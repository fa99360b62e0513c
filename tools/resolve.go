package tools

import "strings"

// ErrOutside is Resolve's error for a path that leads outside the roots or into a hidden
// directory. It is the whole error, the same for every such path, so that a caller's answer
// says nothing about what exists there.
var ErrOutside = errOutside

// Resolve returns the real path that the absolute path p leads to, for a caller that checks
// paths it will hand on (the MCP server's files and roots). It resolves p as the file tools
// resolve every path (guard.go): symlinks are followed inside the roots only, ".." is taken
// where the walk is, and nothing outside the roots is ever looked at; a path that leads outside
// them, or into a hidden directory, is refused with ErrOutside whatever exists there. Inside,
// each component is looked at (lstat) and no file is opened. Other errors name tool and p, wrap
// ErrInvalid or ErrDenied, and a missing file's matches fs.ErrNotExist.
func (f *Files) Resolve(tool, p string) (string, error) {
	abs, err := f.absolute(tool, p)
	if err != nil {
		return "", err
	}
	r, rel, err := f.resolve(tool, abs)
	if err != nil {
		return "", err
	}
	if rel == "." {
		return r.path, nil
	}
	return strings.TrimSuffix(r.path, "/") + "/" + rel, nil
}
