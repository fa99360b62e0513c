package config

import (
	"reflect"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
)

// kind is how a setting's value is written and checked.
type kind int

const (
	kInt      kind = iota // a whole number
	kSize                 // bytes: a whole number, or a string with a unit ("512MiB", "2 GB")
	kDuration             // a Go duration ("90m", "30s"), or a whole number of seconds
	kUSD                  // US dollars: a number; 0 is none
	kLadder               // model names: "small,large" or ["small", "large"]
	kProvider             // "openai" or "anthropic"
	kName                 // a name ([backends.NAME], "default")
)

// flagType is the type of a flag of kind k, as help shows it.
func (k kind) flagType() string {
	switch k {
	case kInt:
		return "int"
	case kSize:
		return "bytes"
	case kDuration:
		return "duration"
	case kUSD:
		return "float"
	}
	return "string"
}

// spec is one setting of [defaults] or [limits]: its key in the file, its flag and variable,
// its range and where its value lives in a Config. The table below is the one list of them:
// loading, checking, `rlm config` and the documentation all read it.
type spec struct {
	key    string // "limits.max_calls"
	flag   string // "max-calls" (--max-calls); "" when there is none
	env    string // "RLM_MAX_CALLS"; "" when there is none
	kind   kind
	dir    direction // which of its values an untrusted project file may set
	lo, hi float64   // the allowed range, in the kind's unit (bytes, nanoseconds, dollars)
	doc    string
	field  func(*Config) any // a pointer to the value in c
}

// direction is which values of a key make a run stricter, the only values a project file the
// user has not trusted may set (trust.go).
type direction int

const (
	// needsTrust: any value needs a trusted file (a model, a provider, a backend). The zero value,
	// so that a key added without a direction fails closed.
	needsTrust direction = iota
	// lowerIsStricter: a cap, budget or time; a value at or below the one the lower sources give
	// is stricter.
	lowerIsStricter
	// zeroIsNone: a budget where 0 means none (max_cost); any positive value is stricter than 0,
	// and a positive value at or below a positive one.
	zeroIsNone
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
	tib = 1 << 40
)

// Defaults are rlm's built-in values. Every limit's default is package limits' (limits.Table),
// the one place a default is declared, so that a default here cannot differ from the one the
// packages that enforce the limit apply.
func Defaults() Config {
	c := Config{Provider: llm.ProviderOpenAI, Backend: llm.DefaultEndpointName}
	for _, l := range limits.Table {
		s, ok := lookup(l.Key)
		if !ok {
			panic("config: limits.Table names " + l.Key + ", which is not a key")
		}
		v := reflect.ValueOf(s.field(&c)).Elem()
		v.Set(reflect.ValueOf(l.Default).Convert(v.Type()))
	}
	return c
}

// described fills in the description of each key that package limits describes (limits.Table):
// a limit's line is written once, there. Every other key has its own.
func described(ss []spec) []spec {
	for i, s := range ss {
		if l, ok := limits.Lookup(s.key); ok {
			ss[i].doc = l.Doc
		}
	}
	return ss
}

// specs: the description of a limit ("" below) is limits.Table's.
var specs = described([]spec{
	{"defaults.model", "model", "RLM_MODEL", kLadder, needsTrust, 0, 0, "the root model; \"small,large\" is an escalation ladder", func(c *Config) any { return &c.Model }},
	{"defaults.sub_model", "sub-model", "RLM_SUB_MODEL", kLadder, needsTrust, 0, 0, "the model of llm_query (its own ladder); default: the root model", func(c *Config) any { return &c.SubModel }},
	{"defaults.provider", "", "RLM_PROVIDER", kProvider, needsTrust, 0, 0, "the API of the default backend: openai (any OpenAI-compatible server) or anthropic", func(c *Config) any { return &c.Provider }},
	{"defaults.backend", "", "", kName, needsTrust, 0, 0, "the backend of models that name none ([backends.NAME], or default)", func(c *Config) any { return &c.Backend }},
	{"defaults.timeout", "timeout", "SFA_DEFAULTS_TIMEOUT", kDuration, lowerIsStricter, float64(time.Second), float64(7 * 24 * time.Hour), "", func(c *Config) any { return &c.Timeout }},

	{"limits.max_iterations", "max-iterations", "RLM_MAX_ITERATIONS", kInt, lowerIsStricter, 1, 1000, "", func(c *Config) any { return &c.Limits.MaxIterations }},
	{"limits.max_blocks", "", "RLM_MAX_BLOCKS", kInt, lowerIsStricter, 1, 100, "", func(c *Config) any { return &c.Limits.MaxBlocks }},
	{"limits.feedback_chars", "", "RLM_FEEDBACK_CHARS", kInt, lowerIsStricter, 1000, 1_000_000, "", func(c *Config) any { return &c.Limits.FeedbackChars }},
	{"limits.max_subcalls", "max-subcalls", "RLM_MAX_SUBCALLS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.MaxSubCalls }},
	{"limits.max_batches", "max-batches", "RLM_MAX_BATCHES", kInt, lowerIsStricter, 1, 10_000, "", func(c *Config) any { return &c.Limits.MaxBatches }},
	{"limits.batch_width", "", "RLM_BATCH_WIDTH", kInt, lowerIsStricter, 1, 64, "", func(c *Config) any { return &c.Limits.BatchWidth }},
	{"limits.max_runs", "max-runs", "RLM_MAX_RUNS", kInt, lowerIsStricter, 1, 1000, "", func(c *Config) any { return &c.Limits.MaxRuns }},
	{"limits.max_calls", "max-calls", "RLM_MAX_CALLS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.MaxCalls }},
	{"limits.max_tokens", "max-tokens", "RLM_MAX_TOKENS", kInt, lowerIsStricter, 1, 1_000_000_000, "", func(c *Config) any { return &c.Limits.MaxTokens }},
	{"limits.max_cost", "max-cost", "RLM_MAX_COST", kUSD, zeroIsNone, 0, 100_000, "", func(c *Config) any { return &c.Limits.MaxCost }},
	{"limits.cell_timeout", "cell-timeout", "RLM_CELL_TIMEOUT", kDuration, lowerIsStricter, float64(100 * time.Millisecond), float64(24 * time.Hour), "", func(c *Config) any { return &c.Limits.CellTimeout }},
	{"limits.output_chars", "", "RLM_OUTPUT_CHARS", kInt, lowerIsStricter, 1000, 10_000_000, "", func(c *Config) any { return &c.Limits.OutputChars }},
	{"limits.peek_chars", "", "RLM_PEEK_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "", func(c *Config) any { return &c.Limits.PeekChars }},
	{"limits.search_results", "", "RLM_SEARCH_RESULTS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.SearchResults }},
	{"limits.match_chars", "", "RLM_MATCH_CHARS", kInt, lowerIsStricter, 10, 100_000, "", func(c *Config) any { return &c.Limits.MatchChars }},
	{"limits.chunks", "", "RLM_CHUNKS", kInt, lowerIsStricter, 1, 1_000_000, "", func(c *Config) any { return &c.Limits.Chunks }},
	{"limits.tally_results", "", "RLM_TALLY_RESULTS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.TallyResults }},
	{"limits.text_chars", "", "RLM_TEXT_CHARS", kInt, lowerIsStricter, 1000, 1_000_000_000, "", func(c *Config) any { return &c.Limits.TextChars }},
	{"limits.read_chars", "", "RLM_READ_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "", func(c *Config) any { return &c.Limits.ReadChars }},
	{"limits.grep_results", "", "RLM_GREP_RESULTS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.GrepResults }},
	{"limits.write_bytes", "", "RLM_WRITE_BYTES", kSize, lowerIsStricter, 1, float64(limits.WorkerFileBytes), "", func(c *Config) any { return &c.Limits.WriteBytes }},
	{"limits.file_calls", "", "RLM_FILE_CALLS", kInt, lowerIsStricter, 1, 100_000, "", func(c *Config) any { return &c.Limits.FileCalls }},
	{"limits.final_chars", "", "RLM_FINAL_CHARS", kInt, lowerIsStricter, 100, 10_000_000, "", func(c *Config) any { return &c.Limits.FinalChars }},
	{"limits.workspace_bytes", "", "RLM_WORKSPACE_BYTES", kSize, lowerIsStricter, mib, tib, "", func(c *Config) any { return &c.Limits.WorkspaceBytes }},
	{"limits.workspace_entries", "", "RLM_WORKSPACE_ENTRIES", kInt, lowerIsStricter, 1, 10_000_000, "", func(c *Config) any { return &c.Limits.WorkspaceEntries }},
	{"limits.worker_memory", "", "RLM_WORKER_MEMORY", kSize, lowerIsStricter, 64 * mib, 64 * gib, "", func(c *Config) any { return &c.Limits.WorkerMemory }},
})

// lookup returns the spec of a key.
func lookup(key string) (spec, bool) {
	for _, s := range specs {
		if s.key == key {
			return s, true
		}
	}
	return spec{}, false
}
