package rlm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/config"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/internal/command"
	"github.com/rlm-sandbox/rlm/limits"
)

// CommandTools are the tools of c's [tools.NAME] tables (rlm.toml): each a Tool whose Func runs
// the table's command, as the user, in this process (never the worker), through
// internal/command: the configured argv with each {param} replaced by the call's argument
// (a path parameter by the real path it resolved to inside the roots), no shell, stdin closed,
// the environment reduced to PATH, HOME, LANG, TZ, TMPDIR, LC_* and the table's env names,
// every process of the command's group killed at the tool's timeout. Its stdout is the result,
// a string; a non-zero exit is an error (kind code) that carries the start of its stderr.
//
// Its error names the file and table of a tool whose name clashes with the API, a keyword or
// global of either language (config checks the rest when it loads the file).
func CommandTools(c *config.Config) ([]Tool, error) {
	var out []Tool
	for _, ct := range c.Tools {
		t := commandTool(ct)
		if _, err := checkTools([]Tool{t}); err != nil {
			return nil, fault.Wrap(fault.Schema, err, fmt.Sprintf("%s: [tools.%s]", ct.Source.Name, ct.Name))
		}
		out = append(out, t)
	}
	return out, nil
}

// commandParamTypes are the Go types of config's parameter types.
var commandParamTypes = map[string]ToolType{"path": ToolString, "string": ToolString, "int": ToolInt, "float": ToolFloat, "bool": ToolBool}

func commandTool(ct config.Tool) Tool {
	t := Tool{Name: ct.Name, Description: ct.Description, Result: ToolString, Timeout: ct.Timeout, MaxOutput: ct.MaxOutput, MaxCalls: ct.MaxCalls}
	for _, p := range ct.Params {
		t.Params = append(t.Params, ToolParam{Name: p.Name, Type: commandParamTypes[p.Type], Path: p.Type == "path"})
	}
	// Read up to 4 bytes a character and one more: past that, the output is longer than the
	// cap whatever its characters, and the command is stopped.
	spec := command.Spec{Argv: ct.Exec, Env: ct.Env, MaxBytes: 4 * (ct.MaxOutput + 1)}
	t.Func = func(ctx context.Context, a ToolArgs) (any, error) {
		words := make(map[string]string, len(ct.Params))
		for _, p := range ct.Params {
			words[p.Name] = argWord(a[p.Name])
		}
		argv, err := command.Expand(ct.Exec, words)
		if err != nil {
			return nil, fault.New(fault.Code, "%s: %v", ct.Name, err)
		}
		out, err := command.Run(ctx, spec, argv)
		return commandResult(ctx, ct, out, err)
	}
	return t
}

// argWord is an argument as the word it fills in: numbers in Go's shortest form, bools as
// true or false.
func argWord(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// commandResult is a call's result from the command's stdout and error. The context's end is
// returned as it is, for the tool layer's timeout error.
func commandResult(ctx context.Context, ct config.Tool, out string, err error) (any, error) {
	var ee *command.ExitError
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, command.ErrTooLong):
		return cutOutput(ct, out), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &ee):
		return nil, fault.New(fault.Code, "%s: %v; check the arguments of the call (the command's message says what it could not do)", ct.Name, ee)
	}
	return nil, fault.New(fault.Code, "%s cannot run its command: %v ([tools.%s] of %s); do without this tool", ct.Name, err, ct.Name, ct.Source.Name)
}

// cutOutput is the output of a command stopped past its cap: cut so that it and the note that
// says so fit in MaxOutput characters (a cap too small for the note is left to Tool.result).
func cutOutput(ct config.Tool, out string) string {
	note := fmt.Sprintf("\n[%s: output cut at %s characters; the command wrote more and was stopped; ask for less]", ct.Name, limits.Thousands(int64(ct.MaxOutput)))
	keep := ct.MaxOutput - utf8.RuneCountInString(note)
	if keep <= 0 {
		return out
	}
	if r := []rune(out); len(r) > keep {
		out = string(r[:keep])
	}
	return out + note
}
