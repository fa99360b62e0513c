package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/redact"
)

// maxFileBytes bounds a configuration file: rlm.toml is a page of settings, not data.
const maxFileBytes = 1 << 20

// ProjectFileName is the project's configuration file, read from the working directory.
const ProjectFileName = "rlm.toml"

// Load reads the configuration: the built-in defaults, then the user file, the project file,
// the environment and the flags, each over the one before (DESIGN: flag > env > project > user
// > default). Every value is checked against its range; an unknown key, a value of the wrong
// type or out of range is a fault.Schema error that names the file (or variable, or flag), the
// key and what is allowed. No API key is read: LLM does that.
func Load(o Options) (*Config, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Defaults()
	c.sources, c.getenv = map[string]Source{}, getenv
	project, user := o.ProjectFile, o.UserFile
	if project == "" {
		project = ProjectFileName
	}
	if user == "" {
		user = UserFile(getenv)
	}
	c.Files = []File{{Path: project, Origin: Project}, {Path: user, Origin: User}}
	for i := len(c.Files) - 1; i >= 0; i-- { // the user file first: the project's values win
		f := &c.Files[i]
		ok, err := c.readFile(f.Path, Source{Origin: f.Origin, Name: f.Path})
		if err != nil {
			return nil, err
		}
		f.Read = ok
	}
	if err := c.readEnv(getenv); err != nil {
		return nil, err
	}
	if err := c.readFlags(o.Flags); err != nil {
		return nil, err
	}
	c.defaultBackend(getenv)
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// fileTables is what a configuration file may hold.
type fileTables struct {
	Defaults map[string]any                 `toml:"defaults"`
	Limits   map[string]any                 `toml:"limits"`
	Backends map[string]llm.BackendSettings `toml:"backends"`
	Models   map[string]llm.ModelSettings   `toml:"models"`
}

// readFile applies one file; a missing file is not an error.
func (c *Config) readFile(path string, src Source) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, schemaf("%s: %v", path, err)
	case st.IsDir():
		return false, schemaf("%s is a directory; the configuration is a TOML file", path)
	case st.Size() > maxFileBytes:
		return false, schemaf("%s is %d bytes; a configuration file holds at most %d", path, st.Size(), maxFileBytes)
	}
	var ft fileTables
	md, err := toml.DecodeFile(path, &ft)
	if err != nil {
		// The parser may quote the file's text, which could hold a pasted key.
		return false, schemaf("%s: %s", path, redact.New().String(err.Error()))
	}
	if err := unknownKeys(path, md.Undecoded()); err != nil {
		return false, err
	}
	for _, table := range []struct {
		name string
		vals map[string]any
	}{{"defaults", ft.Defaults}, {"limits", ft.Limits}} {
		for _, k := range slices.Sorted(maps.Keys(table.vals)) {
			key := table.name + "." + k
			s, ok := lookup(key)
			if !ok {
				return false, unknownKey(path, key)
			}
			if err := c.setTOML(s, table.vals[k], src); err != nil {
				return false, err
			}
		}
	}
	c.mergeModels(ft, src)
	return true, nil
}

// mergeModels adds a file's [backends.NAME] and [models.NAME] tables, each replacing the table of
// the same name from a file read before.
func (c *Config) mergeModels(ft fileTables, src Source) {
	for name, b := range ft.Backends {
		if c.Models.Backends == nil {
			c.Models.Backends = map[string]llm.BackendSettings{}
		}
		c.Models.Backends[name] = b
		c.sources["backends."+name] = src
	}
	for name, m := range ft.Models {
		if c.Models.Models == nil {
			c.Models.Models = map[string]llm.ModelSettings{}
		}
		c.Models.Models[name] = m
		c.sources["models."+name] = src
	}
}

// unknownKeys refuses keys the decoder did not place: typos and keys of another table. The
// fields inside a model's extra table are free-form (they are sent as given).
func unknownKeys(path string, keys []toml.Key) error {
	for i, k := range keys {
		if len(k) >= 4 && k[0] == "models" && k[2] == "extra" {
			continue
		}
		if len(k) == 1 && (k[0] == "backends" || k[0] == "models") {
			continue
		}
		if i+1 < len(keys) && strings.HasPrefix(keys[i+1].String(), k.String()+".") {
			continue // an unknown table: its first key says more ("limit.max_calls")
		}
		return unknownKey(path, k.String())
	}
	return nil
}

func readEnvValue(getenv func(string) string, name string) (string, bool) {
	v := strings.TrimSpace(getenv(name))
	return v, v != ""
}

// readEnv applies the variables that are set.
func (c *Config) readEnv(getenv func(string) string) error {
	for _, s := range specs {
		if s.env == "" {
			continue
		}
		if v, ok := readEnvValue(getenv, s.env); ok {
			if err := c.setText(s, v, Source{Origin: Env, Name: s.env}); err != nil {
				return err
			}
		}
	}
	return nil
}

// readFlags applies the flags that were given.
func (c *Config) readFlags(flags map[string]string) error {
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		v := flags[name]
		src := Source{Origin: Flag, Name: "--" + name}
		if s, ok := flagSpec(name); ok {
			if err := c.setText(s, v, src); err != nil {
				return err
			}
			continue
		}
		if f, ok := samplingFlag(name); ok {
			if err := f.set(&c.RootSampling, v); err != nil {
				return schemaf("--%s %s: %v", name, quoteValue(v), err)
			}
			c.sources["root."+f.key] = src
		}
	}
	return nil
}

func flagSpec(name string) (spec, bool) {
	for _, s := range specs {
		if s.flag == name && name != "" {
			return s, true
		}
	}
	return spec{}, false
}

// defaultBackend reads the default backend's URL and the name of its key's variable, as
// llm.FromEnv does, for the provider the configuration chose (a file may choose anthropic).
func (c *Config) defaultBackend(getenv func(string) string) {
	urls, keys := []string{"RLM_BASE_URL", "OPENAI_BASE_URL"}, []string{"RLM_API_KEY", "OPENAI_API_KEY"}
	if c.Provider == llm.ProviderAnthropic {
		urls[1], keys[1] = "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"
	}
	for _, n := range urls {
		if v, ok := readEnvValue(getenv, n); ok {
			c.BaseURL, c.BaseURLEnv = v, n
			break
		}
	}
	for _, n := range keys {
		if _, ok := readEnvValue(getenv, n); ok {
			c.KeyEnv = n
			break
		}
	}
}

// DefaultKeyEnvs are the variables the default backend's key is read from, in order.
func (c *Config) DefaultKeyEnvs() []string {
	if c.Provider == llm.ProviderAnthropic {
		return []string{"RLM_API_KEY", "ANTHROPIC_API_KEY"}
	}
	return []string{"RLM_API_KEY", "OPENAI_API_KEY"}
}

func schemaf(format string, args ...any) error { return fault.New(fault.Schema, format, args...) }

// unknownKey is the error of a key no table has, with the closest known key when one is near.
func unknownKey(path, key string) error {
	msg := fmt.Sprintf("%s: unknown key %s", path, key)
	if strings.HasPrefix(key, "backends.") && strings.HasSuffix(key, ".api_key") {
		return schemaf("%s: API keys are never written in a configuration file; export the key in an environment variable and name the variable with api_key_env", msg)
	}
	if near := suggest(key); near != "" {
		return schemaf("%s; did you mean %s?", msg, near)
	}
	return schemaf("%s; the tables are [defaults], [limits], [backends.NAME] and [models.NAME] (rlm config --keys lists every key)", msg)
}
