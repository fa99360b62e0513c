// Command rlm is the command-line interface of the rlm sandboxed REPL engine.
//
// Each subcommand lives in its own file. `rlm run` is a client of package rlm (the module
// root): it maps flags, the environment and config files to rlm.Options, and rlm.Result to
// stdout, stderr and the exit status; `rlm mcp` is as thin a client of package mcpserver. This
// package is the only place that maps error kinds (package fault) to exit codes: see exitCode
// in main.go.
package main
