package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/limits"
)

// Converter is one entry of [convert]: the command that prints the text of an input file of its
// extension. A file writes it as the command's argv, or as a table that also sets its caps:
//
//	[convert]
//	pdf = ["pdftotext", "-layout", "{path}", "-"]
//	docx = { exec = ["pandoc", "--to", "plain", "{path}"], timeout = "5m", max_output = "128MiB" }
type Converter struct {
	Exec      []string      // {path} is replaced by the input's absolute path
	Timeout   time.Duration // 0 = limits.ConvertTimeout
	MaxOutput int64         // bytes; 0 = limits.ConvertBytes
}

// convertFields are the keys of a [convert] entry written as a table, with the kinds and ranges
// of its caps.
var convertFields = map[string]spec{
	"exec":       {key: "exec"},
	"timeout":    {key: "timeout", kind: kDuration, lo: float64(time.Second), hi: float64(limits.ConvertMaxTimeout)},
	"max_output": {key: "max_output", kind: kSize, lo: kib, hi: limits.ConvertMaxBytes},
}

// parseConverters checks a file's [convert] table: each key an extension, each value an argv or
// a table of convertFields, the command one convert.Check accepts.
func parseConverters(path string, table map[string]any) (map[string]Converter, error) {
	if len(table) == 0 {
		return nil, nil
	}
	out := map[string]Converter{}
	for _, ext := range slices.Sorted(maps.Keys(table)) {
		if err := convert.CheckExt(ext); err != nil {
			return nil, schemaf("%s: [convert] %v", path, err)
		}
		c, err := parseConverter(table[ext])
		if err == nil {
			err = convert.Check(convert.Spec{Exec: c.Exec, Timeout: c.Timeout, MaxBytes: c.MaxOutput})
		}
		if err != nil {
			return nil, schemaf("%s: convert.%s = %s: %v", path, ext, tomlText(table[ext]), err)
		}
		out[ext] = c
	}
	return out, nil
}

var errConverterShape = errors.New(`want the command as a list of strings, ["pdftotext", "-layout", "{path}", "-"], or a table { exec = [...], timeout = "2m", max_output = "64MiB" }`)

// parseConverter reads one entry: an argv, or a table.
func parseConverter(v any) (Converter, error) {
	if list, ok := v.([]any); ok {
		argv, err := convertArgv(list)
		return Converter{Exec: argv}, err
	}
	t, ok := v.(map[string]any)
	if !ok {
		return Converter{}, errConverterShape
	}
	var c Converter
	for _, k := range slices.Sorted(maps.Keys(t)) {
		s, ok := convertFields[k]
		if !ok {
			return Converter{}, fmt.Errorf("unknown key %s; an entry's keys are exec, timeout and max_output", k)
		}
		if k == "exec" {
			list, ok := t[k].([]any)
			if !ok {
				return Converter{}, errConverterShape
			}
			var err error
			if c.Exec, err = convertArgv(list); err != nil {
				return Converter{}, err
			}
			continue
		}
		x, err := fromTOML(s, t[k])
		if err == nil {
			err = s.inRange(x)
		}
		if err != nil {
			return Converter{}, fmt.Errorf("%s: %v", k, err)
		}
		switch k {
		case "timeout":
			c.Timeout = x.(time.Duration)
		case "max_output":
			c.MaxOutput = x.(int64)
		}
	}
	return c, nil
}

// convertArgv is a converter's TOML array of strings as a []string.
func convertArgv(list []any) ([]string, error) {
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, errConverterShape
		}
		out = append(out, s)
	}
	return out, nil
}

// mergeConverters adds a file's [convert] entries, each replacing the entry of the same
// extension from a file read before.
func (c *Config) mergeConverters(m map[string]Converter, src Source) {
	for ext, conv := range m {
		if c.Convert == nil {
			c.Convert = map[string]Converter{}
		}
		c.Convert[ext] = conv
		c.sources["convert."+ext] = src
	}
}

// convertClaims are a project file's [convert] entries, each a claim: the command runs as the
// user, outside the sandbox, on every input of its type.
func convertClaims(raw map[string]any) []Claim {
	t, _ := raw["convert"].(map[string]any)
	var out []Claim
	for _, ext := range slices.Sorted(maps.Keys(t)) {
		out = append(out, Claim{Key: "convert." + claimName(ext), Value: claimValue(t[ext]),
			Note: "rlm runs this command, as you, outside the sandbox, on every --ctx file of this type"})
	}
	return out
}

// convertEntries are the [convert] entries, as `rlm config` shows them.
func (c *Config) convertEntries() []Entry {
	var out []Entry
	for _, ext := range slices.Sorted(maps.Keys(c.Convert)) {
		conv := c.Convert[ext]
		words := make([]string, len(conv.Exec))
		for i, w := range conv.Exec {
			words[i] = strconv.Quote(w)
		}
		text := "[" + strings.Join(words, ", ") + "]"
		timeout, max := limits.Or(conv.Timeout, limits.ConvertTimeout), limits.Or(conv.MaxOutput, limits.ConvertBytes)
		out = append(out, Entry{Key: "convert." + ext, Value: conv.Exec, Text: text, Source: c.Source("convert." + ext),
			Note: fmt.Sprintf("timeout %s, max_output %s", formatDuration(timeout), formatSize(max))})
	}
	return out
}
