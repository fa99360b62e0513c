// Command rlm is the command-line interface of the rlm sandboxed REPL engine.
//
// Each subcommand lives in its own file. This package is the only place that maps error kinds
// (package fault) to exit codes: see exitCode in main.go.
package main
