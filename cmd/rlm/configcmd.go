package main

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rlm-sandbox/rlm/config"
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
		fl.String(f.Name, "", f.Usage+def)
	}
}

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

// loadConfiguration reads the configuration for a command, with flags (which may be nil); its
// errors are usage errors (exit 2) that name the file, variable or flag.
func loadConfiguration(flags map[string]string) (*config.Config, error) {
	c, err := config.Load(config.Options{UserFile: config.UserFile(os.Getenv), Flags: flags})
	if err != nil {
		return nil, usageError{err}
	}
	return c, nil
}

func newConfigCmd() *cobra.Command {
	var cf configFlags
	var asJSON, keys bool
	cmd := &cobra.Command{
		Use:   "config [--json] [--keys] [flags]",
		Short: "Print the effective configuration and where each value came from",
		Long: `Config prints the configuration a run would use: every limit and budget, the models and
backends, each with where its value came from: a flag, an environment variable, the project
file (./rlm.toml), the user file ($RLM_HOME/config.toml) or rlm's default. The precedence is
flag > environment > project file > user file > default. Give run's flags (--max-calls 10,
--model m, --temperature 0.2, ...) to see their effect.

API keys are never printed: a backend shows the NAME of the variable that holds its key and
whether it is set. --keys lists every key of [defaults] and [limits] with its flag, variable and
range; docs/models.md documents [backends.NAME] and [models.NAME].

Exit status: 0 · 2 when the configuration has an error (named with its file, key and range).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if keys {
				return config.Keys(cmd.OutOrStdout())
			}
			c, err := loadConfiguration(cf.given())
			if err != nil {
				return err
			}
			return printConfig(cmd.OutOrStdout(), c, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"files": [{path, origin, read}], "settings": [{key, value, source, from, key_set, note}], "error"}`)
	cmd.Flags().BoolVar(&keys, "keys", false, "list every key of [defaults] and [limits], with its flag, variable and range")
	cf.register(cmd.Flags())
	return cmd
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
