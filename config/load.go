package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/redact"
)

// maxFileBytes bounds a configuration file: rlm.toml is a page of settings, not data.
const maxFileBytes = 1 << 20

// Load reads the configuration: the built-in defaults, then the user file, the project file,
// the environment and the flags, each over the one before (DESIGN: flag > env > project > user
// > default). Every value is checked against its range; an unknown key, a value of the wrong
// type or out of range is a fault.Schema error that names the file (or variable, or flag), the
// key and what is allowed. A project file the user has not trusted (Trust) may only make the
// run stricter; one that sets anything else is a fault.Schema error that names it and what it
// sets, and nothing of it is applied. No API key is read: LLM does that.
func Load(o Options) (*Config, error) {
	getenv := o.getenv()
	c := Defaults()
	c.sources, c.getenv = map[string]Source{}, getenv
	userFile, storePath, err := o.homeFiles(getenv)
	if err != nil {
		return nil, err
	}
	c.Files = []File{{Path: o.projectFile(), Origin: Project}, {Path: userFile, Origin: User}}
	if err := c.readUser(&c.Files[1]); err != nil { // the user file first: the project's values win
		return nil, err
	}
	if err := c.readProject(&c.Files[0], storePath); err != nil {
		return nil, err
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

func (o Options) getenv() func(string) string {
	if o.Getenv == nil {
		return os.Getenv
	}
	return o.Getenv
}

func (o Options) projectFile() string {
	if o.ProjectFile == "" {
		return home.ProjectFile
	}
	return o.ProjectFile
}

// homeFiles are the user file and the trust store: o's, else those in RLM_HOME.
func (o Options) homeFiles(getenv func(string) string) (userFile, trustStore string, err error) {
	userFile, trustStore = o.UserFile, o.TrustStore
	if userFile == "" {
		if userFile, err = UserFile(getenv); err != nil {
			return "", "", err
		}
	}
	if trustStore == "" {
		if trustStore, err = TrustStore(getenv); err != nil {
			return "", "", err
		}
	}
	return userFile, trustStore, nil
}

// fileTables is what a configuration file may hold.
type fileTables struct {
	Defaults map[string]any                 `toml:"defaults"`
	Limits   map[string]any                 `toml:"limits"`
	Backends map[string]llm.BackendSettings `toml:"backends"`
	Models   map[string]llm.ModelSettings   `toml:"models"`
	Tools    map[string]any                 `toml:"tools"`   // a known table; tools.go reads it from raw
	Convert  map[string]any                 `toml:"convert"` // convert.go checks each entry
}

// fileValues is one configuration file, parsed and checked.
type fileValues struct {
	vals []fileValue          // [defaults] and [limits], in key order
	ft   fileTables           // [backends.NAME] and [models.NAME]
	cmds []Tool               // [tools.NAME], checked (tools.go)
	conv map[string]Converter // [convert], checked (convert.go)
	raw  map[string]any       // the whole file as decoded, for its claims (trust.go)
}

// fileValue is one key of [defaults] or [limits]: its value of the kind's Go type, and as written.
type fileValue struct {
	s   spec
	v   any
	raw any
}

// readUser applies the user file, the user's own: a missing file is not an error.
func (c *Config) readUser(f *File) error {
	_, v, err := readParsed(f.Path)
	if v == nil || err != nil {
		return err
	}
	f.Read, f.Trusted = true, true
	c.apply(v, Source{Origin: User, Name: f.Path})
	return nil
}

// readProject applies the project file: all of it when the trust store (at storePath) records
// its path and the hash of the bytes read, else only if it makes the run stricter than the user
// file and the defaults. The file is read once; those bytes are hashed and parsed.
func (c *Config) readProject(f *File, storePath string) error {
	data, v, err := readParsed(f.Path)
	if v == nil || err != nil {
		return err
	}
	s, err := readStore(storePath)
	if err != nil {
		return err
	}
	state := s.state(realPath(f.Path), sha256Hex(data))
	f.Read, f.Trusted = true, state == isTrusted
	if !f.Trusted {
		if claims := c.claims(v); len(claims) > 0 {
			return untrusted(f.Path, claims, state)
		}
	}
	c.apply(v, Source{Origin: Project, Name: f.Path})
	return nil
}

// readParsed reads and parses a configuration file once; a missing file gives nil values and
// no error. The bytes returned are the ones parsed (a project file's hash is taken of them).
func readParsed(path string) ([]byte, *fileValues, error) {
	data, ok, err := readBounded(path, maxFileBytes)
	if err != nil {
		return nil, nil, schemaf("%s: %v", path, err)
	}
	if !ok {
		return nil, nil, nil
	}
	v, err := parseFile(path, data)
	return data, v, err
}

// readBounded reads a regular file of at most max bytes; found is false when it does not
// exist. It is opened without blocking (a FIFO planted under the name cannot stall rlm) and
// checked on the descriptor it is read from.
func readBounded(path string, max int64) (data []byte, found bool, err error) {
	fl, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer fl.Close()
	st, err := fl.Stat()
	switch {
	case err != nil:
		return nil, false, err
	case st.IsDir():
		return nil, false, errors.New("a directory; the configuration is a TOML file")
	case !st.Mode().IsRegular():
		return nil, false, errors.New("not a regular file; the configuration is a TOML file")
	}
	data, err = io.ReadAll(io.LimitReader(fl, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return nil, false, fmt.Errorf("larger than %d bytes, the most rlm reads of it", max)
	}
	return data, true, nil
}

// parseFile parses a file's content and checks every value against its range.
func parseFile(path string, data []byte) (*fileValues, error) {
	v := &fileValues{}
	md, err := toml.Decode(string(data), &v.ft)
	if err != nil {
		// The parser may quote the file's text, which could hold a pasted key.
		return nil, schemaf("%s: %s", path, redact.New().String(err.Error()))
	}
	if err := unknownKeys(path, md.Undecoded()); err != nil {
		return nil, err
	}
	if err := exactKeys(path, md.Keys()); err != nil {
		return nil, err
	}
	if _, err := toml.Decode(string(data), &v.raw); err != nil {
		return nil, schemaf("%s: %s", path, redact.New().String(err.Error()))
	}
	if v.cmds, err = parseTools(path, v.raw["tools"]); err != nil {
		return nil, err
	}
	if v.conv, err = parseConverters(path, v.ft.Convert); err != nil {
		return nil, err
	}
	for _, table := range []struct {
		name string
		vals map[string]any
	}{{"defaults", v.ft.Defaults}, {"limits", v.ft.Limits}} {
		for _, k := range slices.Sorted(maps.Keys(table.vals)) {
			key := table.name + "." + k
			s, ok := lookup(key)
			if !ok {
				return nil, unknownKey(path, key)
			}
			x, err := fromTOML(s, table.vals[k])
			if err == nil {
				err = s.inRange(x)
			}
			if err != nil {
				return nil, schemaf("%s: %s = %s: %v", path, s.key, tomlText(table.vals[k]), err)
			}
			v.vals = append(v.vals, fileValue{s, x, table.vals[k]})
		}
	}
	return v, nil
}

// apply sets a parsed file's values, from src.
func (c *Config) apply(v *fileValues, src Source) {
	for _, x := range v.vals {
		c.set(x.s, x.v, src)
	}
	c.mergeModels(v.ft, src)
	c.mergeTools(v.cmds, src)
	c.mergeConverters(v.conv, src)
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

// exactKeys refuses a key that the decoder placed although it is not spelled as rlm's key: the
// TOML decoder matches a struct's fields ignoring case (Unicode simple folding, so "Backends",
// "BACKENDS" and "bac\u212Aends" all fill Backends), while the trust check reads the file as
// written. Every table name and every field of [backends.NAME] and [models.NAME] must be exactly
// rlm's (the fields of a model's extra table are free-form).
func exactKeys(path string, keys []toml.Key) error {
	for _, k := range keys {
		fields, ok := tableFields[k[0]]
		if !ok {
			return misspelt(path, k, 0, slices.Sorted(maps.Keys(tableFields)))
		}
		if fields != nil && len(k) >= 3 && !slices.Contains(fields, k[2]) {
			return misspelt(path, k, 2, fields)
		}
	}
	return nil
}

// misspelt is the error of key k, whose part i is none of names: an unknown key, with the name
// it matches but for case when there is one.
func misspelt(path string, k toml.Key, i int, names []string) error {
	for _, n := range names {
		if strings.EqualFold(k[i], n) {
			return schemaf("%s: unknown key %s; rlm's keys are spelled exactly, in lower case: did you mean %s?", path, k, n)
		}
	}
	return unknownKey(path, k.String())
}

// tableFields are the keys of each table a file may hold, from fileTables' and the settings'
// toml tags; nil: a table whose keys lookup (or parseTools) checks.
var tableFields = map[string][]string{
	"defaults": nil, "limits": nil,
	"backends": tomlTags(reflect.TypeFor[llm.BackendSettings]()),
	"models":   tomlTags(reflect.TypeFor[llm.ModelSettings]()),
	"tools":    nil, // parseTools checks a tool's keys
	"convert":  nil, // parseConverters checks an entry's keys, as written
}

// tomlTags lists the toml names of t's fields, embedded structs' included.
func tomlTags(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, tomlTags(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// unknownKeys refuses keys the decoder did not place: typos and keys of another table. The
// fields inside a model's extra table are free-form (they are sent as given).
func unknownKeys(path string, keys []toml.Key) error {
	for i, k := range keys {
		if len(k) >= 4 && k[0] == "models" && k[2] == "extra" || len(k) >= 2 && k[0] == "tools" || len(k) >= 3 && k[0] == "convert" {
			continue // free-form (sent as given), or read and checked by parseTools or parseConverters
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
	return schemaf("%s; the tables are [defaults], [limits], [backends.NAME], [models.NAME] and [tools.NAME] (rlm config --keys lists every key)", msg)
}
