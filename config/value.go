package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/llm"
	"github.com/rlm-sandbox/rlm/redact"
)

// setText sets s from the text of a variable or a flag.
func (c *Config) setText(s spec, text string, src Source) error {
	x, err := fromText(s, text)
	if err == nil {
		err = s.inRange(x)
	}
	if err != nil {
		if src.Origin == Env {
			return schemaf("%s=%s (%s): %v", src.Name, quoteValue(text), s.key, err)
		}
		return schemaf("%s %s (%s): %v", src.Name, quoteValue(text), s.key, err)
	}
	c.set(s, x, src)
	return nil
}

// set stores x, of the kind's Go type (int64, float64, time.Duration, []string, string).
func (c *Config) set(s spec, x any, src Source) {
	switch p := s.field(c).(type) {
	case *int:
		*p = int(x.(int64))
	case *int64:
		*p = x.(int64)
	case *float64:
		*p = x.(float64)
	case *time.Duration:
		*p = x.(time.Duration)
	case *[]string:
		*p = x.([]string)
	case *llm.Provider:
		*p = llm.Provider(x.(string))
	case *string:
		*p = x.(string)
	default:
		panic(fmt.Sprintf("config: %s has a field of type %T", s.key, p))
	}
	c.sources[s.key] = src
}

// get returns the value of s in c, in the kind's Go type.
func (c *Config) get(s spec) any {
	switch p := s.field(c).(type) {
	case *int:
		return int64(*p)
	case *llm.Provider:
		return string(*p)
	default:
		return reflect.ValueOf(p).Elem().Interface()
	}
}

var errWholeNumber = errors.New("want a whole number")

func fromTOML(s spec, v any) (any, error) {
	switch s.kind {
	case kInt:
		if n, ok := v.(int64); ok {
			return n, nil
		}
		return nil, wantType(s, v)
	case kSize:
		switch x := v.(type) {
		case int64:
			return x, nil
		case string:
			return parseSize(x)
		}
		return nil, wantType(s, v)
	case kDuration:
		switch x := v.(type) {
		case int64:
			return s.seconds(x)
		case string:
			return s.parseDuration(x)
		}
		return nil, wantType(s, v)
	case kUSD:
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case float64:
			return x, nil
		}
		return nil, wantType(s, v)
	case kLadder:
		switch x := v.(type) {
		case string:
			return parseLadder(x)
		case []any:
			var names []string
			for _, e := range x {
				n, ok := e.(string)
				if !ok {
					return nil, errors.New("want model names as strings")
				}
				names = append(names, n)
			}
			return parseLadder(strings.Join(names, ","))
		}
		return nil, wantType(s, v)
	}
	str, ok := v.(string)
	if !ok {
		return nil, wantType(s, v)
	}
	return fromText(s, str)
}

func fromText(s spec, t string) (any, error) {
	t = strings.TrimSpace(t)
	switch s.kind {
	case kInt:
		n, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 64)
		if err != nil {
			return nil, errWholeNumber
		}
		return n, nil
	case kSize:
		return parseSize(t)
	case kDuration:
		return s.parseDuration(t)
	case kUSD:
		f, err := strconv.ParseFloat(strings.TrimPrefix(t, "$"), 64)
		if err != nil {
			return nil, errors.New("want an amount of US dollars such as 2.50")
		}
		return f, nil
	case kLadder:
		return parseLadder(t)
	case kProvider:
		p, err := llm.ParseProvider(t)
		if err != nil {
			return nil, errors.New("want openai (any OpenAI-compatible server) or anthropic")
		}
		return string(p), nil
	case kName:
		if t == "" {
			return nil, errors.New("want a backend name")
		}
		return t, nil
	}
	return nil, fmt.Errorf("config: %s has no parser", s.key)
}

// wantType is the error of a value of the wrong TOML type.
func wantType(s spec, v any) error {
	want := map[kind]string{
		kInt: "a whole number", kSize: `a number of bytes, or a size such as "512MiB"`,
		kDuration: `a duration such as "90m" or "30s", or a number of seconds`, kUSD: "a number of US dollars such as 2.5",
		kLadder: `a model name, "small,large" or ["small", "large"]`, kProvider: `"openai" or "anthropic"`, kName: "a backend name",
	}[s.kind]
	return fmt.Errorf("want %s, not %s", want, tomlType(v))
}

func tomlType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// inRange checks a parsed value against the spec's range; every number must be finite.
func (s spec) inRange(x any) error {
	var f float64
	switch v := x.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	case time.Duration:
		f = float64(v)
	case []string:
		if len(v) == 0 && s.kind == kLadder {
			return errors.New("want at least one model name")
		}
		return nil
	default:
		return nil
	}
	if !(f >= s.lo && f <= s.hi) { // NaN and ±Inf fail here too
		return errors.New(s.rangeText())
	}
	return nil
}

// rangeText says what the spec allows: "want 1 to 100,000".
func (s spec) rangeText() string {
	return "want " + s.format(s.lo) + " to " + s.format(s.hi)
}

// format writes a number of the spec's unit.
func (s spec) format(f float64) string {
	switch s.kind {
	case kSize:
		return formatSize(int64(f))
	case kDuration:
		return formatDuration(time.Duration(f))
	case kUSD:
		if f == math.Trunc(f) {
			return "$" + limits.Thousands(int64(f))
		}
		return "$" + strconv.FormatFloat(f, 'f', -1, 64)
	}
	return limits.Thousands(int64(f))
}

// parseDuration reads "90m", "30s", or a bare number of seconds; the result is inside the
// spec's range or an error (time.ParseDuration itself refuses a value past ±292 years).
func (s spec) parseDuration(t string) (time.Duration, error) {
	if n, err := strconv.ParseInt(t, 10, 64); err == nil { // a bare number is seconds, as SFA tools write it
		return s.seconds(n)
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, errors.New("want a duration such as 90m or 30s, or a number of seconds")
	}
	if err := s.inRange(d); err != nil {
		return 0, err
	}
	return d, nil
}

// seconds converts a whole number of seconds, checked against the spec's range before the
// conversion: past 9,223,372,036 seconds the product overflows, and a wrapped value can land
// inside the range (18446744075 seconds would wrap to 1.29 s).
func (s spec) seconds(n int64) (time.Duration, error) {
	if n < 1 || float64(n) > s.hi/float64(time.Second) {
		return 0, errors.New(s.rangeText())
	}
	d := time.Duration(n) * time.Second
	if err := s.inRange(d); err != nil {
		return 0, err
	}
	return d, nil
}

// sizeUnits are the units a size may have, longest first.
var sizeUnits = []struct {
	name string
	n    int64
}{{"kib", kib}, {"mib", mib}, {"gib", gib}, {"tib", tib}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12}, {"k", kib}, {"m", mib}, {"g", gib}, {"b", 1}}

// parseSize reads "512MiB", "2 GB", "1048576".
func parseSize(t string) (int64, error) {
	bad := errors.New(`want a number of bytes, or a size such as "512MiB" or "2GB"`)
	low := strings.ToLower(strings.TrimSpace(t))
	mult := int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(low, u.name) {
			low, mult = strings.TrimSpace(strings.TrimSuffix(low, u.name)), u.n
			break
		}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(low, "_", ""), 64)
	if err != nil || !(f >= 0) || f*float64(mult) > float64(math.MaxInt64/2) {
		return 0, bad
	}
	n := f * float64(mult)
	if n != math.Trunc(n) {
		return 0, errors.New("want a whole number of bytes")
	}
	return int64(n), nil
}

// formatSize writes bytes in the largest binary unit that divides them: "512 MiB".
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", tib}, {"GiB", gib}, {"MiB", mib}, {"KiB", kib}} {
		if n >= u.n && n%u.n == 0 {
			return limits.Thousands(n/u.n) + " " + u.name
		}
	}
	if n == 1 {
		return "1 byte"
	}
	return limits.Thousands(n) + " bytes"
}

// formatDuration writes a duration without zero units: "90m", "2m", "1h30m", "120ms".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func parseLadder(t string) ([]string, error) {
	names := llm.SplitLadder(t)
	if len(names) == 0 {
		return nil, errors.New("want a model name, or names separated by commas")
	}
	return names, nil
}

// tomlText writes a file's value back for an error message, redacted: a string may be a key
// pasted in the wrong place.
func tomlText(v any) string {
	switch x := v.(type) {
	case string:
		return quoteValue(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int64, bool:
		return fmt.Sprint(x)
	}
	return tomlType(v)
}

// quoteValue quotes text for a message, redacted and cut.
func quoteValue(s string) string {
	s = redact.New().String(s)
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strconv.Quote(s)
}
