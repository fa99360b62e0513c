package worker

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rlm-sandbox/rlm/engine"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/tools"
)

// localTools serves the functions the registry places in the worker (engine.InWorker): the
// context tools, from memory-mapped context files that the worker's Landlock rules allow it to
// read, and the file tools. Everything else goes to the parent.
type localTools struct {
	store     *tools.Store
	files     *tools.Files // the file tools over cfg.Roots and cfg.Workspace; nil if filesErr
	filesErr  error        // why the file tools are unavailable
	blocked   []blockedRoot
	fileCalls *tools.Counter // calls counted against engine.FileCallBudget this session
	hints     hints          // notes on the running cell's regexes, appended to its output
}

// openLocalTools maps the context files from the descriptors the worker inherited: a confined
// worker may not be able to open them by path (it runs as an unprivileged uid, and Landlock grants
// it no path to them).
func openLocalTools(cfg Config) (*localTools, error) {
	lt, err := openContextTools(cfg)
	if err != nil {
		return nil, err
	}
	lim := cfg.Limits
	lt.hints.js = cfg.Lang == "js"
	lt.fileCalls = tools.NewCounter("file-tool call", lim.FileCalls, fileCallsHint())
	// The roots are descriptors the parent opened; opens through them stay subject to DAC and
	// Landlock. A root or workspace the user named that the worker cannot use refuses the worker.
	if len(cfg.Roots) == 0 && cfg.Workspace == nil {
		lt.filesErr = errors.New("this session has no allowed roots; start it with --root DIR or --out DIR")
		return lt, nil
	}
	if lt.files, lt.blocked, err = openFileTools(cfg); err != nil {
		return nil, err
	}
	return lt, nil
}

func openContextTools(cfg Config) (*localTools, error) {
	if len(cfg.ContextFDs) == 0 {
		return &localTools{}, nil
	}
	l := cfg.Limits
	lim := tools.Limits{PeekChars: l.PeekChars, SearchResults: l.SearchResults, LineChars: l.MatchChars, Chunks: l.Chunks, TallyResults: l.TallyResults, TextChars: l.TextChars}
	files := make([]*os.File, len(cfg.ContextFDs))
	for i, fd := range cfg.ContextFDs {
		name := fmt.Sprintf("fd%d", fd)
		if i < len(cfg.Contexts) {
			name = cfg.Contexts[i]
		}
		files[i] = os.NewFile(uintptr(fd), name)
	}
	var st *tools.Store
	var err error
	if len(cfg.IndexFDs) == 0 {
		st, err = tools.OpenFiles(files, lim)
	} else {
		idx := indexFiles(cfg)
		st, err = tools.OpenIndexed(files, idx, lim)
		files = append(files, idx...)
	}
	for _, f := range files {
		f.Close() // the mappings outlive the descriptors
	}
	if err != nil {
		return nil, err
	}
	return &localTools{store: st}, nil
}

// fileCallsHint is what the file-call budget's error advises, naming from the registry the
// functions it counts and the worker's that it does not.
func fileCallsHint() string {
	var free []string
	for _, f := range engine.API {
		if f.Place == engine.InWorker && f.Replay == engine.Journaled && f.Budget == engine.NoBudget {
			free = append(free, f.Name)
		}
	}
	free = append(free, "the context tools")
	return engine.Series(engine.FileCallBudget.Names()) + " count (" + engine.Series(free) +
		" do not); work from what you have read, or grep a whole directory in one call"
}

// call runs a function the registry places in the worker; handled is false for the others.
// Those a replay reruns are the context tools: their first argument is a context, and they read
// immutable, mapped inputs. Those it serves from the journal are the file tools.
func (t *localTools) call(name string, args []any) (result any, handled bool, err error) {
	f, _ := engine.Lookup(name)
	switch {
	case f.Place != engine.InWorker:
		return nil, false, nil
	case f.Replay == engine.Journaled:
		result, err = t.callFile(f, args)
	default:
		result, err = t.callContext(name, args)
	}
	return result, true, err
}

// callContext runs a context tool.
func (t *localTools) callContext(name string, args []any) (any, error) {
	if t.store == nil {
		return nil, fault.New(fault.Logic, "%s: this session has no context; start it with --ctx FILE", name)
	}
	doc, err := t.doc(args)
	if err != nil {
		return nil, err
	}
	switch name {
	case "length":
		return doc.Length(), nil
	case "peek":
		s, err := doc.Peek(intArg(args, 1), intArg(args, 2))
		return s.Text, toolErr(err)
	case "text":
		s, err := doc.Text()
		return s, toolErr(err)
	case "count":
		n, err := doc.Count(strArg(args, 1))
		if err == nil {
			t.hints.anchored(doc, "count", strArg(args, 1), n)
		}
		return n, toolErr(err)
	case "search":
		if len(args) > 3 {
			return nil, fault.New(fault.Code, "search(ctx, regex, from) takes one from (the number of matches to skip), got %d", len(args)-2)
		}
		r, err := doc.Search(strArg(args, 1), intArg(args, 2))
		if err != nil {
			return nil, toolErr(err)
		}
		if r.From == 0 {
			t.hints.anchored(doc, "search", strArg(args, 1), r.Total)
		}
		return searchResult(r), nil
	case "tally":
		r, err := doc.Tally(strArg(args, 1))
		if err != nil {
			return nil, toolErr(err)
		}
		t.hints.anchored(doc, "tally", strArg(args, 1), r.Total)
		return tallies(r), nil
	case "chunk":
		spans, err := doc.Chunk(intArg(args, 1), intArg(args, 2))
		return spansOf(spans), toolErr(err)
	}
	return nil, fault.New(fault.Logic, "%s: the worker has no context tool of this name", name)
}

// callFile runs a file tool. Results are plain data: file_info a map with snake_case keys, grep
// a list of {path, line, start, end, text}, write_file its truncation warning ("" if none).
// Every call counted against the file-call budget is charged, a refused one too (a loop
// probing paths ends at the budget).
func (t *localTools) callFile(f engine.Func, args []any) (any, error) {
	name := f.Name
	if f.Budget == engine.FileCallBudget {
		if err := t.fileCalls.Take(1); err != nil {
			return nil, fault.Wrap(fault.Limit, err, name)
		}
	}
	if t.files == nil {
		return nil, fault.New(fault.Denied, "%s: file tools are unavailable: %v", name, t.filesErr)
	}
	v, err := t.runFile(name, args)
	if errors.Is(err, fault.Denied) {
		path := strArg(args, 0)
		if name == "grep" {
			path = strArg(args, 1)
		}
		err = t.whyBlocked(name, path, err)
	}
	return v, err
}

func (t *localTools) runFile(name string, args []any) (any, error) {
	switch name {
	case "read_file":
		s, err := t.files.Read(strArg(args, 0))
		return s, fileErr(err)
	case "list_dir":
		names, err := t.files.List(strArg(args, 0))
		out := make([]any, len(names))
		for i, n := range names {
			out[i] = n
		}
		return out, fileErr(err)
	case "file_info":
		fi, err := t.files.Info(strArg(args, 0))
		if err != nil {
			return nil, fileErr(err)
		}
		return map[string]any{"name": fi.Name, "size": fi.Size, "is_dir": fi.IsDir, "mod_time": fi.ModTime.Format(time.RFC3339)}, nil
	case "grep":
		r, err := t.files.Grep(strArg(args, 0), strArg(args, 1))
		out := make([]any, len(r.Matches))
		for i, m := range r.Matches {
			out[i] = map[string]any{"path": m.Path, "line": m.Line, "start": m.Start, "end": m.End, "text": m.Text}
		}
		return out, fileErr(err)
	case "write_file":
		warn, err := t.files.Write(strArg(args, 0), strArg(args, 1))
		return warn, fileErr(err)
	}
	return nil, fault.New(fault.Logic, "%s: the worker has no file tool of this name", name)
}

// fileErr is toolErr, with guard refusals as denials.
func fileErr(err error) error {
	if errors.Is(err, tools.ErrDenied) {
		return fault.Wrap(fault.Denied, err, "")
	}
	return toolErr(err)
}

// replayed charges a call answered from the journal during a replay to the session's budget,
// as the original call was: a rebuilt worker does not get a fresh file-call budget.
func (t *localTools) replayed(f engine.Func) {
	if t != nil && f.Budget == engine.FileCallBudget {
		_ = t.fileCalls.Take(1)
	}
}

// doc resolves the context argument: "context" (or "ctx0") is the first file, "ctxN" the others.
func (t *localTools) doc(args []any) (*tools.Doc, error) {
	name := "ctx0"
	if len(args) > 0 {
		if s, ok := args[0].(string); ok && s != "context" {
			name = s
		}
	}
	return t.store.Doc(name)
}

// searchResult is a search page as the engines receive it: {matches, total, from, truncated},
// each match {start, end, line, text, line_text, ref, index, total}.
func searchResult(r tools.SearchResult) map[string]any {
	out := make([]any, len(r.Matches))
	for i, m := range r.Matches {
		out[i] = map[string]any{"start": m.Start, "end": m.End, "line": m.Line, "text": m.Text, "line_text": m.LineText, "ref": m.Ref,
			"index": r.From + int64(i), "total": r.Total}
	}
	return map[string]any{"matches": out, "total": r.Total, "from": r.From, "truncated": r.Capped}
}

// tallies is a tally as the engines receive it: a list of {text, count, distinct}.
func tallies(r tools.TallyResult) []any {
	out := make([]any, len(r.Tallies))
	for i, x := range r.Tallies {
		out[i] = map[string]any{"text": x.Text, "count": x.Count, "distinct": r.Distinct}
	}
	return out
}

func spansOf(spans []tools.Span) []any {
	out := make([]any, len(spans))
	for i, s := range spans {
		out[i] = map[string]any{"index": int64(s.Index), "start": s.Start, "end": s.End, "ref": s.Ref}
	}
	return out
}

func intArg(args []any, i int) int64 {
	if i >= len(args) {
		return 0
	}
	switch v := args[i].(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	}
	return 0
}

func strArg(args []any, i int) string {
	if i < len(args) {
		if s, ok := args[i].(string); ok {
			return s
		}
	}
	return ""
}

// toolErr gives tool errors a fault kind: exhausted budgets and caps are limits, the rest are
// errors in how the tool was called.
func toolErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tools.ErrLimit):
		return fault.Wrap(fault.Limit, err, "")
	}
	return fault.Wrap(fault.Code, err, "")
}

// indexFiles wraps the inherited index descriptors, in the order of the context files.
func indexFiles(cfg Config) []*os.File {
	files := make([]*os.File, len(cfg.IndexFDs))
	for i, fd := range cfg.IndexFDs {
		files[i] = os.NewFile(uintptr(fd), fmt.Sprintf("index fd %d", fd))
	}
	return files
}
