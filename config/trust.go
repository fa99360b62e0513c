package config

// Trust of project files. A project file (./rlm.toml) may have been written by anyone who could
// write to the directory rlm starts in, a model's code among them: it decides nothing about
// where requests and keys go, and cannot raise a limit, until the user has trusted it. The trust
// store ($RLM_HOME/trusted.json) records each trusted file by its absolute path, symbolic links
// resolved, and the SHA-256 of its content; a file whose content changed is untrusted again.
// Load reads a file once and hashes and parses the same bytes.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/redact"
)

// Bounds of the trust store: the files it records (the oldest trust is dropped beyond them)
// and its size when read.
const (
	maxTrusted    = 512
	maxStoreBytes = 4 << 20
	storeVersion  = 1
)

// TrustStore is the trust store: $RLM_HOME/trusted.json.
func TrustStore(getenv func(string) string) (string, error) {
	h, err := Home(getenv)
	if err != nil {
		return "", err
	}
	return home.TrustStore(h), nil
}

// store is the trust store's content.
type store struct {
	Version int          `json:"version"`
	Files   []trustEntry `json:"files"`
}

// trustEntry is one trusted file.
type trustEntry struct {
	Path    string    `json:"path"`   // absolute, symbolic links resolved
	SHA256  string    `json:"sha256"` // of the content the user trusted, in hex
	Trusted time.Time `json:"trusted"`
}

// trustState is what the store says of a project file's content.
type trustState int

const (
	notTrusted trustState = iota // no entry for its path
	changed                      // an entry for its path, with another content
	isTrusted
)

// readStore reads the trust store; a missing one trusts nothing. Anything else it cannot read
// is a fault.Schema error that names it.
func readStore(path string) (store, error) {
	data, ok, err := readBounded(path, maxStoreBytes)
	if err != nil {
		return store{}, corruptStore(path, err.Error())
	}
	if !ok {
		return store{Version: storeVersion}, nil
	}
	var s store
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return store{}, corruptStore(path, err.Error())
	}
	if s.Version != storeVersion {
		return store{}, corruptStore(path, fmt.Sprintf("version %d, want %d", s.Version, storeVersion))
	}
	if len(s.Files) > maxTrusted {
		return store{}, corruptStore(path, fmt.Sprintf("%d files, at most %d", len(s.Files), maxTrusted))
	}
	for _, e := range s.Files {
		if b, err := hex.DecodeString(e.SHA256); err != nil || len(b) != sha256.Size || !filepath.IsAbs(e.Path) {
			return store{}, corruptStore(path, fmt.Sprintf("an entry with path %s and sha256 %q", strconv.Quote(e.Path), e.SHA256))
		}
	}
	return s, nil
}

func corruptStore(path, why string) error {
	return schemaf("%s is not a trust store rlm can read (%s); remove it, then trust your project files again with rlm config trust FILE (until then every project file is untrusted)", path, why)
}

// write replaces the trust store atomically: a temporary file (0600) beside it, renamed over it.
// Past maxTrusted files, the oldest trusts are dropped.
func (s store) write(path string) error {
	slices.SortStableFunc(s.Files, func(a, b trustEntry) int { return a.Trusted.Compare(b.Trusted) })
	if n := len(s.Files) - maxTrusted; n > 0 {
		s.Files = s.Files[n:]
	}
	s.Version = storeVersion
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return schemaf("creating %s for the trust store: %v", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return schemaf("writing the trust store %s: %v", path, err)
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return schemaf("writing the trust store %s: %v", path, err)
	}
	return nil
}

// state says whether the store trusts the content sum of the file at real.
func (s store) state(real, sum string) trustState {
	for _, e := range s.Files {
		if e.Path == real {
			if e.SHA256 == sum {
				return isTrusted
			}
			return changed
		}
	}
	return notTrusted
}

// realPath is path made absolute with its symbolic links resolved; a path that does not
// resolve (the file is gone) is only made absolute.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Claim is one setting of a project file that only a trusted file may make: a model, a
// provider, a backend, a [backends.NAME], [models.NAME] or [tools.NAME] key, or a limit it
// raises.
type Claim struct {
	Key   string `json:"key"`            // "backends.evil.base_url", "limits.max_calls"
	Value string `json:"value"`          // as TOML, escaped and redacted
	Note  string `json:"note,omitempty"` // "above 80 (default)"
}

// claims are the settings of f that only a trusted file may make, judged against c (the user
// file and the defaults): every key of [defaults] and [limits] whose value is not stricter than
// c's (keys.go says each key's direction), and every key of [backends.NAME], [models.NAME] and
// [tools.NAME] (a tool runs a command as the user, outside the sandbox).
func (c *Config) claims(f *fileValues) []Claim {
	var out []Claim
	for _, x := range f.vals {
		if note, ok := c.stricter(x.s, x.v); !ok {
			out = append(out, Claim{Key: x.s.key, Value: tomlText(x.raw), Note: note})
		}
	}
	out = append(out, convertClaims(f.raw)...)
	for _, table := range []string{"backends", "models", "tools"} {
		t, _ := f.raw[table].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(t)) {
			prefix := table + "." + claimName(name)
			fields, _ := t[name].(map[string]any)
			if len(fields) == 0 {
				out = append(out, Claim{Key: prefix, Value: "{}"})
			}
			for _, k := range slices.Sorted(maps.Keys(fields)) {
				cl := Claim{Key: prefix + "." + claimName(k), Value: claimValue(fields[k])}
				switch {
				case table == "backends" && k == "api_key_env":
					cl.Note = "the key in this variable is sent to this backend"
				case table == "tools" && k == "exec":
					cl.Note = "model code may run this command, as you, outside the sandbox"
				}
				out = append(out, cl)
			}
		}
	}
	return out
}

// stricter reports whether v, from an untrusted project file, makes the run stricter than
// c's value of s; when it does not, note says why.
func (c *Config) stricter(s spec, v any) (note string, ok bool) {
	nv, nb := number(v), number(c.get(s))
	from := " (" + c.Source(s.key).String() + ")"
	switch s.dir {
	case lowerIsStricter:
		if nv <= nb {
			return "", true
		}
		return "above " + s.format(nb) + from, false
	case zeroIsNone:
		if nv > 0 && (nb == 0 || nv <= nb) {
			return "", true
		}
		if nv == 0 {
			return "removes the budget of " + s.format(nb) + from, false
		}
		return "above " + s.format(nb) + from, false
	}
	return "", false
}

// number is a value of a numeric kind as a float64 (0 for any other).
func number(x any) float64 {
	switch v := x.(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	case time.Duration:
		return float64(v)
	}
	return 0
}

// claimName quotes a table or key name that is not a plain word, so that no name can pass for
// another or move the terminal.
func claimName(s string) string {
	if s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") == "" {
		return s
	}
	return strconv.Quote(s)
}

// claimValue writes a value of a file for review: as TOML (strings quoted with every control
// and invisible character escaped), redacted, cut at 300 bytes.
func claimValue(v any) string {
	t := redact.New().String(tomlValue(v))
	if len(t) > 300 {
		t = t[:300] + "…"
	}
	return t
}

// untrusted is Load's error for a project file that is not trusted and sets what only a trusted
// file may.
func untrusted(path string, claims []Claim, state trustState) error {
	keys := make([]string, 0, len(claims))
	for i, cl := range claims {
		if i == 8 {
			keys = append(keys, fmt.Sprintf("and %d more", len(claims)-i))
			break
		}
		keys = append(keys, cl.Key)
	}
	why := "is a project file you have not trusted"
	if state == changed {
		why = "changed since you trusted it"
	}
	return schemaf("%s %s, and it sets what only a trusted file may (%s), so none of it was applied: review it, then run rlm config trust %s to use it as it is now (or delete it, or start rlm in another directory)",
		path, why, strings.Join(keys, ", "), shellQuote(realPath(path)))
}

// shellQuote quotes a path for a command line when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./+,:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Review is what a project file sets that needs trust, as Trust recorded it.
type Review struct {
	Path       string  `json:"path"`        // as given
	Real       string  `json:"real"`        // absolute, symbolic links resolved: what the store records
	SHA256     string  `json:"sha256"`      // of the content reviewed and recorded
	Claims     []Claim `json:"claims"`      // what it sets that only a trusted file may
	WasTrusted bool    `json:"was_trusted"` // the store trusted this content already
}

// Trust records the project file o.ProjectFile ("" = ./rlm.toml) as trusted in the trust store
// (o.TrustStore), as its content is now, and returns what it sets that needs trust (judged
// against the user file and the defaults). The file is read once: the bytes reviewed are the
// bytes hashed. A file that does not load over the user file (a bad key or value, a model
// naming no backend) is not recorded.
func Trust(o Options) (Review, error) {
	getenv := o.getenv()
	path := o.projectFile()
	userFile, storePath, err := o.homeFiles(getenv)
	if err != nil {
		return Review{}, err
	}
	c := Defaults()
	c.sources, c.getenv = map[string]Source{}, getenv
	user := File{Path: userFile, Origin: User}
	if err := c.readUser(&user); err != nil {
		return Review{}, err
	}
	data, ok, err := readBounded(path, maxFileBytes)
	if err != nil {
		return Review{}, schemaf("%s: %v", path, err)
	}
	if !ok {
		return Review{}, schemaf("%s does not exist; name the project file to trust (rlm config trust FILE)", path)
	}
	f, err := parseFile(path, data)
	if err != nil {
		return Review{}, err
	}
	r := Review{Path: path, Real: realPath(path), SHA256: sha256Hex(data), Claims: c.claims(f)}
	c.apply(f, Source{Origin: Project, Name: path})
	if err := c.check(); err != nil {
		return r, err
	}
	s, err := readStore(storePath)
	if err != nil {
		return r, err
	}
	r.WasTrusted = s.state(r.Real, r.SHA256) == isTrusted
	s.Files = slices.DeleteFunc(s.Files, func(e trustEntry) bool { return e.Path == r.Real })
	s.Files = append(s.Files, trustEntry{Path: r.Real, SHA256: r.SHA256, Trusted: time.Now().UTC()})
	return r, s.write(storePath)
}

// Untrust removes the project file o.ProjectFile ("" = ./rlm.toml) from the trust store, by
// its absolute path with links resolved (or only made absolute when it no longer resolves). It
// returns that path and whether the store had it.
func Untrust(o Options) (string, bool, error) {
	getenv := o.getenv()
	path := o.projectFile()
	_, storePath, err := o.homeFiles(getenv)
	if err != nil {
		return "", false, err
	}
	names := []string{realPath(path)}
	if abs, err := filepath.Abs(path); err == nil && abs != names[0] {
		names = append(names, abs)
	}
	s, err := readStore(storePath)
	if err != nil {
		return names[0], false, err
	}
	n := len(s.Files)
	s.Files = slices.DeleteFunc(s.Files, func(e trustEntry) bool { return slices.Contains(names, e.Path) })
	if len(s.Files) == n {
		return names[0], false, nil
	}
	return names[0], true, s.write(storePath)
}
