package rlm

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/internal/files"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
)

// defaultName is Options.Name's default: the agent's name in progress lines and call chains.
const defaultName = "rlm"

// settings are Options checked and with their defaults: what a run uses.
type settings struct {
	Options
	question string          // as recorded: the question, or "--script NAME"
	files    []string        // absolute
	ws       files.Workspace // the caller's; the default one is created once the run is recorded
	tools    toolSet         // Tools, checked, and the run's registry
}

// resolve checks opts and fills in the defaults. Its errors are *OptionError.
func resolve(opts Options) (settings, error) {
	s := settings{Options: opts}
	if err := s.what(); err != nil {
		return s, err
	}
	if err := s.recursion(); err != nil {
		return s, err
	}
	if err := checkConverters(s.Convert); err != nil {
		return s, err
	}
	var err error
	if s.files, err = files.Inputs(s.Files, "file", convert.Takes(s.Convert)); err != nil {
		return s, &OptionError{"Files", err}
	}
	if s.Home == "" {
		if s.Home, err = home.Dir(); err != nil {
			return s, &OptionError{"Home", err}
		}
	}
	if s.Workspace != "" {
		if s.ws.Dir, err = files.Dir(s.Workspace, s.Home, "workspace"); err != nil {
			return s, &OptionError{"Workspace", err}
		}
	}
	if s.Timeout <= 0 {
		s.Timeout = limits.RunTimeout
	}
	if s.tools, err = checkTools(s.Tools); err != nil {
		return s, &OptionError{"Tools", err}
	}
	return s, nil
}

// what checks the question or script and the language.
func (s *settings) what() error {
	sc := s.Script
	switch {
	case s.Question != "" && (sc.Name != "" || sc.Source != ""):
		return &OptionError{"Question", fmt.Errorf("give a Question or a Script, not both")}
	case s.Question == "" && sc.Name == "" && sc.Source == "":
		return &OptionError{"Question", fmt.Errorf("a run needs a Question or a Script")}
	}
	if err := s.lang(); err != nil {
		return err
	}
	if s.Question != "" {
		s.question = s.Question
		if len(s.Model.Models) == 0 && s.Replay == "" {
			return &OptionError{"Model", fmt.Errorf("a question needs a model: set Model.Models (and Model.BaseURL, Model.APIKey), or Replay for a scripted one")}
		}
		return nil
	}
	if sc.Name == "" {
		s.Script.Name = "script." + s.Lang
	}
	s.question = "--script " + s.Script.Name
	return nil
}

// lang checks Lang, or takes it from the script's extension.
func (s *settings) lang() error {
	if s.Lang != "" {
		l, err := source.ParseLang(s.Lang)
		if err != nil {
			return &OptionError{"Lang", err}
		}
		s.Lang = string(l)
		return nil
	}
	if s.Question != "" || s.Script.Name == "" {
		s.Lang = string(source.Go)
		return nil
	}
	l, ok := source.LangOf(s.Script.Name)
	if !ok {
		return &OptionError{"Lang", fmt.Errorf("%s: cannot tell the language from the extension; set Lang to go or js", filepath.Base(s.Script.Name))}
	}
	s.Lang = string(l)
	return nil
}

// recursion checks the agent's name and the depths.
func (s *settings) recursion() error {
	if s.Name == "" {
		s.Name = defaultName
	}
	if strings.ContainsAny(s.Name, ", \t\n") {
		return &OptionError{"Name", fmt.Errorf("name %q: want a name without commas or white space", s.Name)}
	}
	if s.DepthCap <= 0 {
		s.DepthCap = limits.DepthCap
	}
	if s.Depth <= 0 {
		s.Depth = 1
	}
	if s.MaxDepth <= 0 {
		s.MaxDepth = limits.MaxDepth
	}
	if s.MaxDepth > s.DepthCap {
		return &OptionError{"MaxDepth", fmt.Errorf("MaxDepth %d: want 1..%d (DepthCap)", s.MaxDepth, s.DepthCap)}
	}
	return nil
}
