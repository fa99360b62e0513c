// Package home is RLM_HOME's layout: where rlm keeps its configuration, trust store, records,
// caches and workspaces, and which directory RLM_HOME is. Every path under RLM_HOME is spelled
// here and nowhere else; the packages that read or write those files take the path from here.
package home

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"

	"github.com/rlm-sandbox/rlm/fault"
)

// ProjectFile is the project configuration rlm reads from the directory it starts in. It is
// not under RLM_HOME, but it is a file rlm reads its settings from, so write_file refuses the
// name (tools) and config reads it (config).
const ProjectFile = "rlm.toml"

// The names under RLM_HOME.
const (
	configFile    = "config.toml"    // the user's configuration
	trustFile     = "trusted.json"   // the project files the user trusts, by path and digest
	auditFile     = "audit.db"       // the audit trail (SQLite)
	emergencyFile = "EMERGENCY_STOP" // while it exists, no run starts
	historyFile   = "history"        // the TTY REPL's history
	logsDir       = "logs"           // daily logs
	tracesDir     = "traces"         // one JSONL trace per run
	indexDir      = "index"          // cached indexes of inputs
	textDir       = "text"           // inputs converted to text ([convert]), under index/text
	runDir        = "run"            // PID files of running tasks
	workDir       = "work"           // per-task and per-session workspaces
	natsDir       = "nats"           // the embedded NATS server's store (rlm batch)
	cacheDir      = "cache"          // inputs fetched by batch workers, under cache/inputs
	evalDir       = "eval"           // rlm eval's runs
)

// Dir is $RLM_HOME, else ~/.rlm: FromEnv(os.Getenv).
func Dir() (string, error) { return FromEnv(os.Getenv) }

// FromEnv is RLM_HOME as getenv gives it, else .rlm in the user's home directory ($HOME, else
// the password database's). It is always absolute: a relative RLM_HOME, or no home directory
// at all, is an error that says to set an absolute RLM_HOME, never the working directory's
// .rlm, whose config.toml anything that wrote files there would have chosen.
func FromEnv(getenv func(string) string) (string, error) {
	dir, _, err := Resolve(getenv)
	return dir, err
}

// Resolve is FromEnv, and a note when the directory was not named by the environment: with
// neither RLM_HOME nor HOME set, it is .rlm in the password database's home for the user, which
// the note says (the command line prints it), with how to choose another; else the note is "".
func Resolve(getenv func(string) string) (dir, note string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("RLM_HOME"); h != "" {
		if !filepath.IsAbs(h) {
			return "", "", fault.New(fault.Schema, "RLM_HOME=%s is a relative path: rlm would keep its state and read its configuration in whatever directory it starts in; set RLM_HOME to an absolute directory", h)
		}
		return filepath.Clean(h), "", nil
	}
	if h := getenv("HOME"); h != "" {
		if !filepath.IsAbs(h) {
			return "", "", fault.New(fault.Schema, "HOME=%s is a relative path, so rlm has no home directory for its state: set RLM_HOME to an absolute directory, such as RLM_HOME=/var/lib/rlm, or HOME to yours", h)
		}
		return filepath.Join(h, ".rlm"), "", nil
	}
	h, name := passwdHome()
	if h == "" || !filepath.IsAbs(h) {
		return "", "", fault.New(fault.Schema, "HOME is not set and the password database gives no home directory for this user, so rlm has nowhere to keep its state: set RLM_HOME to an absolute directory, such as RLM_HOME=/var/lib/rlm, or HOME to yours")
	}
	dir = filepath.Join(h, ".rlm")
	return dir, fmt.Sprintf("HOME is not set: RLM_HOME is %s, in the home directory the password database gives user %s; set RLM_HOME (or HOME) to choose another", dir, name), nil
}

// passwdHome is the user's home directory and name in the password database; "" when there is
// none. A variable, so that tests can stand in for the database.
var passwdHome = func() (dir, name string) {
	u, err := user.Current()
	if err != nil {
		return "", ""
	}
	return u.HomeDir, u.Username
}

// Ensure creates dir (0700) if it does not exist.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating RLM_HOME %s: %w", dir, err)
	}
	return nil
}

// Config is the user's configuration file.
func Config(dir string) string { return filepath.Join(dir, configFile) }

// TrustStore is the file that records the trusted project files.
func TrustStore(dir string) string { return filepath.Join(dir, trustFile) }

// Audit is the audit database.
func Audit(dir string) string { return filepath.Join(dir, auditFile) }

// EmergencyStop is the file whose existence stops every run.
func EmergencyStop(dir string) string { return filepath.Join(dir, emergencyFile) }

// History is the TTY REPL's history file.
func History(dir string) string { return filepath.Join(dir, historyFile) }

// Logs is the directory of the daily logs.
func Logs(dir string) string { return filepath.Join(dir, logsDir) }

// Traces is the directory of the runs' traces.
func Traces(dir string) string { return filepath.Join(dir, tracesDir) }

// Index is the directory of the inputs' cached indexes.
func Index(dir string) string { return filepath.Join(dir, indexDir) }

// Converted is the cache of inputs converted to text by a [convert] entry, in the index cache.
func Converted(dir string) string { return filepath.Join(dir, indexDir, textDir) }

// Run is the directory of the running tasks' PID files.
func Run(dir string) string { return filepath.Join(dir, runDir) }

// PIDFile is where the run of task keeps its PID.
func PIDFile(dir, task string) string { return filepath.Join(dir, runDir, task+".pid") }

// Work is the directory under which rlm creates workspaces; a workspace below it is rlm's own,
// the only place under RLM_HOME a cell may write.
func Work(dir string) string { return filepath.Join(dir, workDir) }

// TaskWork is the workspace of one run.
func TaskWork(dir, task string) string { return filepath.Join(dir, workDir, task) }

// NATS is the embedded NATS server's store.
func NATS(dir string) string { return filepath.Join(dir, natsDir) }

// InputCache is where batch workers keep the inputs they fetched.
func InputCache(dir string) string { return filepath.Join(dir, cacheDir, "inputs") }

// Eval is the directory of rlm eval's runs.
func Eval(dir string) string { return filepath.Join(dir, evalDir) }

// Aged are the directories whose entries rlm clean removes once they are old: traces,
// workspaces and eval runs.
func Aged(dir string) []string { return []string{Traces(dir), Work(dir), Eval(dir)} }
