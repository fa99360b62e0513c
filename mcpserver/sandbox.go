package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rlm-sandbox/rlm"
	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

const openDoc = `Open a persistent confined session for your own Go or JavaScript code. Each cell you run with sandbox_exec is checked by a validator, then runs in a sandboxed worker process (no network, no processes, files only through the tools below) under a per-cell timeout and an output cap; variables persist across cells.
The files you pass are the context: in code, context (the first file), ctx0, ctx1, ...; never read whole, explore them with length, peek, search, count, tally and chunk (the result lists every function with its caps). read_file, list_dir, file_info and grep read inside the files' directories and the roots you pass; write_file writes only into the session's workspace. print shows output to you; FINAL(value) records an answer.
Returns the session id for sandbox_exec and sandbox_close. Close sessions you no longer need: the server holds a few at once, and closes one idle for a while.`

const execDoc = `Run one cell of code in an open sandbox session (sandbox_open) and return what it printed, its FINAL value if it recorded one, the error (kind, message with file:line:col) if it failed, and the session's variables. State persists across cells: declare a variable in one cell, use it in the next.
Go cells are statements and declarations at top level (no package clause; a package you use without importing it is imported for you). JavaScript cells are ES2022 scripts (no require, no import). sandbox_open's notes list what else to know.
Kinds: rejected (the validator refused the code: the message says what to write instead), timeout (the cell ran past its deadline and was stopped; the session lives on), code (a compile or runtime error), limit (a cap was hit), crashed (the worker died; it is restarted and earlier cells replayed).`

const closeDoc = `Close a sandbox session: its worker stops and its variables are gone. The result names the workspace if the code wrote files there.`

type openInput struct {
	Lang               string   `json:"lang,omitempty" jsonschema:"the session's language: go (default) or js"`
	Files              []string `json:"files,omitempty" jsonschema:"context files (text, or of a type the user's [convert] entries turn into text): the first is context, then ctx0, ctx1, ... in the code; absolute, or relative to the server's first root"`
	Roots              []string `json:"roots,omitempty" jsonschema:"more directories the file tools (read_file, list_dir, file_info, grep) may read"`
	CellTimeoutSeconds *float64 `json:"cell_timeout_seconds,omitempty" jsonschema:"deadline of each cell in seconds, 0.001 to the server's cap (default and most: the server's, 120 unless configured)"`
}

type openOutput struct {
	Session            string   `json:"session" jsonschema:"the id to pass to sandbox_exec and sandbox_close"`
	Lang               string   `json:"lang"`
	Files              []string `json:"files" jsonschema:"the context files, as resolved: context = ctx0 is the first"`
	Converted          []string `json:"converted,omitempty" jsonschema:"how each file that is not text became the text the code reads, one line each"`
	Workspace          string   `json:"workspace" jsonschema:"the only directory write_file writes to"`
	Isolation          string   `json:"isolation" jsonschema:"the worker's confinement verdict: full, or degraded(missing layers)"`
	CellTimeoutSeconds float64  `json:"cell_timeout_seconds"`
	IdleTimeoutSeconds float64  `json:"idle_timeout_seconds" jsonschema:"the session is closed after this long without a call"`
	API                []string `json:"api" jsonschema:"the functions code may call, with their caps"`
	Notes              []string `json:"notes" jsonschema:"what code must know about the language in this sandbox"`
}

type execInput struct {
	Session string `json:"session" jsonschema:"the id sandbox_open returned"`
	Code    string `json:"code" jsonschema:"one cell of code in the session's language"`
}

type execOutput struct {
	Session      string       `json:"session"`
	Cell         int          `json:"cell" jsonschema:"the cell's number in the session, from 1"`
	Output       string       `json:"output" jsonschema:"what the cell printed, capped; a cut output ends with a marker stating its true length"`
	Truncated    bool         `json:"truncated,omitempty"`
	Final        *string      `json:"final,omitempty" jsonschema:"the answer the cell recorded with FINAL or FINAL_VAR"`
	Error        *rlm.Failure `json:"error,omitempty" jsonschema:"how the cell failed: kind, message, and pos (file:line:col) when known"`
	Vars         []string     `json:"vars" jsonschema:"the session's variables after the cell"`
	Rebuilt      bool         `json:"rebuilt,omitempty" jsonschema:"the worker died and was replaced; earlier cells were replayed"`
	Lost         *rlm.Failure `json:"lost,omitempty" jsonschema:"what the replay could not restore"`
	Unreplayable bool         `json:"unreplayable,omitempty" jsonschema:"the cell left work running; a rebuilt session will not have it"`
	DurationMS   float64      `json:"duration_ms"`
}

type closeInput struct {
	Session string `json:"session" jsonschema:"the id sandbox_open returned"`
}

type closeOutput struct {
	Session   string `json:"session"`
	Cells     int    `json:"cells" jsonschema:"cells the session ran"`
	Workspace string `json:"workspace,omitempty" jsonschema:"the workspace, when the code wrote files to it"`
}

// openSession opens a sandbox session: rlm.OpenSession, or what a test puts in its place.
var openSession = rlm.OpenSession

func (s *Server) open(ctx context.Context, req *mcp.CallToolRequest, in openInput) (*mcp.CallToolResult, openOutput, error) {
	var out openOutput
	files, err := s.allowed("files", in.Files)
	if err != nil {
		return nil, out, err
	}
	roots, err := s.allowed("roots", in.Roots)
	if err != nil {
		return nil, out, err
	}
	cellTimeout, err := seconds("cell_timeout_seconds", in.CellTimeoutSeconds, s.cellTimeout())
	if err != nil {
		return nil, out, err
	}
	// The slot is taken once the arguments are checked, and given back on every way out but one:
	// the session opened and the server holds it (add), to be released when it ends.
	sl, err := s.reserve(req.Session)
	if err != nil {
		return nil, out, err
	}
	kept := false
	defer func() {
		if !kept {
			sl.release()
		}
	}()
	so := rlm.SessionOptions{Lang: in.Lang, Files: files, Roots: roots, Home: s.opts.Home,
		Limits: s.opts.Limits, CellTimeout: cellTimeout, AllowDegraded: s.opts.AllowDegraded, Tools: s.opts.Tools,
		Convert: s.opts.Convert}
	sess, err := await(s, ctx, func() (*rlm.Session, error) { return openSession(ctx, so) }, func(sess *rlm.Session, err error) {
		if err == nil {
			_ = sess.Close()
		}
	})
	if err != nil {
		return nil, out, openError(err)
	}
	kept = true
	e := &entry{id: s.newID(), lang: in.Lang, s: sess, owner: req.Session, slot: sl}
	if e.lang == "" {
		e.lang = "go"
	}
	e.task = s.rec.startSession(e.id, e.lang, files, roots, sess.Workspace(), clientName(req))
	if err := s.add(e); err != nil {
		s.endSession(e, &rlm.Failure{Kind: fault.Limit, Message: err.Error()})
		return nil, out, err
	}
	out = openOutput{Session: e.id, Lang: e.lang, Files: files, Workspace: sess.Workspace(), Isolation: sess.Isolation().Verdict,
		CellTimeoutSeconds: cellTimeout.Seconds(), IdleTimeoutSeconds: s.opts.IdleTimeout.Seconds(), API: apiLines(e.lang, s.opts.Limits, s.opts.Tools), Notes: controller.LangNotes(e.lang)}
	if out.Files == nil {
		out.Files = []string{}
	}
	for _, c := range sess.Conversions() {
		out.Converted = append(out.Converted, c.String())
	}
	return textResult(openText(out), false), out, nil
}

// openError is the message of a session that did not open.
func openError(err error) error {
	var oe *rlm.OptionError
	if errors.As(err, &oe) {
		switch oe.Option {
		case "Lang":
			return fault.New(fault.Schema, "lang: %v", oe.Err)
		case "Files":
			return fault.New(fault.Schema, "files: %v", oe.Err)
		}
	}
	return err
}

func (s *Server) cellTimeout() time.Duration {
	if s.opts.CellTimeout > 0 {
		return s.opts.CellTimeout
	}
	return limits.CellTimeout
}

// apiLines are the functions a session's code may call, as the system prompt of a run lists
// them (from engine.API, the registry that enforces them, one line per function in its order),
// with this server's caps, and the user's tools after them. The sub-calls (engine.InParent,
// counted as sub-calls) are left out: a session has no model (rlm_ask runs have one).
func apiLines(lang string, l rlm.Limits, tools []rlm.Tool) []string {
	lines, _ := rlm.APILines(lang, l, tools) // checked by New
	var out []string
	for i, line := range lines {
		if i >= len(engine.API) || engine.API[i].Budget != engine.SubCallBudget {
			out = append(out, line)
		}
	}
	return out
}

func openText(o openOutput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s (%s) is open; isolation %s.\n", o.Session, o.Lang, o.Isolation)
	for i, f := range o.Files {
		name := fmt.Sprintf("ctx%d", i)
		if i == 0 {
			name = "context = ctx0"
		}
		fmt.Fprintf(&b, "%s: %s\n", name, f)
	}
	for _, c := range o.Converted {
		b.WriteString(c + "\n")
	}
	fmt.Fprintf(&b, "Workspace (write_file): %s\nEach cell times out after %gs; the session closes after %gs without a call.\nFunctions:\n",
		o.Workspace, o.CellTimeoutSeconds, o.IdleTimeoutSeconds)
	for _, l := range o.API {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("Notes:\n")
	for _, l := range o.Notes {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

func (s *Server) execTool(ctx context.Context, req *mcp.CallToolRequest, in execInput) (*mcp.CallToolResult, execOutput, error) {
	var out execOutput
	if strings.TrimSpace(in.Code) == "" {
		return nil, out, fault.New(fault.Schema, "code is empty: pass one cell of code to run")
	}
	e, done, err := s.acquire(in.Session, req.Session)
	if err != nil {
		return nil, out, err
	}
	defer done()
	start := time.Now()
	r, n := s.exec(ctx, e, in.Code)
	out = execOutput{Session: e.id, Cell: n, Output: r.Output, Truncated: r.Truncated, Final: r.Final, Error: r.Error,
		Vars: make([]string, 0, len(r.Vars)), Rebuilt: r.Rebuilt, Lost: r.Lost, Unreplayable: r.Unreplayable,
		DurationMS: float64(time.Since(start).Microseconds()) / 1000}
	for _, v := range r.Vars {
		out.Vars = append(out.Vars, v.Name)
	}
	return textResult(execText(out), out.Error != nil), out, nil
}

// execText is a cell's result as the REPL shows it: the output, then FINAL, the error and
// notes on their own lines.
func execText(o execOutput) string {
	var b strings.Builder
	b.WriteString(o.Output)
	if o.Output != "" && !strings.HasSuffix(o.Output, "\n") {
		b.WriteString("\n")
	}
	if o.Final != nil {
		fmt.Fprintf(&b, "FINAL: %s\n", *o.Final)
	}
	if o.Error != nil {
		fmt.Fprintf(&b, "error (%s): %s\n", o.Error.Kind, o.Error.Message)
	}
	switch {
	case o.Lost != nil:
		fmt.Fprintf(&b, "the worker was restarted; state was partly lost: %s\n", o.Lost.Message)
	case o.Rebuilt:
		b.WriteString("the worker was restarted and earlier cells were replayed; state is rebuilt\n")
	}
	if o.Unreplayable {
		b.WriteString("note: this cell left work running in the background; a restart will not rebuild it\n")
	}
	if b.Len() == 0 {
		b.WriteString("(no output)\n")
	}
	return b.String()
}

func (s *Server) closeTool(ctx context.Context, req *mcp.CallToolRequest, in closeInput) (*mcp.CallToolResult, closeOutput, error) {
	var out closeOutput
	e, done, err := s.acquire(in.Session, req.Session)
	if err != nil {
		return nil, out, err
	}
	done()
	if !s.remove(e) {
		return nil, out, fault.New(fault.Schema, "session %q is already closed", in.Session)
	}
	err = s.endSession(e, nil)
	e.mu.Lock()
	out = closeOutput{Session: e.id, Cells: e.cells, Workspace: e.s.Workspace()}
	e.mu.Unlock()
	if err != nil {
		return nil, out, err
	}
	cells := "cells"
	if out.Cells == 1 {
		cells = "cell"
	}
	text := fmt.Sprintf("Session %s is closed after %d %s.", out.Session, out.Cells, cells)
	if out.Workspace != "" {
		text += " Files the code wrote are in " + out.Workspace + "."
	}
	return textResult(text, false), out, nil
}

// clientName names the client for the records.
func clientName(req *mcp.CallToolRequest) string {
	if req.Session == nil {
		return ""
	}
	p := req.Session.InitializeParams()
	if p == nil || p.ClientInfo == nil {
		return ""
	}
	return p.ClientInfo.Name + " " + p.ClientInfo.Version
}
