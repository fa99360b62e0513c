// Package config loads rlm's configuration: every limit and budget of a run, the models and
// backends, and where each value came from.
//
//	cfg, err := config.Load(config.Options{Flags: givenFlags}) // ./rlm.toml, $RLM_HOME/config.toml, env, flags
//	lc, err := cfg.LLM(nil)                                    // the model client's llm.Config, keys read from the environment
//	cfg.Limits.MaxIterations, cfg.Limits.API(), cfg.Source("limits.max_calls")
//
// # Precedence
//
// A flag beats the environment, which beats the project file (./rlm.toml), which beats the
// user file ($RLM_HOME/config.toml, RLM_HOME defaulting to ~/.rlm), which beats the built-in
// default (Defaults: package limits declares every default and describes each limit).
// Config.Source says which of them gave each value: the flag, the variable, the file's path, or
// "default".
//
// # Trust
//
// The user file is the user's own. A project file may have been written by anyone who could
// write to the directory, a model's code among them, so it is used whole only once the user
// trusted it: Trust (rlm config trust) records its absolute path, links resolved, and the
// SHA-256 of its content in the trust store ($RLM_HOME/trusted.json, written atomically, 0600,
// at most 512 files); a change to the content untrusts it, and Untrust forgets it. Load reads
// the file once and hashes and parses the same bytes. Untrusted, it may only make the run
// stricter than the user file and the defaults: each key of [defaults] and [limits] has a
// direction in keys.go (a cap, budget or time may be lowered; max_cost, where 0 is no budget,
// may be set to any positive amount at or below the lower sources'; a model, provider or backend
// never). Anything else (those keys, any [backends.NAME] or [models.NAME] key, a raised limit)
// makes Load fail with a fault.Schema error that names the file and the keys, and applies
// nothing of it. File.Trusted says which it was; a corrupt trust store is an error naming it.
//
// # Files
//
// A file has four tables:
//
//	[defaults]   model, sub_model, provider, backend, timeout
//	[limits]     max_iterations, max_calls, max_tokens, max_cost, cell_timeout, peek_chars, …
//	[backends.NAME] and [models.NAME], as docs/models.md documents them (llm.Settings)
//
// `rlm config --keys` lists every key of [defaults] and [limits] with its flag, its variable,
// its range and its meaning; the table in keys.go is the one list. Each key of [limits] has a
// variable RLM_ and the key in upper case (RLM_MAX_CALLS); defaults.timeout's is
// SFA_DEFAULTS_TIMEOUT, defaults.model's RLM_MODEL, defaults.sub_model's RLM_SUB_MODEL,
// defaults.provider's RLM_PROVIDER. The variables that set no key (RLM_HOME, RLM_API_KEY, …)
// are listed in variables.go; with the keys' they are every RLM_ or SFA_ variable rlm reads
// (Variables), and UnknownVariables warns about any other name of that form with the one it
// probably meant (RLM_TIMEOUT: SFA_DEFAULTS_TIMEOUT). A key has one variable: no alias, so
// that no two variables can disagree about one value.
//
// Backends and models are merged by name: a (trusted) project file's [models.big] replaces the
// user file's [models.big] whole. Values of [defaults] and [limits] are merged key by key.
//
// # Checks
//
// Every value is checked when it is read: its type, and a finite range (NaN, infinities and
// negative sizes fail; durations are checked before a number of seconds is converted, so none
// overflows; zero is never "unlimited": max_cost = 0 means no dollar budget, which
// the always finite call and token budgets still bound). A key no table has is an error, with
// the nearest known key where one is close ("limits.timeout: did you mean defaults.timeout?");
// the fields of a model's extra table are free-form, as they are sent to the server as given.
// Backends and models are checked by llm.New (ranges of sampling settings, prices, references
// between them). Every error is a fault.Schema error that names the file, variable or flag,
// the key and what is allowed: "rlm.toml: limits.max_calls = 0: want 1 to 100,000".
//
// # Keys
//
// API keys are never read from a file: [backends.NAME] names the variable with api_key_env,
// and the default backend's key is RLM_API_KEY, else OPENAI_API_KEY (ANTHROPIC_API_KEY when the
// provider is anthropic). Load reads no key; LLM reads them into the llm.Config. Entries and
// Write show a key's variable and whether it is set, never its value, and no message of this
// package quotes a value that could be a key without redacting it.
package config
