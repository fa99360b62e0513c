package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/tools"
)

// Options configure a Server. The zero value is safe: no file may be named, no model is
// configured (rlm_ask says how to configure one), four sessions, ten minutes of idleness.
type Options struct {
	// Home holds the records (audit.db, traces/, logs/) and the default workspaces; "" =
	// $RLM_HOME, else ~/.rlm.
	Home string
	// Roots are the directories whose files and subdirectories a client may name (files,
	// roots); a relative path a client sends is relative to the first. None: no files.
	Roots []string
	// Model is rlm_ask's model client configuration, budgets included (rlm.Options.Model).
	// Without Models (and without Replay), rlm_ask refuses with a message saying what to set.
	Model llm.Config
	// Replay answers rlm_ask with the scripted model of this reply file (package llm/replay;
	// rlm.Options.Replay).
	Replay string

	MaxSessions   int           // sessions and runs holding a worker at once (4)
	IdleTimeout   time.Duration // a session unused this long is closed (10 min)
	CellTimeout   time.Duration // per cell, sessions and runs (120 s); a client may ask for less
	Timeout       time.Duration // a run's wall clock (90 min); a client may ask for less
	MaxIterations int           // a run's root iterations (25); a client may ask for fewer
	MaxRuns       int           // processes with a model run going in Home at once (1; rlm.Options.MaxRuns)
	Limits        rlm.Limits    // the caps of sessions and runs
	AllowDegraded bool          // run model code even below the minimum confinement
	NoLog         bool          // no daily log for runs (the audit trail and traces are written)
	// Tools are the user's own tools (rlm.Tool), offered to the code of every session and run;
	// each run and each session has its own MaxCalls.
	Tools []rlm.Tool
	// Convert turns the files a client names that are not text into text (rlm.Options.Convert),
	// for sessions and runs alike, through the index cache under Home.
	Convert map[string]rlm.Converter

	// Name and Version are the server's implementation, as the client sees it.
	Name, Version string
	// Transport names the transport in the server's audit record ("stdio", "http").
	Transport string
	// Logger gets the server's own diagnostics (nil: none). Never stdout under stdio.
	Logger *slog.Logger
}

// Server is an MCP server of rlm's tools. It is safe for concurrent use by many clients.
type Server struct {
	opts  Options
	roots []string     // real paths of Options.Roots
	given []string     // Options.Roots, absolute and cleaned, not resolved
	files *tools.Files // the roots, for allow (RLM_HOME hidden)
	mcp   *mcp.Server
	rec   *records
	caps  llm.Budget // the model's budgets: a client may lower them only

	mu        sync.Mutex
	sessions  map[string]*entry
	slots     int            // workers held: open sessions and runs in flight (slot)
	abandoned int            // cancelled calls still blocked opening their files (await)
	runs      map[string]run // task id -> its trace, for the resources
	order     []string       // the runs' task ids, oldest first
	watched   map[*mcp.ServerSession]bool
	inflight  map[*mcp.ServerSession]map[*call]bool // the tool calls running, by client

	validations chan struct{} // the validate calls running (maxValidations)
	closed      bool
}

// New checks opts, opens the audit trail and records the server as a task.
func New(opts Options) (*Server, error) {
	if opts.Home == "" {
		h, err := home.Dir()
		if err != nil {
			return nil, err
		}
		opts.Home = h
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = limits.MCPSessions
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = limits.MCPIdle
	}
	if opts.Name == "" {
		opts.Name = "rlm"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Transport == "" {
		opts.Transport = "stdio"
	}
	if _, err := rlm.APILines("go", opts.Limits, opts.Tools); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	s := &Server{opts: opts, sessions: map[string]*entry{}, runs: map[string]run{},
		watched: map[*mcp.ServerSession]bool{}, inflight: map[*mcp.ServerSession]map[*call]bool{},
		validations: make(chan struct{}, maxValidations)}
	var err error
	if s.given, s.roots, err = realRoots(opts.Roots); err != nil {
		return nil, err
	}
	if len(opts.Model.Models) > 0 || opts.Replay != "" {
		cfg := opts.Model
		if opts.Replay != "" { // rlm.Ask points the configuration at the scripted model; its budgets stay
			cfg.Provider, cfg.BaseURL, cfg.Models, cfg.SubModels, cfg.Endpoints, cfg.DefaultEndpoint, cfg.Catalog = "", "http://127.0.0.1/", []string{"replay"}, nil, nil, "", nil
		}
		c, err := llm.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: the model configuration: %w", err)
		}
		s.caps = c.Budget()
	}
	if s.rec, err = openRecords(opts, s.roots); err != nil {
		return nil, err
	}
	if s.files, err = openResolver(s.given, opts.Home); err != nil {
		_ = s.rec.close()
		return nil, err
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Title: "rlm: confined Go/JS sandbox and Recursive Language Model runs", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: opts.Logger, Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: false},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		}})
	s.addTools()
	s.mcp.AddReceivingMiddleware(s.ownTraces)
	return s, nil
}

// instructions tell the client's model what the server is for.
const instructions = `rlm runs code in a confined sandbox (Landlock, seccomp, namespaces, rlimits; an AST validator before each cell).
Use sandbox_open, then sandbox_exec cell by cell, to explore files of any size with your own Go or JavaScript: the file is a handle (context) read with peek, search, count and chunk, never pasted whole. Close with sandbox_close.
Use rlm_ask to have rlm's own root model answer a question about files (a whole Recursive Language Model run).
Use validate to check code against the sandbox policy without running it.`

// Run serves one client over t (mcp.StdioTransport for stdio) until the client disconnects
// or ctx ends. It does not close the server: call Close when no client is left.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Close closes every session (recorded as stopped by the server), waits for nothing else, and
// finishes the server's audit record. Runs in flight end with their clients' requests.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	open := make([]*entry, 0, len(s.sessions))
	for id, e := range s.sessions {
		open = append(open, e)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	for _, e := range open {
		s.finishSession(e, rlm.Failure{Kind: fault.Limit, Message: "the MCP server stopped"})
	}
	_ = s.files.Close()
	return s.rec.close()
}
