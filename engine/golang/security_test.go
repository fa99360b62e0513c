package golang

import (
	"encoding/base64"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/rlm-sandbox/rlm/corpus"
	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/validator"
)

func TestSymbolAllowList(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	pol := validator.Policy{}.Effective().Go
	allowed := map[string]bool{bridgePath + "/" + bridgePath: true, ".": true}
	for _, p := range pol.Imports {
		allowed[p+"/"+filepath.Base(p)] = true
	}
	allowed["fmt/./fmt"] = true
	tables := map[string]map[string]bool{}
	add := func(key string, names []string) {
		if tables[key] == nil {
			tables[key] = map[string]bool{}
		}
		for _, n := range names {
			tables[key][n] = true
		}
	}
	for k, syms := range symbolTable {
		add(k, keys(syms()))
	}
	for k, syms := range symbolVars {
		add(k, keys(syms()))
	}
	exported := s.e.exports()
	for k, syms := range exported {
		add(k, keys(syms))
	}
	for _, bad := range []string{"os/os", "os/exec/exec", "unsafe/unsafe", "reflect/reflect", "runtime/runtime", "syscall/syscall", "net/net", "io/ioutil/ioutil"} {
		if tables[bad] != nil {
			t.Errorf("package %s is exposed", bad)
		}
	}
	if exported["fmt/fmt"] != nil { // that key makes yaegi add fmt.Scan* back
		t.Error("fmt is registered under fmt/fmt")
	}
	for k := range tables {
		if strings.HasPrefix(k, "github.com/traefik/yaegi") || !allowed[k] {
			t.Errorf("package key %s is not in the allow-list", k)
		}
	}
	for _, sym := range append(pol.DeniedSymbols, "fmt.Scan", "fmt.Scanf", "fmt.Scanln") {
		i := strings.LastIndex(sym, ".")
		p, name := sym[:i], sym[i+1:]
		for _, key := range []string{p + "/" + filepath.Base(p), p + "/./" + filepath.Base(p)} {
			if tables[key][name] || tables[key]["_"+name] {
				t.Errorf("denied symbol %s is exposed under %s", sym, key)
			}
		}
	}
}

// TestImportsAreThePolicys: the packages cells may import, which the engine takes from its
// generated tables and reads no policy for, are exactly those of the validator's default policy.
func TestImportsAreThePolicys(t *testing.T) {
	want := slices.Sorted(slices.Values(validator.Policy{}.Effective().Go.Imports))
	if got := allowedImports(); !slices.Equal(got, want) {
		t.Errorf("the engine allows %v\nthe policy allows %v\n(run go test ./engine/golang -run TestGenerateSymbols -update)", got, want)
	}
	for _, p := range []string{"os", "unsafe", "reflect", "fmt/fmt", ""} {
		if allowed(p) {
			t.Errorf("allowed(%q) = true", p)
		}
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestVarsAreCopies checks that package variables reach model code as copies only: nothing a
// cell does to them changes the host's, or another engine's.
func TestVarsAreCopies(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	s.parseOnly = true
	upper0 := unicode.Upper.R16[0]
	crc0 := crc32.IEEETable[1]
	eof, errRange, utc := io.EOF, strconv.ErrRange, time.UTC
	r := s.run(`import (
	"encoding/base64"
	"hash/crc32"
	"io"
	"strconv"
	"time"
	"unicode"
)
p := &io.EOF
*p = nil
strconv.ErrRange = nil
unicode.Upper.R16[0].Lo = 0
unicode.Upper.R16 = nil
delete(unicode.Categories, "Lu")
*base64.StdEncoding = *base64.URLEncoding
(*crc32.IEEETable)[1] = 7
time.UTC = nil
print(io.EOF == nil, base64.StdEncoding.EncodeToString([]byte("hello?")))`)
	if r.Err != nil || r.Stdout != "true aGVsbG8_\n" {
		t.Fatalf("the cell should change its own copies: %s", describe(r))
	}
	if io.EOF != eof || io.EOF == nil || strconv.ErrRange != errRange || time.UTC != utc ||
		unicode.Upper.R16[0] != upper0 || unicode.Categories["Lu"] == nil || crc32.IEEETable[1] != crc0 ||
		base64.StdEncoding.EncodeToString([]byte("hello?")) != "aGVsbG8/" {
		t.Fatal("a cell changed the host's package variables")
	}
	other := newTestSession(t, Config{}, "")
	other.parseOnly = true
	if r := other.run("import (\n\t\"encoding/base64\"\n\t\"unicode\"\n)\nprint(base64.StdEncoding.EncodeToString([]byte(\"hello?\")), unicode.Is(unicode.Upper, 'A'), unicode.Categories[\"Lu\"] == unicode.Lu)"); r.Stdout != "aGVsbG8/ true true\n" {
		t.Errorf("another engine saw the changes: %s", describe(r))
	}
}

func TestNoSourceImports(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "loaded")
	pkg := "package x\n\nimport \"os\"\n\nfunc init() { os.WriteFile(" + strconv.Quote(marker) + ", nil, 0o644) }\n\nfunc Run() int { return 1 }\n"
	for _, d := range []string{"x", "src/x", "vendor/x"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "x.go"), []byte(pkg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("GOPATH", dir)
	s := newTestSession(t, Config{}, "")
	s.parseOnly = true
	for _, imp := range []string{"./x", "x", filepath.Join(dir, "x"), "../" + filepath.Base(dir) + "/x"} {
		r := s.run("import x " + strconv.Quote(imp) + "\nprint(x.Run())")
		if r.Err == nil || errKind(r.Err) != fault.Code {
			t.Errorf("import %q: want a compile error, got %s", imp, describe(r))
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a source package was loaded from disk")
	}
}

func TestYaegiEnvCleared(t *testing.T) {
	t.Setenv("YAEGI_NO_RUN", "1")
	t.Setenv("YAEGI_AST_DOT", "1")
	s := newTestSession(t, Config{}, "")
	if r := s.run(`print("ran")`); r.Stdout != "ran\n" {
		t.Errorf("got %s", describe(r))
	}
	if os.Getenv("YAEGI_NO_RUN") != "" || os.Getenv("YAEGI_AST_DOT") != "" {
		t.Error("YAEGI_* variables survive New")
	}
}

func TestScanIsAbsent(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	s.parseOnly = true
	for _, f := range []string{"Scan", "Scanln", "Scanf"} {
		r := s.run("import \"fmt\"\nvar v string\nfmt." + f + "(&v)")
		if r.Err == nil || !strings.Contains(r.Err.Error(), "no symbol") {
			t.Errorf("fmt.%s: %s", f, describe(r))
		}
	}
}

// TestBridgeIsHarmless calls the bridge directly, as model code could with the validator off.
func TestBridgeIsHarmless(t *testing.T) {
	s := newTestSession(t, Config{}, "")
	s.parseOnly = true
	for src, want := range map[string]string{
		`rlmhost.Call("peek", rlmhost.Context{Name: "ctx0"}, 0, 50000)`: "exceeds 16000",
		`rlmhost.Call("read_file", "/etc/passwd")`:                      "not available",
		`rlmhost.Call("peek", func() {}, 0, 1)`:                         "argument 1: unsupported argument type",
		`rlmhost.Call("os.Exit", 1)`:                                    "unknown function",
		`rlmhost.Call("peek")`:                                          "takes 3 arguments",
	} {
		r := s.run("import \"rlmhost\"\n" + src)
		if r.Err == nil || !strings.Contains(r.Err.Error(), want) {
			t.Errorf("%s: %s, want an error mentioning %q", src, describe(r), want)
		}
	}
}

// TestEscapeCorpusContained runs every Go escape case that is safe to run in this process (not
// effect: crash or hang) with the validator off, as rlm run --no-validate does (the type checker
// runs, as it always does), and checks that none reaches anything: the canary stays unread,
// nothing is written outside, no connection is made, no secret from the environment is printed,
// and the host's package variables, and the memory compiled code hands out, are intact.
func TestEscapeCorpusContained(t *testing.T) {
	cases, err := corpus.Load()
	if err != nil {
		t.Fatal(err)
	}
	values, secret, outside, conns := escapeTargets(t)
	before := hostSnapshot()
	counts := map[string]int{}
	for _, c := range cases {
		if c.Lang != "go" || !c.Escape || c.Effect == "crash" || c.Effect == "hang" {
			continue
		}
		s := newTestSession(t, Config{}, "")
		s.noValidate = true
		r := s.runCtx(t.Context(), 2*time.Second, string(c.Render(values)))
		outcome := "ran"
		if isCompileError(r.Err) {
			outcome = "rejected at compile"
		} else if r.Err != nil {
			outcome = "failed at run time (" + string(errKind(r.Err)) + ")"
		}
		counts[outcome]++
		final := ""
		if r.Final != nil {
			final = r.Final.Value
		}
		if strings.Contains(r.Stdout+final, secret) {
			t.Errorf("%s: the secret reached the output: %s", c.Name, describe(r))
		}
		if _, err := os.Stat(outside); err == nil {
			t.Errorf("%s: wrote outside the workspace", c.Name)
			os.RemoveAll(filepath.Dir(outside))
		}
		if after := hostSnapshot(); after != before {
			t.Fatalf("%s: changed the host's package variables", c.Name)
		}
		t.Logf("%-40s %s", c.Name, outcome)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("%d connections reached the loopback listener", n)
	}
	t.Logf("escape corpus, validator off, safe-to-run cases: %v", counts)
}

// escapeTargets sets up what escape cases reach for: a canary file holding the secret, a path
// outside the workspace, a loopback listener counting connections, and the secret in the
// environment.
func escapeTargets(t *testing.T) (values map[string]string, secret, outside string, conns *atomic.Int32) {
	dir := t.TempDir()
	canary := filepath.Join(dir, "canary.txt")
	secret = "CANARY-7f3c9e"
	if err := os.WriteFile(canary, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RLM_TEST_SECRET", secret)
	outside = filepath.Join(dir, "outside", "written.txt")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	conns = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	values = map[string]string{"CANARY": canary, "OUTSIDE": outside, "ADDR": ln.Addr().String(), "HOST": host, "PORT": port}
	return values, secret, outside, conns
}

// hostSnapshot describes every variable of every allowed package, and the memory the packages'
// functions hand out as their own (crc32.MakeTable's tables, the UTC and Local locations that
// time.Time's Location returns), contents included.
func hostSnapshot() string {
	_ = time.Local.String() // the local zone loads on first use: load it before the first snapshot
	var b strings.Builder
	keys := make([]string, 0, len(symbolVars))
	for k := range symbolVars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vars := symbolVars[k]()
		names := make([]string, 0, len(vars))
		for n := range vars {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "%s.%s=%+v\n", k, n, reflect.ValueOf(vars[n]).Elem().Interface())
		}
	}
	fmt.Fprintf(&b, "%v %v %+v %+v", *crc32.MakeTable(crc32.IEEE), *crc32.MakeTable(crc32.Castagnoli),
		*time.Time{}.Location(), *time.Now().Location())
	return b.String()
}

// TestSharedHostMemory: what compiled code hands out as the host's own memory never reaches a
// cell writable, with the validator off: crc32.MakeTable returns copies, and a time.Location,
// which time.Time's Location returns as the host's own, is never written in place.
func TestSharedHostMemory(t *testing.T) {
	before := hostSnapshot()
	for _, tc := range []struct{ src, want string }{
		{"import \"hash/crc32\"\ntab := crc32.MakeTable(crc32.IEEE)\n(*tab)[1] = 7\nprint((*tab)[1], crc32.Checksum([]byte(\"x\"), crc32.MakeTable(crc32.IEEE)) == crc32.ChecksumIEEE([]byte(\"x\")))", "7 true\n"},
		{"import \"time\"\nloc := time.Time{}.Location()\n*loc = *time.FixedZone(\"X\", 3600)", "cell.go:3:1: this writes a time.Location in place"},
		{"import \"time\"\n(*time.Now().Location()) = time.Location{}", "cell.go:2:1: this writes a time.Location in place"},
		{"import \"time\"\ntype zone time.Location\nfunc (z *zone) set() { *z = zone{} }\n(*zone)(time.UTC).set()", "cell.go:3:24: this writes a time.Location in place"},
		{"import \"time\"\nfunc set[T any](p *T, v T) { *p = v }\nset(time.Now().Location(), time.Location{})", "cell.go:3:1: this writes a time.Location in place"},
		{"import \"time\"\ntype box struct{ l time.Location }\nb := &box{}\nb.l = *time.UTC", "cell.go:4:1: this writes a time.Location in place"},
		// Reading, and values of the cell's own, pass.
		{"import \"time\"\nvar l time.Location\nl = *time.FixedZone(\"X\", 3600)\nt := time.Date(2026, 1, 2, 3, 0, 0, 0, &l)\nprint(t.Location().String(), t.In(time.UTC).Hour(), time.Now().UTC().Location())", "X 2 UTC\n"},
	} {
		s := newTestSession(t, Config{}, "")
		s.noValidate = true
		r := s.run(tc.src)
		got := r.Stdout
		if r.Err != nil {
			got = r.Err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\n got  %s\n want %s...", tc.src, describe(r), tc.want)
		}
		if r.Err != nil && errKind(r.Err) != fault.Denied {
			t.Errorf("%q: kind %s, want denied", tc.src, errKind(r.Err))
		}
	}
	if hostSnapshot() != before {
		t.Fatal("a cell changed the host's memory")
	}
}
