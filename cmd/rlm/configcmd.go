package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/internal/home"
)

// configFlags are the flags that set configuration values (config.Flags): the same names in
// `rlm run` and `rlm config`, given to config.Load as text, so that a flag goes through the one
// parser and range check a file's value does.
type configFlags struct{ fs *pflag.FlagSet }

// register adds the flags named (all of config.Flags when none is named).
func (c *configFlags) register(fl *pflag.FlagSet, only ...string) {
	c.fs = fl
	for _, f := range config.Flags() {
		if len(only) > 0 && !slices.Contains(only, f.Name) {
			continue
		}
		def := " (default: " + f.Key + " in rlm.toml, else rlm's default; see rlm config)"
		if k, ok := strings.CutPrefix(f.Key, "root."); ok {
			def = " (default: " + k + " of the root model's [models.NAME] in rlm.toml, else not sent; see rlm config)"
		}
		fl.Var(&textFlag{typ: f.Type}, f.Name, f.Usage+def)
	}
}

// textFlag is a configuration flag's value: the text as given, for config.Load to parse and
// check as it does a file's value. typ is the type help shows ("int", "duration", ...).
type textFlag struct{ text, typ string }

func (t *textFlag) String() string     { return t.text }
func (t *textFlag) Set(s string) error { t.text = s; return nil }
func (t *textFlag) Type() string       { return t.typ }

// given returns the configuration flags that were given, by name, as text.
func (c *configFlags) given() map[string]string {
	out := map[string]string{}
	if c.fs == nil {
		return out
	}
	for _, f := range config.Flags() {
		if fl := c.fs.Lookup(f.Name); fl != nil && fl.Changed {
			out[f.Name] = fl.Value.String()
		}
	}
	return out
}

// loadConfiguration reads the configuration for a command, with flags (which may be nil), and
// says on stderr which files it read (noteFiles); its errors are usage errors (exit 2) that
// name the file, variable or flag. A [tools.NAME] whose name clashes with the API is one too
// (rlm.CommandTools), so that every command refuses it before anything starts.
func loadConfiguration(stderr io.Writer, flags map[string]string) (*config.Config, error) {
	c, err := config.Load(config.Options{Flags: flags})
	if err == nil {
		_, err = rlm.CommandTools(c)
	}
	if err != nil {
		return nil, usageError{err}
	}
	noteFiles(stderr, c)
	return c, nil
}

// noteFiles says on stderr, in one line, which configuration files were read, user file first:
//
//	rlm: configuration from /home/u/.rlm/config.toml (user), /w/rlm.toml (project, trusted)
//
// A project file nobody trusted, applied because it only makes the run stricter, is
// "(project, not trusted: stricter limits only)". Nothing is written when no file was read. Every
// command that loads the configuration writes it, --quiet or not (stdout and --json are left
// alone): a file decides where requests and keys go.
func noteFiles(stderr io.Writer, c *config.Config) {
	var read []string
	for _, f := range slices.Backward(c.Files) {
		if !f.Read {
			continue
		}
		path, err := filepath.Abs(f.Path)
		if err != nil {
			path = f.Path
		}
		what := "user"
		switch {
		case f.Origin == config.Project && f.Trusted:
			what = "project, trusted"
		case f.Origin == config.Project:
			what = "project, not trusted: stricter limits only"
		}
		read = append(read, fmt.Sprintf("%s (%s)", path, what))
	}
	if len(read) > 0 {
		fmt.Fprintf(stderr, "rlm: configuration from %s\n", strings.Join(read, ", "))
	}
}

func newConfigCmd() *cobra.Command {
	var cf configFlags
	var asJSON, keys bool
	cmd := &cobra.Command{
		Use:   "config [--json] [--keys] [flags]",
		Short: "Print the effective configuration and where each value came from; trust a project file",
		Example: `  rlm config                                        # every setting and where it came from
  rlm config --max-calls 10 --model gpt-4.1-mini    # with rlm run's flags: their effect
  rlm config --keys                                 # every key, its flag, variable and range
  rlm config trust                                  # after reading ./rlm.toml`,
		Long: `Config prints the configuration a run would use: every limit and budget, the models and
backends, each with where its value came from: a flag, an environment variable, the project
file (./rlm.toml), the user file ($RLM_HOME/config.toml) or rlm's default. The precedence is
flag > environment > project file > user file > default. Give run's flags (--max-calls 10,
--model m, --temperature 0.2, ...) to see their effect. It says of each file whether it was
read, and of the project file whether you trusted it.

A project file is used whole only once you trust it: rlm config trust [FILE] (default
./rlm.toml) prints what it sets that needs trust (models, providers, backends with their
base_url and api_key_env, raised limits) and records its path and content in
$RLM_HOME/trusted.json; any change to the file makes it untrusted again, and rlm config untrust
[FILE] forgets it. A project file you have not trusted may only lower limits, budgets and
times; if it sets anything else, every command that reads the configuration refuses to start
and says so. The user file is yours and needs no trust. Every such command says on stderr
which files it read.

API keys are never printed: a backend shows the NAME of the variable that holds its key and
whether it is set. --keys lists every key of [defaults] and [limits] with its flag, variable and
range, and the other variables rlm reads; docs/models.md documents [backends.NAME] and
[models.NAME]. Every command warns about a variable named RLM_ or SFA_ that rlm does not read.

Exit status: 0 · 2 when the configuration has an error (named with its file, key and range).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keys {
				return config.Keys(cmd.OutOrStdout())
			}
			c, err := loadConfiguration(cmd.ErrOrStderr(), cf.given())
			if err != nil {
				return err
			}
			return printConfig(cmd.OutOrStdout(), c, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"files": [{path, origin, read, trusted}], "settings": [{key, value, source, from, key_set, note}], "error"}`)
	cmd.Flags().BoolVar(&keys, "keys", false, "list every key of [defaults] and [limits], with its flag, variable and range, and the other variables")
	cf.register(cmd.Flags())
	cmd.AddCommand(newConfigTrustCmd(), newConfigUntrustCmd())
	return cmd
}

func newConfigTrustCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a project file (default ./rlm.toml) as it is now, after printing what it sets that needs trust",
		Example: `  rlm config trust
  rlm config trust ../project/rlm.toml`,
		Long: `Trust prints what the project file FILE (default ./rlm.toml) sets that only a trusted file may:
models, providers, backends (each with its base_url, and the variable whose key is sent
there), prices and other [models.NAME] settings, and limits it raises above your user file
and rlm's defaults. Then it records the file's absolute path and the SHA-256 of the content
just read in $RLM_HOME/trusted.json, so that runs started beside it use it whole. Any change to
the file makes it untrusted again. Read the file before you trust it.

Exit status: 0 · 2 when the file does not exist or has an error (it is not recorded).`,
		Args: maxArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := config.Trust(config.Options{ProjectFile: fileArg(args)})
			if err != nil {
				return usageError{err}
			}
			printReview(cmd.OutOrStdout(), r)
			return nil
		},
	}
}

func newConfigUntrustCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "untrust [FILE]",
		Short: "Forget the trust of a project file (default ./rlm.toml)",
		Example: `  rlm config untrust
  rlm config untrust ../project/rlm.toml`,
		Long: `Untrust removes the project file FILE (default ./rlm.toml) from $RLM_HOME/trusted.json: runs
started beside it then use it only where it lowers limits, and refuse it if it sets more.

Exit status: 0 · 2 when the trust store cannot be read or written.`,
		Args: maxArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, had, err := config.Untrust(config.Options{ProjectFile: fileArg(args)})
			if err != nil {
				return usageError{err}
			}
			if had {
				fmt.Fprintf(cmd.OutOrStdout(), "untrusted %s: runs beside it use it only where it lowers limits\n", path)
			} else {
				fmt.Fprintf(cmd.OutOrStdout(), "%s was not trusted; nothing changed\n", path)
			}
			return nil
		},
	}
}

func fileArg(args []string) string {
	if len(args) == 0 {
		return home.ProjectFile
	}
	return args[0]
}

// printReview prints what a file just trusted sets that needs trust, one setting a line.
func printReview(out io.Writer, r config.Review) {
	var b strings.Builder
	if len(r.Claims) == 0 {
		fmt.Fprintf(&b, "%s sets nothing that needs trust (it only lowers limits).\n", r.Real)
	} else {
		fmt.Fprintf(&b, "%s sets what only a trusted file may:\n", r.Real)
	}
	for _, cl := range r.Claims {
		line := "  " + cl.Key + " = " + cl.Value
		if cl.Note != "" {
			line = fmt.Sprintf("%-60s # %s", line, cl.Note)
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "trusted %s as it is now (sha256 %s); any change makes it untrusted again, and rlm config untrust %s forgets it\n",
		r.Real, r.SHA256[:16], r.Real)
	io.WriteString(out, b.String())
}

// printConfig prints c, then checks what only the model client's configuration shows (a key
// variable that is not set, a model setting out of range); such a problem is printed too and
// makes the exit status 2.
func printConfig(out io.Writer, c *config.Config, asJSON bool) error {
	_, problem := c.LLM(nil)
	if errors.Is(problem, config.ErrNoModel) {
		problem = nil // a script run needs no model; rlm run says so when a question does
	}
	if asJSON {
		obj := map[string]any{"files": c.Files, "settings": c.Entries()}
		if problem != nil {
			obj["error"] = problem.Error()
		}
		if err := printJSON(out, obj); err != nil {
			return err
		}
		if problem != nil {
			return silent{exitUsage}
		}
		return nil
	}
	if err := c.Write(out); err != nil {
		return err
	}
	if problem != nil {
		return usageError{problem}
	}
	return nil
}
