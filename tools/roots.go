package tools

import "strings"

// A root is known by its real path and by the paths the user named it by (Dir.Names). Every
// absolute path is mapped to a root lexically, by the longest of these it starts with: a path
// under /data/link reaches the root /data/real that the user named /data/link, exactly as a
// path under /data/real does. What lies above a root's names is never looked at (guard.go), so
// a name opens nothing the user did not name; below it, the root's descriptor confines every
// open, and a walk that reaches a root by a name continues from the root's real path (so ".."
// leads where the kernel would take it).

type root struct {
	path    string   // real, absolute, clean
	names   []string // other absolute, clean paths the user named it by
	fd      int      // descriptor of the directory (see OpenDir)
	guarded bool     // a hidden directory is below it, or it is in one: every path is walked
}

// name is how messages name the root: as the user first named it.
func (r *root) name() string {
	if len(r.names) > 0 {
		return r.names[0]
	}
	return r.path
}

func (f *Files) rootList() string {
	ps := make([]string, len(f.roots))
	for i, r := range f.roots {
		ps[i] = r.name()
	}
	return strings.Join(ps, ", ")
}

func (f *Files) outside(p string) error {
	if len(f.roots) == 0 {
		return deniedf("path %s is outside the allowed roots: this session has none; start it with --root DIR or --out DIR", p)
	}
	return deniedf("path %s is outside the allowed roots (%s); use a path under one of them", p, f.rootList())
}

// under returns p's part below the absolute, clean directory base (lexically, "." for base
// itself).
func under(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	if base == "/" {
		return strings.TrimLeft(p, "/"), strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, base+"/") {
		rel := strings.TrimLeft(p[len(base):], "/")
		if rel == "" {
			rel = "."
		}
		return rel, true
	}
	return "", false
}

// match returns p's part below r by the longest of r's real path and names that p starts
// with, and that one's length (-1 when none).
func match(r *root, p string) (string, int) {
	rel, n := "", -1
	if s, ok := under(r.path, p); ok {
		rel, n = s, len(r.path)
	}
	for _, name := range r.names {
		if s, ok := under(name, p); ok && len(name) > n {
			rel, n = s, len(name)
		}
	}
	return rel, n
}

// within returns p's part below r (lexically, "." for r itself), by its real path or a name.
func within(r *root, p string) (string, bool) {
	rel, n := match(r, p)
	return rel, n >= 0
}

// rootOf finds the root p is lexically in (the longest match among all roots' paths and
// names), and p's part below it.
func (f *Files) rootOf(p string) (*root, string) {
	var best *root
	rel, n := "", -1
	for _, r := range f.roots {
		if s, m := match(r, p); m > n {
			best, rel, n = r, s, m
		}
	}
	return best, rel
}
