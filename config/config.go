package config

import (
	"time"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
)

// Config is the effective configuration of a run: every value from the highest-ranked source
// that sets it (Load), and where it came from (Source).
type Config struct {
	// [defaults]
	Model    []string      // the root ladder; nil: no model configured
	SubModel []string      // the ladder of llm_query; nil: the root ladder
	Provider llm.Provider  // the API of the default backend
	Backend  string        // the backend of models that name none
	Timeout  time.Duration // wall clock of a run

	Limits Limits

	// Models holds the [backends.NAME] and [models.NAME] tables, merged by name: a project
	// file's table replaces the user file's table of the same name.
	Models llm.Settings
	// RootSampling are the root model's sampling flags (--temperature, ...), applied over its
	// [models.NAME] settings.
	RootSampling llm.Sampling

	// Tools are the [tools.NAME] tables, by name: commands of the user's that model code may
	// call (rlm.CommandTools). A project file's table replaces the user file's of the same name,
	// and a project file declares none until the user trusts it.
	Tools []Tool

	// Convert holds the [convert] entries by extension ("pdf"): the command that turns an input
	// of that type into text. A project file's entry replaces the user file's of the same
	// extension, and a project file sets none until the user trusts it.
	Convert map[string]Converter

	// The default backend, from the environment (keys are never read from a file).
	BaseURL    string // "" = the provider's public API
	BaseURLEnv string // the variable BaseURL came from; ""
	KeyEnv     string // the variable the default backend's key is read from; "" when none is set

	// Files are the configuration files considered, highest precedence first.
	Files []File

	sources map[string]Source
	getenv  func(string) string
}

// Limits are every cap and budget of a run. Each has a finite default (Defaults, from package
// limits) and a range that Load checks. Zero fields mean the defaults, so the zero value is safe.
type Limits struct {
	MaxIterations int // root model replies before the forced final answer
	MaxBlocks     int // code blocks of one reply that run
	FeedbackChars int // characters of output shown to the root model per reply
	MaxSubCalls   int // llm_query calls per run, batched slots included
	MaxBatches    int // llm_query_batched calls per run
	BatchWidth    int // sub-calls of one batch at a time

	MaxRuns   int     // processes with a model run going in one RLM_HOME at once
	MaxCalls  int     // model API calls per run
	MaxTokens int     // tokens per run
	MaxCost   float64 // US dollars per run; 0 = no dollar budget

	CellTimeout time.Duration

	// The caps of the model-facing API (limits.API).
	OutputChars, PeekChars, SearchResults, MatchChars, Chunks, TextChars int
	TallyResults, ReadChars, GrepResults, WriteBytes, FileCalls          int
	FinalChars                                                           int

	WorkspaceBytes   int64 // bytes write_file may leave in the workspace
	WorkspaceEntries int   // entries the workspace may hold
	WorkerMemory     int64 // bytes of the worker process
}

// API returns the caps the session and the controller enforce, as limits.API (engine.Limits).
func (l Limits) API() limits.API {
	return limits.API{
		PeekChars: l.PeekChars, SearchResults: l.SearchResults, MatchChars: l.MatchChars, Chunks: l.Chunks, TallyResults: l.TallyResults,
		TextChars: l.TextChars, ReadChars: l.ReadChars, GrepResults: l.GrepResults, WriteBytes: l.WriteBytes,
		FileCalls: l.FileCalls, OutputChars: l.OutputChars, FinalChars: l.FinalChars,
		SubCalls: l.MaxSubCalls, Batches: l.MaxBatches, BatchWidth: l.BatchWidth,
	}
}

// File is one configuration file Load considered.
type File struct {
	Path   string `json:"path"`
	Origin Origin `json:"origin"` // Project or User
	Read   bool   `json:"read"`   // false: the file does not exist
	// Trusted: every value of the file was applied. The user file always is; a project file
	// when the trust store records its path and content (else it was applied only because it
	// makes the run stricter).
	Trusted bool `json:"trusted"`
}

// Origin is the kind of place a value came from.
type Origin string

// Origins, from the highest precedence to the lowest.
const (
	Flag    Origin = "flag"
	Env     Origin = "env"
	Project Origin = "project"
	User    Origin = "user"
	Default Origin = "default"
)

// Source is where one value came from: a flag, an environment variable, a file, or the
// built-in default.
type Source struct {
	Origin Origin
	Name   string // "--max-calls", "RLM_MAX_CALLS" or the file's path; "" for Default
}

func (s Source) String() string {
	switch s.Origin {
	case Flag, Env:
		return string(s.Origin) + " " + s.Name
	case Project, User:
		return s.Name
	}
	return "default"
}

// Source returns where the value of key came from: a key of [defaults] or [limits]
// ("limits.max_calls"), a table ("models.NAME", "backends.NAME"), or a root sampling setting
// ("root.temperature"), a tool ("tools.NAME"). A key nothing set is Default.
func (c *Config) Source(key string) Source {
	if s, ok := c.sources[key]; ok {
		return s
	}
	return Source{Origin: Default}
}

// Options says where Load looks.
type Options struct {
	// ProjectFile is the project's configuration; "" = rlm.toml in the working directory. It is
	// used whole only when the user trusted it (Trust); else only if it makes the run stricter.
	ProjectFile string
	// UserFile is the user's configuration; "" = UserFile(Getenv). It is the user's own and
	// needs no trust: never name a file someone else (or a model's code) could write.
	UserFile string
	// TrustStore records the project files the user trusted; "" = TrustStore(Getenv).
	TrustStore string
	// Getenv reads the environment; nil = os.Getenv.
	Getenv func(string) string
	// Flags are the command-line flags that were given, by name without dashes ("max-calls"),
	// as their text. Flags that configure nothing here are ignored.
	Flags map[string]string
}

// UserFile is $RLM_HOME/config.toml (RLM_HOME defaults to ~/.rlm; see Home).
func UserFile(getenv func(string) string) (string, error) {
	h, err := Home(getenv)
	if err != nil {
		return "", err
	}
	return home.Config(h), nil
}

// Home is $RLM_HOME, else ~/.rlm: always absolute, else an error that says to set RLM_HOME.
func Home(getenv func(string) string) (string, error) {
	return home.FromEnv(getenv)
}

// FlagSpec is a command-line flag that sets a configuration value.
type FlagSpec struct {
	Name  string // without dashes: "max-calls"
	Key   string // the key it sets: "limits.max_calls", or "root.temperature" for a root sampling flag
	Usage string
	// Type is the type of value it takes, as help shows it: "int", "float", "duration",
	// "bytes", "string" or "json". The value is still given to Load as text.
	Type string
}

// Flags lists the flags Load reads from Options.Flags, so that a command registers the same
// ones. Default values are left to Load: a flag only counts when it was given.
func Flags() []FlagSpec {
	var out []FlagSpec
	for _, s := range specs {
		if s.flag != "" {
			out = append(out, FlagSpec{Name: s.flag, Key: s.key, Usage: s.doc, Type: s.kind.flagType()})
		}
	}
	for _, f := range samplingFlags {
		out = append(out, FlagSpec{Name: f.flag, Key: "root." + f.key, Usage: f.doc, Type: f.typ})
	}
	return out
}
