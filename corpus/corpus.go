package corpus

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed go js ctx
var files embed.FS

// Case is one corpus file.
type Case struct {
	Name   string // path below corpus/, e.g. "go/escape/G1_os_readfile.go.txt"
	Lang   string // "go" or "js"
	Escape bool   // an escape attempt (else a benign program)
	Class  string // taxonomy class of an escape, e.g. "G1"
	Expect string // "reject": the validator alone rejects it; "contain": valid code the runtime layers must contain
	Rule   string // the rule id the finding must carry, when the header names one
	Effect string // what the code does if it runs: read, write, connect, env, exec, crash, hang, tamper, oracle
	Want   string // benign: the expected printed output ("\n" in the header is a line break)
	Final  string // benign: the expected FINAL value
	Ctx    string // benign: the name of the context file it runs against
	Source []byte
}

// HasWant reports whether the case states its expected output.
func (c Case) HasWant() bool { return c.Want != "" || c.Final != "" }

// Render substitutes the placeholders (@@CANARY@@, @@OUTSIDE@@, @@ADDR@@, @@HOST@@, @@PORT@@,
// @@ROOT@@, @@LINK@@, @@DIRLINK@@, @@DANGLING@@, @@HOME@@, @@HOMELINK@@).
func (c Case) Render(values map[string]string) []byte {
	s := string(c.Source)
	for k, v := range values {
		s = strings.ReplaceAll(s, "@@"+k+"@@", v)
	}
	return []byte(s)
}

// Load returns every case, sorted by name.
func Load() ([]Case, error) {
	var cases []Case
	for _, lang := range []string{"go", "js"} {
		for _, kind := range []string{"escape", "benign"} {
			dir := path.Join(lang, kind)
			entries, err := fs.ReadDir(files, dir)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				c, err := load(path.Join(dir, e.Name()), lang, kind == "escape")
				if err != nil {
					return nil, err
				}
				cases = append(cases, c)
			}
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	return cases, nil
}

// Context returns the context file corpus/ctx/<name>.txt.
func Context(name string) ([]byte, error) {
	return files.ReadFile(path.Join("ctx", name+".txt"))
}

func load(name, lang string, escape bool) (Case, error) {
	src, err := files.ReadFile(name)
	if err != nil {
		return Case{}, err
	}
	c := Case{Name: name, Lang: lang, Escape: escape, Source: src}
	line, _, _ := strings.Cut(string(src), "\n")
	if err := c.parseHeader(strings.TrimRight(line, "\r")); err != nil {
		return Case{}, fmt.Errorf("%s: %w", name, err)
	}
	return c, c.check()
}

// parseHeader reads "// key: value ..." pairs; want: and final: take the rest of the line.
func (c *Case) parseHeader(line string) error {
	rest, ok := strings.CutPrefix(line, "//")
	if !ok {
		return fmt.Errorf("first line must be a // comment with the expectation, got %q", line)
	}
	for _, key := range []string{"want:", "final:"} {
		if i := strings.Index(rest, key); i >= 0 {
			v := strings.ReplaceAll(strings.TrimSpace(rest[i+len(key):]), `\n`, "\n")
			if key == "want:" {
				c.Want = v
			} else {
				c.Final = v
			}
			rest = rest[:i]
		}
	}
	fields := strings.Fields(rest)
	for i := 0; i < len(fields); i += 2 {
		key, ok := strings.CutSuffix(fields[i], ":")
		if !ok || i+1 >= len(fields) {
			return fmt.Errorf("malformed header near %q", fields[i])
		}
		if err := c.set(key, fields[i+1]); err != nil {
			return err
		}
	}
	return nil
}

func (c *Case) set(key, val string) error {
	switch key {
	case "class":
		c.Class = val
	case "expect":
		c.Expect = val
	case "rule":
		c.Rule = val
	case "effect":
		c.Effect = val
	case "ctx":
		c.Ctx = val
	default:
		return fmt.Errorf("unknown header key %q", key)
	}
	return nil
}

// check enforces the header rules of README.md.
func (c Case) check() error {
	switch {
	case c.Escape && (c.Class == "" || c.Expect != "reject" && c.Expect != "contain" || c.Effect == ""):
		return fmt.Errorf("%s: an escape needs class, expect: reject or contain, and effect", c.Name)
	case c.Escape && c.Expect == "reject" && !strings.HasPrefix(c.Class, map[string]string{"go": "G", "js": "J"}[c.Lang]):
		return fmt.Errorf("%s: class %s is not a %s class", c.Name, c.Class, c.Lang)
	case c.Escape && c.Expect == "contain" && !strings.HasPrefix(c.Class, "P"):
		return fmt.Errorf("%s: expect: contain is for the path-guard classes (P...)", c.Name)
	case !c.Escape && !c.HasWant():
		return fmt.Errorf("%s: a benign program needs want: or final:", c.Name)
	case !c.Escape && c.Class != "":
		return fmt.Errorf("%s: a benign program has no class", c.Name)
	}
	return nil
}
