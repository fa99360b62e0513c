package config

// Tools of rlm.toml: a [tools.NAME] table declares a command of the user's that model code may
// call as the function NAME (rlm.CommandTools turns it into an rlm.Tool). Every key is checked
// here, at load, so that a mistake is named with its file and key before a run starts. A
// project file's [tools.NAME] needs trust (trust.go claims every key of it).
//
//	[tools.pdf_text]
//	description = "the text of a PDF file"
//	exec = ["pdftotext", "-layout", "{path}", "-"]   # argv, never a shell
//	params = { path = "path" }                       # resolved inside the roots first
//	timeout = "30s"
//	max_output = 200000
//	max_calls = 50

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/internal/command"
	"github.com/rlm-sandbox/rlm/limits"
)

// Tool is one [tools.NAME] table, checked, its caps filled in with their defaults.
type Tool struct {
	Name        string
	Description string   // one line for the system prompt: what the tool returns
	Exec        []string // the program (a name on PATH, or an absolute path) and its words
	// Params are the parameters in the order code passes them: the order of their first use in
	// Exec (a TOML inline table has no order of its own).
	Params    []ToolParam
	Env       []string // variables passed to the command beside command.BaseEnv and LC_*
	Timeout   time.Duration
	MaxOutput int // characters of one result
	MaxCalls  int // calls per run (per session in rlm repl and each MCP session)
	Source    Source
}

// ToolParam is one parameter of a Tool: its name, the placeholder {name} in Exec, and its type.
type ToolParam struct {
	Name string `json:"name"`
	Type string `json:"type"` // one of ToolParamTypes
}

// ToolParamTypes are the types a parameter may have. A path is a string that names a file or
// directory: it is resolved inside the run's allowed roots (as read_file resolves its path)
// before the command sees it, and refused outside them.
var ToolParamTypes = []string{"path", "string", "int", "float", "bool"}

// Bounds of a tool's declaration, beside the name, description and parameter bounds of package
// limits (limits.ToolNameChars, ToolDocChars, ToolParams).
const (
	maxExecWords = 64
	maxToolEnv   = 32
)

// toolCaps are the caps a [tools.NAME] table may set: their ranges and defaults, read and
// checked as the keys of [limits] are.
var toolCaps = []struct {
	s   spec
	def any
	set func(t *Tool, v any)
}{
	{spec{key: "timeout", kind: kDuration, lo: float64(100 * time.Millisecond), hi: float64(time.Hour)}, limits.ToolTimeout,
		func(t *Tool, v any) { t.Timeout = v.(time.Duration) }},
	{spec{key: "max_output", kind: kInt, lo: 100, hi: 10_000_000}, int64(limits.ToolOutputChars),
		func(t *Tool, v any) { t.MaxOutput = int(v.(int64)) }},
	{spec{key: "max_calls", kind: kInt, lo: 1, hi: 100_000}, int64(limits.ToolCalls),
		func(t *Tool, v any) { t.MaxCalls = int(v.(int64)) }},
}

// toolFields are the other keys of a [tools.NAME] table, each with its reader.
var toolFields = []struct {
	key  string
	read func(t *Tool, v any) error
}{
	{"description", readDescription},
	{"exec", readExec},
	{"params", readParams},
	{"env", readEnvNames},
}

// toolKeys are every key of a [tools.NAME] table, for parseTool and rlm config --keys.
func toolKeys() []string {
	var out []string
	for _, f := range toolFields {
		out = append(out, f.key)
	}
	for _, c := range toolCaps {
		out = append(out, c.s.key)
	}
	return out
}

// parseTools reads a file's [tools.NAME] tables (raw: the file's "tools" as decoded), sorted by
// name.
func parseTools(path string, raw any) ([]Tool, error) {
	if raw == nil {
		return nil, nil
	}
	tables, ok := raw.(map[string]any)
	if !ok {
		return nil, schemaf("%s: tools = %s: want [tools.NAME] tables, one a tool", path, tomlText(raw))
	}
	var out []Tool
	for _, name := range slices.Sorted(maps.Keys(tables)) {
		table, ok := tables[name].(map[string]any)
		if !ok {
			return nil, schemaf("%s: tools.%s = %s: want a table [tools.%s] with description, exec and params", path, claimName(name), tomlText(tables[name]), claimName(name))
		}
		t, err := parseTool(name, table)
		if err != nil {
			return nil, schemaf("%s: [tools.%s] %v", path, claimName(name), err)
		}
		out = append(out, t)
	}
	return out, nil
}

// parseTool reads and checks one table; its error names the key and says how to fix it.
func parseTool(name string, table map[string]any) (Tool, error) {
	t := Tool{Name: name}
	keys := toolKeys()
	for _, k := range slices.Sorted(maps.Keys(table)) {
		if slices.Contains(keys, k) {
			continue
		}
		for _, want := range keys {
			if strings.EqualFold(k, want) {
				return t, fmt.Errorf("unknown key %s; rlm's keys are spelled exactly, in lower case: did you mean %s?", claimName(k), want)
			}
		}
		return t, fmt.Errorf("unknown key %s; a tool's keys are %s", claimName(k), strings.Join(keys, ", "))
	}
	for _, f := range toolFields {
		if v, ok := table[f.key]; ok {
			if err := f.read(&t, v); err != nil {
				return t, fmt.Errorf("%s = %s: %v", f.key, claimValue(v), err)
			}
		}
	}
	for _, c := range toolCaps {
		v, ok := table[c.s.key]
		x, err := c.def, error(nil)
		if ok {
			if x, err = fromTOML(c.s, v); err == nil {
				err = c.s.inRange(x)
			}
		}
		if err != nil {
			return t, fmt.Errorf("%s = %s: %v", c.s.key, tomlText(v), err)
		}
		c.set(&t, x)
	}
	if err := t.check(table); err != nil {
		return t, err
	}
	return t, nil
}

// check is what needs more than one key: description and exec given, every placeholder a
// parameter and every parameter used, and the names written as identifiers. Whether a name
// clashes with the API or either language is checked where the tool becomes an rlm.Tool
// (rlm.CommandTools), with this file named: config links neither engine.
func (t *Tool) check(table map[string]any) error {
	if !identifier.MatchString(t.Name) || len(t.Name) > limits.ToolNameChars {
		return fmt.Errorf("the name is the function's: a letter then letters, digits or _, at most %d characters (such as pdf_text)", limits.ToolNameChars)
	}
	for _, k := range []string{"description", "exec"} {
		if _, ok := table[k]; !ok {
			return fmt.Errorf("has no %s; %s", k, map[string]string{
				"description": "add one line saying what the tool returns (it goes into the system prompt)",
				"exec":        `add the command as a list of words, such as exec = ["pdftotext", "-layout", "{path}", "-"]`}[k])
		}
	}
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	if err := command.Check(t.Exec, names); err != nil {
		return err
	}
	order := command.Placeholders(t.Exec)
	for _, n := range names {
		if !slices.Contains(order, n) {
			return fmt.Errorf("params.%s is not used in exec; put {%s} in a word of exec, or remove the parameter", claimName(n), n)
		}
	}
	slices.SortStableFunc(t.Params, func(a, b ToolParam) int { return slices.Index(order, a.Name) - slices.Index(order, b.Name) })
	return nil
}

// identifier is a name code can call or pass: a tool's and a parameter's.
var identifier = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func readDescription(t *Tool, v any) error {
	s, ok := v.(string)
	switch {
	case !ok:
		return fmt.Errorf("want a string, not %s", tomlType(v))
	case strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > limits.ToolDocChars || strings.IndexFunc(s, notPrintable) >= 0:
		return fmt.Errorf("want one line of at most %d printable characters saying what the tool returns", limits.ToolDocChars)
	}
	t.Description = s
	return nil
}

func notPrintable(r rune) bool { return !unicode.IsPrint(r) }

func readExec(t *Tool, v any) error {
	words, err := stringList(v, maxExecWords)
	if err != nil {
		return fmt.Errorf("%v: the program and its arguments, such as [\"head\", \"-n\", \"{n}\", \"--\", \"{path}\"] (never a shell command line)", err)
	}
	t.Exec = words
	return nil
}

// readParams reads the inline table of parameter names and types; check orders them.
func readParams(t *Tool, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table of names and types, such as { path = \"path\", n = \"int\" }, not %s", tomlType(v))
	}
	for _, n := range slices.Sorted(maps.Keys(m)) {
		typ, _ := m[n].(string)
		switch {
		case len(m) > limits.ToolParams:
			return fmt.Errorf("%d parameters, more than %d; take fewer", len(m), limits.ToolParams)
		case !identifier.MatchString(n) || len(n) > limits.ToolNameChars:
			return fmt.Errorf("parameter %s: a name is a letter then letters, digits or _ (it is written {%s} in exec)", claimName(n), n)
		case !slices.Contains(ToolParamTypes, typ):
			return fmt.Errorf("parameter %s: want its type, one of %s", claimName(n), strings.Join(quoted(ToolParamTypes), ", "))
		}
		t.Params = append(t.Params, ToolParam{Name: n, Type: typ})
	}
	return nil
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func readEnvNames(t *Tool, v any) error {
	names, err := stringList(v, maxToolEnv)
	if err != nil {
		return fmt.Errorf("%v: the names of more variables the command needs, such as [\"PDF_FONTS\"]", err)
	}
	for _, n := range names {
		if !envName.MatchString(n) {
			return fmt.Errorf("%s is not a variable's name; list names only (the values are read from rlm's environment)", quoteValue(n))
		}
	}
	t.Env = names
	return nil
}

// stringList reads a TOML array of 1 to max strings.
func stringList(v any, max int) ([]string, error) {
	a, ok := v.([]any)
	if !ok || len(a) == 0 || len(a) > max {
		return nil, fmt.Errorf("want a list of 1 to %d strings", max)
	}
	out := make([]string, len(a))
	for i, e := range a {
		if out[i], ok = e.(string); !ok {
			return nil, errors.New("want strings only, not " + tomlType(e))
		}
	}
	return out, nil
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}

// mergeTools adds a file's tools, each replacing the tool of the same name from a file read
// before (the project file's replaces the user file's).
func (c *Config) mergeTools(ts []Tool, src Source) {
	for _, t := range ts {
		t.Source = src
		c.Tools = slices.DeleteFunc(c.Tools, func(o Tool) bool { return o.Name == t.Name })
		c.Tools = append(c.Tools, t)
		c.sources["tools."+t.Name] = src
	}
	slices.SortFunc(c.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
}

// entries are the tool's settings as `rlm config` shows them, each from the tool's file; the
// caps are the effective ones (a cap the table leaves out is its default).
func (t Tool) entries() []Entry {
	p := "tools." + t.Name + "."
	params := make([]string, len(t.Params))
	for i, x := range t.Params {
		params[i] = x.Name + " = " + strconv.Quote(x.Type)
	}
	out := []Entry{
		{Key: p + "description", Value: t.Description, Text: strconv.Quote(t.Description)},
		{Key: p + "exec", Value: t.Exec, Text: tomlValue(anyList(t.Exec)), Note: "runs as you, outside the sandbox"},
		{Key: p + "params", Value: t.Params, Text: "{ " + strings.Join(params, ", ") + " }", Note: "in this order in calls"},
	}
	if len(t.Params) == 0 {
		out[2].Value, out[2].Text, out[2].Note = []ToolParam{}, "{}", ""
	}
	if len(t.Env) > 0 {
		out = append(out, Entry{Key: p + "env", Value: t.Env, Text: tomlValue(anyList(t.Env))})
	}
	out = append(out,
		Entry{Key: p + "timeout", Value: formatDuration(t.Timeout), Text: strconv.Quote(formatDuration(t.Timeout))},
		Entry{Key: p + "max_output", Value: int64(t.MaxOutput), Text: strconv.Itoa(t.MaxOutput)},
		Entry{Key: p + "max_calls", Value: int64(t.MaxCalls), Text: strconv.Itoa(t.MaxCalls)})
	for i := range out {
		out[i].Source = t.Source
	}
	return out
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
