package main

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/internal/guard"
	"github.com/rlm-sandbox/rlm/internal/home"
)

// addCompletion adds cobra's completion command to root, with rlm's help, and completes the
// values of every --lang. (rlm abort completes the running tasks, rlm trace summary and view
// the recorded traces: completeRunning, completeTraces.)
func addCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Long = `Completion prints the script that makes a shell complete rlm's commands and flags, the values
of --lang (go, js), the running tasks of rlm abort and the recorded traces of rlm trace summary
and rlm trace view (their task ids, newest first, under RLM_HOME). Each shell's help
(rlm completion bash --help, ...) says where else to put the script.`
			c.Example = `  source <(rlm completion bash)                                 # bash, in this shell
  rlm completion bash > /etc/bash_completion.d/rlm               # bash, every new shell (as root)
  rlm completion zsh > "${fpath[1]}/_rlm"                        # zsh (with compinit)
  rlm completion fish > ~/.config/fish/completions/rlm.fish      # fish`
		}
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.LocalFlags().Lookup("lang") != nil {
			_ = c.RegisterFlagCompletionFunc("lang", completeLang)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeLang completes --lang.
func completeLang(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, l := range [][2]string{{"go", "Go (yaegi)"}, {"js", "JavaScript (goja)"}} {
		if strings.HasPrefix(l[0], prefix) {
			out = append(out, cobra.CompletionWithDesc(l[0], l[1]))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeTraces completes the argument of rlm trace summary and view: the task ids of the
// traces under RLM_HOME, newest first, then file names.
func completeTraces(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir, err := home.Dir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveDefault
	}
	paths, _ := filepath.Glob(filepath.Join(home.Traces(dir), "rlm_*.jsonl"))
	slices.Reverse(paths) // the names start with the run's UTC time
	var ids []cobra.Completion
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		id := name[strings.LastIndexByte(name, '_')+1:]
		if !strings.Contains(id, ".") && strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	if len(paths) > 0 && strings.HasPrefix(lastTask, prefix) {
		ids = append([]cobra.Completion{lastTask}, ids...) // the newest run
	}
	return ids, cobra.ShellCompDirectiveKeepOrder
}

// completeRunning completes rlm abort's argument: the tasks running under RLM_HOME.
func completeRunning(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	dir, err := home.Dir()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	files, _ := filepath.Glob(filepath.Join(home.Run(dir), "*.pid"))
	var ids []cobra.Completion
	for _, f := range files {
		id := strings.TrimSuffix(filepath.Base(f), ".pid")
		if pid, err := guard.ReadPID(f); err == nil && guard.Alive(pid) && strings.HasPrefix(id, prefix) {
			ids = append(ids, id)
		}
	}
	return ids, cobra.ShellCompDirectiveNoFileComp
}
