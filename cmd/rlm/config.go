package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
)

// fileConfig is the part of a config file rlm reads: the project's ./rlm.toml, then the user's
// RLM_HOME/config.toml. A flag beats the environment, which beats the project file, which beats
// the user file, which beats the built-in default (docs/design.md, "Limits").
//
//	[defaults]
//	timeout = "30m"        # wall clock of a run
//	model = "gpt-4.1-mini" # the root model (RLM_MODEL overrides)
type fileConfig struct {
	Defaults struct {
		Timeout string `toml:"timeout"`
		Model   string `toml:"model"`
	} `toml:"defaults"`
}

// loadConfig merges the project file over the user file. A missing file is not an error; a
// malformed one is, naming the file and the problem.
func loadConfig(home string) (fileConfig, error) {
	var merged fileConfig
	for _, p := range []string{filepath.Join(home, "config.toml"), "rlm.toml"} {
		var c fileConfig
		_, err := toml.DecodeFile(p, &c)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return merged, usagef("config file %s: %v", p, err)
		}
		if c.Defaults.Timeout != "" {
			merged.Defaults.Timeout = c.Defaults.Timeout
		}
		if c.Defaults.Model != "" {
			merged.Defaults.Model = c.Defaults.Model
		}
	}
	return merged, nil
}

// runTimeout is the run's wall clock: --timeout, then SFA_DEFAULTS_TIMEOUT, then the config's
// defaults.timeout, then def.
func runTimeout(flag time.Duration, flagSet bool, cfg fileConfig, def time.Duration) (time.Duration, error) {
	if flagSet {
		return positive("--timeout", flag)
	}
	if s := os.Getenv(envTimeout); s != "" {
		return parsePositive(envTimeout, s)
	}
	if s := cfg.Defaults.Timeout; s != "" {
		return parsePositive("defaults.timeout", s)
	}
	return def, nil
}

func parsePositive(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		// A bare number is seconds, as SFA tools write it.
		if n, e := strconv.Atoi(s); e == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err != nil {
		return 0, usagef("%s=%q: want a duration such as 90m or 30s", what, s)
	}
	return positive(what, d)
}

func positive(what string, d time.Duration) (time.Duration, error) {
	if d <= 0 {
		return 0, usagef("%s must be positive, got %s", what, d)
	}
	return d, nil
}

// ensureHome creates RLM_HOME (0700) and returns it.
func ensureHome() (string, error) {
	home := rlmHome()
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("creating RLM_HOME %s: %w", home, err)
	}
	return home, nil
}
