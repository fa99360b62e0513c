package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
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

// openResolver opens the server's roots (as the user named them) for allow: the file tools'
// resolver, with RLM_HOME hidden.
func openResolver(given []string, home string) (*tools.Files, error) {
	f, err := tools.NewFiles(given, "", tools.FileLimits{}, home)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: the roots: %w", err)
	}
	return f, nil
}

// allowed resolves the paths a client named (relative ones against the first root, as the user
// named it) and refuses any that is missing, or that leads outside the server's roots or into
// RLM_HOME (Options.Home: every client's workspaces, the audit database, the logs). It resolves
// them as the sessions' file tools do (tools.Files.Resolve): symlinks are followed inside the
// roots only and nothing outside them is looked at, so every path outside, or in RLM_HOME, gets
// the one message of outside, whatever exists there. what names the argument ("files",
// "roots") for the message. The sessions' file tools hide RLM_HOME too, for roots that hold it.
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
	abs := p
	if !filepath.IsAbs(p) { // not cleaned: ".." is the resolver's, where symlinks count
		abs = strings.TrimSuffix(s.given[0], string(filepath.Separator)) + string(filepath.Separator) + p
	}
	real, err := s.files.Resolve(what, abs)
	switch {
	case err == nil:
		return real, nil
	case errors.Is(err, tools.ErrOutside):
		return "", s.outside(what, p)
	case errors.Is(err, fs.ErrNotExist):
		return "", fault.New(fault.Schema, "%s: %s does not exist (relative paths are relative to %s); check the name", what, p, s.given[0])
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, what+": ") {
		msg = what + ": " + msg
	}
	if errors.Is(err, tools.ErrDenied) {
		return "", fault.New(fault.Denied, "%s", msg)
	}
	return "", fault.New(fault.Schema, "%s", msg)
}

// outside is the one message for every path outside the roots or in RLM_HOME.
func (s *Server) outside(what, p string) error {
	return fault.New(fault.Denied, "%s: %s is outside the directories this server may read (%s) or inside this server's RLM_HOME (%s), which holds every client's workspaces and records; use a file under one of those directories and outside RLM_HOME, or ask the user to restart rlm mcp with --root for its directory",
		what, p, strings.Join(s.given, ", "), s.opts.Home)
}
