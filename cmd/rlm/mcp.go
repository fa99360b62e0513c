package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/mcpserver"
	"github.com/rlm-sandbox/rlm/tools"
)

// envMCPToken is the bearer token of `rlm mcp --http`, when --token-file is not given.
const envMCPToken = "RLM_MCP_TOKEN"

type mcpFlags struct {
	http          string
	allowRemote   bool
	tokenFile     string
	roots         []string
	maxSessions   int
	idleTimeout   time.Duration
	replay        string
	allowDegraded bool
	noLog         bool
	cf            configFlags // --model, --cell-timeout, --timeout, --max-calls, … as rlm run has them
}

func newMCPCmd() *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [--root DIR]... [--http ADDR [--allow-remote --token-file FILE]] [flags]",
		Short: "Serve rlm's sandbox and RLM runs to an agent over the Model Context Protocol",
		Example: `  rlm mcp --root ~/logs                # over stdio: what Claude Desktop starts (see the README)
  claude mcp add rlm -- rlm mcp --root .
  # Over HTTP on loopback, with a bearer token clients must send
  export RLM_MCP_TOKEN=$(openssl rand -hex 32)
  rlm mcp --http 127.0.0.1:8765 --root ~/data`,
		Long: `Mcp serves rlm to an agent (Claude Desktop, Claude Code, any MCP client) over stdio, or over
streamable HTTP with --http ADDR. Tools:
  sandbox_open, sandbox_exec, sandbox_close  a confined Go/JS session for the agent's own code
  rlm_ask                                    a whole RLM run: answer a question about files
  validate                                   check code against the sandbox policy
Resources: the traces of this server's runs (rlm://trace/TASK_ID).

Clients may name files and directories under the --root directories only (default: the current
directory; symlinks are resolved before the check). At most --max-sessions sessions and runs
hold a worker at once; a session idle for --idle-timeout is closed. rlm_ask uses the models,
limits and budgets of rlm run (rlm.toml, RLM_MODEL, --model, --max-calls, …; see rlm config); a client may lower
the limits of a run, never raise them. Sessions and runs alike get rlm.toml's [tools.NAME]
and [convert] (a file that is not text is converted first; sandbox_open says by what). Every tool call and session goes to the audit trail
under RLM_HOME.

--http listens on a loopback address only (127.0.0.1:PORT or [::1]:PORT), unless --allow-remote,
which needs a bearer token of at least 32 characters (--token-file FILE, else RLM_MCP_TOKEN):
clients send "Authorization: Bearer TOKEN". Without a token, a loopback server is unauthenticated
(it says so on stderr): any program on this machine that reaches it can use it. rlm serves plain
HTTP: put TLS in front of a remote address. Over HTTP every read from a client has a deadline (headers 10 s, body 30 s, read only
once the token is checked), each write 30 s, at most 256 connections are open at once (one more
takes the place of the oldest that has not sent a whole request with the token), and the
sessions of a client whose event stream closed and did not come back within 5 s are closed.
SIGINT or SIGTERM stops the server and closes its sessions.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on `ADDR` (loopback host:port) instead of stdio")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "allow a non-loopback --http address (needs a bearer token)")
	fl.StringVar(&f.tokenFile, "token-file", "", "read the bearer token of --http from `FILE` (default: $"+envMCPToken+")")
	fl.StringArrayVar(&f.roots, "root", nil, "a `DIR` whose files clients may name (repeatable; default: the current directory)")
	fl.IntVar(&f.maxSessions, "max-sessions", limits.MCPSessions, "sessions and runs holding a worker at once")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", limits.MCPIdle, "close a session unused this long")
	fl.StringVar(&f.replay, "replay", "", "answer rlm_ask with a scripted model from `FILE` (see examples/demo/model.json)")
	f.cf.register(fl) // the limits, budgets and models of rlm run and rlm.toml; a client may only lower them
	fl.BoolVar(&f.allowDegraded, "allow-degraded", false, allowDegradedUsage)
	fl.BoolVar(&f.noLog, "no-log", false, "write no daily log for runs (also SFA_NO_LOG=1)")
	return cmd
}

func runMCP(ctx context.Context, stderr io.Writer, f mcpFlags) error {
	opts, err := f.options(stderr)
	if err != nil {
		return err
	}
	var ho mcpserver.HTTPOptions
	switch {
	case f.http != "":
		opts.Transport = "http"
		if ho, err = f.httpOptions(); err != nil {
			return err
		}
		if err := mcpserver.CheckHTTP(f.http, ho); err != nil {
			return usageError{err}
		}
	case f.allowRemote || f.tokenFile != "":
		return usagef("--allow-remote and --token-file go with --http ADDR")
	}
	opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if f.http == "" {
		// stdout carries the protocol: nothing else may write there.
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	ho.Ready = func(a net.Addr) {
		if ho.Token == "" {
			fmt.Fprintf(stderr, "rlm mcp: warning: no bearer token: the server is unauthenticated, so any program on this machine that reaches %s "+
				"can run code and read the roots; set %s (openssl rand -hex 32) or pass --token-file FILE to require one\n", a, envMCPToken)
		}
		fmt.Fprintf(stderr, "rlm mcp: serving http://%s/ (roots %s)\n", a, strings.Join(opts.Roots, ", "))
	}
	return srv.ServeHTTP(ctx, f.http, ho)
}

// options turns the flags, the environment and the config files into the server's options.
func (f mcpFlags) options(stderr io.Writer) (mcpserver.Options, error) {
	if f.maxSessions < 1 {
		return mcpserver.Options{}, usagef("--max-sessions must be at least 1, got %d", f.maxSessions)
	}
	if _, err := positive("--idle-timeout", f.idleTimeout); err != nil {
		return mcpserver.Options{}, err
	}
	roots, err := mcpRoots(f.roots)
	if err != nil {
		return mcpserver.Options{}, err
	}
	conf, err := loadConfiguration(stderr, f.cf.given())
	if err != nil {
		return mcpserver.Options{}, err
	}
	var ro rlm.Options
	if err := ro.Configure(conf); err != nil && f.replay == "" {
		return mcpserver.Options{}, usageError{err}
	}
	if err := retryBackoff(&ro.Model); err != nil {
		return mcpserver.Options{}, err
	}
	home := rlmHome()
	replay := f.replay
	if replay != "" {
		if replay, err = filepath.Abs(replay); err != nil {
			return mcpserver.Options{}, usageError{err}
		}
	}
	return mcpserver.Options{
		Home: home, Roots: roots, Model: ro.Model, Replay: replay, MaxSessions: f.maxSessions, IdleTimeout: f.idleTimeout,
		CellTimeout: ro.CellTimeout, Timeout: ro.Timeout, MaxIterations: ro.MaxIterations, MaxRuns: ro.MaxRuns, Limits: ro.Limits,
		AllowDegraded: f.allowDegraded, NoLog: f.noLog || os.Getenv(envNoLog) == "1", Name: "rlm", Version: moduleVersion(),
		Tools: ro.Tools, Convert: ro.Convert, // rlm.toml's [tools.NAME] and [convert]
	}, nil
}

// mcpRoots are the --root directories, or the current directory; never / by default.
func mcpRoots(flags []string) ([]string, error) {
	if len(flags) > 0 {
		for _, r := range flags {
			if st, err := os.Stat(r); err != nil || !st.IsDir() {
				return nil, usagef("--root %s: not a directory", r)
			}
		}
		return flags, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, usagef("the current directory: %v; pass --root DIR", err)
	}
	if wd == string(filepath.Separator) {
		return nil, usagef("the current directory is /, which would let clients name every file: pass --root DIR for the directories they may read")
	}
	return []string{wd}, nil
}

// maxTokenFile is the largest --token-file read.
const maxTokenFile = 64 << 10

func (f mcpFlags) httpOptions() (mcpserver.HTTPOptions, error) {
	o := mcpserver.HTTPOptions{AllowRemote: f.allowRemote, Token: os.Getenv(envMCPToken)}
	if f.tokenFile != "" {
		b, err := tools.ReadRegular(f.tokenFile, maxTokenFile)
		if err != nil {
			return o, usageError{err}
		}
		o.Token = strings.TrimSpace(string(b))
	}
	return o, nil
}
