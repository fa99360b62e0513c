package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
)

// realRoots resolves the server's roots to absolute directories: as given (cleaned), and real.
func realRoots(roots []string) (given, real []string, err error) {
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, nil, fmt.Errorf("mcpserver: root %s: %w", r, err)
		}
		given = append(given, abs)
	}
	real, err = resolveRoots(roots)
	return given, real, err
}

func resolveRoots(roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("mcpserver: root %s: %w", r, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("mcpserver: root %s is not a directory", r)
		}
		out = append(out, abs)
	}
	return out, nil
}

// allowed resolves the paths a client named (relative ones against the first root) and refuses
// any that is missing or outside the server's roots once symlinks are resolved, or inside
// RLM_HOME (Options.Home: every client's workspaces, the audit database, the logs) as named or
// resolved. what names the argument ("files", "roots") for the message. The sessions' file
// tools hide RLM_HOME too (tools.Hidden), for roots that contain it.
func (s *Server) allowed(what string, paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		real, err := s.allow(what, p)
		if err != nil {
			return nil, err
		}
		out = append(out, real)
	}
	return out, nil
}

func (s *Server) allow(what, p string) (string, error) {
	if len(s.roots) == 0 {
		return "", fault.New(fault.Denied, "%s: this server allows no files; the user must start rlm mcp with --root DIR", what)
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(p) {
		abs = filepath.Join(s.given[0], p)
	}
	// Outside by its name: refused before the file system is asked, so that the answer says
	// nothing about what exists outside the roots.
	if !s.inside(abs, s.given) && !s.inside(abs, s.roots) {
		return "", s.outside(what, p)
	}
	home := s.home()
	if s.inside(abs, home) {
		return "", s.inHome(what, p)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fault.New(fault.Schema, "%s: %s does not exist (relative paths are relative to %s); check the name", what, p, s.given[0])
	}
	if !s.inside(real, s.roots) {
		return "", s.outside(what, p)
	}
	if s.inside(real, home) {
		return "", s.inHome(what, p)
	}
	return real, nil
}

// home is RLM_HOME as named (absolute) and resolved.
func (s *Server) home() []string {
	abs, err := filepath.Abs(s.opts.Home)
	if err != nil {
		return []string{s.opts.Home}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		return []string{abs, real}
	}
	return []string{abs}
}

func (s *Server) inHome(what, p string) error {
	return fault.New(fault.Denied, "%s: %s is inside this server's RLM_HOME (%s), which holds every client's workspaces and records and which no session may read; use a file outside it",
		what, p, s.opts.Home)
}

func (s *Server) inside(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func (s *Server) outside(what, p string) error {
	return fault.New(fault.Denied, "%s: %s is outside the directories this server may read (%s); use a file under one of them, or ask the user to restart rlm mcp with --root for its directory",
		what, p, strings.Join(s.given, ", "))
}
