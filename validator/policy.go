package validator

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/rlm-sandbox/rlm/limits"
)

// Policy is what the validator enforces. It is plain data: the zero value means the defaults, and
// a zero or nil field means that field's default (never "unlimited" and never "allow everything").
// A non-nil empty list is honoured as empty, which is always stricter for allow-lists.
type Policy struct {
	MaxSourceBytes int   `json:"max_source_bytes"` // sources larger than this are rejected unparsed
	MaxDepth       int   `json:"max_depth"`        // nesting estimated by the pre-scan
	MaxConstAlloc  int64 `json:"max_const_alloc"`  // largest constant allocation size (elements or chars)

	Go GoPolicy `json:"go"`
	JS JSPolicy `json:"js"`
}

// GoPolicy is the Go part of a Policy.
type GoPolicy struct {
	// Imports is the allow-list of import paths.
	Imports []string `json:"imports"`
	// DeniedSymbols are "path.Name" symbols of allowed packages that may never be named, whether
	// called, used as a value, or used as a type.
	DeniedSymbols []string `json:"denied_symbols"`
	// DeniedPackageNames are package names that may never be referenced, even without an import
	// (a package leaked into scope by anything else must still be unreachable).
	DeniedPackageNames []string `json:"denied_package_names"`
}

// JSPolicy is the JS part of a Policy.
type JSPolicy struct {
	// DeniedGlobals maps identifiers that may never be referenced or bound to the rule they break.
	DeniedGlobals map[string]Rule `json:"denied_globals"`
	// DeniedMembers maps property names that may never be accessed to the rule a plain (dot)
	// access breaks; computed, escaped and destructured forms break their own rules.
	DeniedMembers map[string]Rule `json:"denied_members"`
}

// defaultGoImports are the pure packages Go code may import.
var defaultGoImports = []string{
	"bufio", "bytes", "cmp", "container/heap", "container/list", "container/ring",
	"crypto/md5", "crypto/sha1", "crypto/sha256",
	"encoding/base64", "encoding/csv", "encoding/hex", "encoding/json",
	"errors", "fmt", "hash/crc32", "hash/fnv", "html", "io", "maps",
	"math", "math/big", "math/bits", "math/cmplx", "math/rand",
	"net/url", "path", "regexp", "slices", "sort", "strconv", "strings",
	"time", "unicode", "unicode/utf16", "unicode/utf8",
}

// defaultGoDeniedSymbols are symbols of allowed packages that must never run: they read the host's
// stdin, start timers whose callbacks run on other goroutines, block forever, or read the disk.
var defaultGoDeniedSymbols = []string{
	"fmt.Scan", "fmt.Scanf", "fmt.Scanln",
	"io.Pipe",
	"time.After", "time.AfterFunc", "time.LoadLocation", "time.NewTicker", "time.NewTimer",
	"time.Sleep", "time.Tick", "time.Ticker", "time.Timer",
}

// defaultGoDeniedPackageNames are names of host packages that model code may never reference.
var defaultGoDeniedPackageNames = []string{
	"atomic", "cgo", "debug", "exec", "filepath", "http", "interp", "ioutil", "os", "plugin",
	"reflect", "runtime", "signal", "stdlib", "sync", "syscall", "unsafe",
}

// defaultJSDeniedGlobals are identifiers JS code may never use.
var defaultJSDeniedGlobals = map[string]Rule{
	"eval": Evaluator, "Function": Evaluator,
	"Reflect": Reflection, "Proxy": Reflection, "WeakRef": Reflection,
	"FinalizationRegistry": Reflection, "Atomics": Reflection,
	"SharedArrayBuffer": Reflection, "WebAssembly": Reflection,
	"globalThis": GlobalObject, "global": GlobalObject, "window": GlobalObject,
	"self": GlobalObject, "frames": GlobalObject,
	"require": HostAccess, "process": HostAccess, "module": HostAccess, "exports": HostAccess,
	"Deno": HostAccess, "Bun": HostAccess, "importScripts": HostAccess,
}

// defaultJSDeniedMembers are property names JS code may never access.
var defaultJSDeniedMembers = map[string]Rule{
	"constructor": MemberDenied, "__proto__": MemberDenied, "prototype": MemberDenied,
	"caller": MemberDenied, "callee": MemberDenied, "arguments": MemberDenied,
	"__defineGetter__": MemberDenied, "__defineSetter__": MemberDenied,
	"__lookupGetter__": MemberDenied, "__lookupSetter__": MemberDenied,
	"getPrototypeOf": Prototype, "setPrototypeOf": Prototype,
}

// Effective returns p with every zero field replaced by its default.
func (p Policy) Effective() Policy {
	p = p.withLimits()
	if p.Go.Imports == nil {
		p.Go.Imports = slices.Clone(defaultGoImports)
	}
	if p.Go.DeniedSymbols == nil {
		p.Go.DeniedSymbols = slices.Clone(defaultGoDeniedSymbols)
	}
	if p.Go.DeniedPackageNames == nil {
		p.Go.DeniedPackageNames = slices.Clone(defaultGoDeniedPackageNames)
	}
	if p.JS.DeniedGlobals == nil {
		p.JS.DeniedGlobals = cloneRules(defaultJSDeniedGlobals)
	}
	if p.JS.DeniedMembers == nil {
		p.JS.DeniedMembers = cloneRules(defaultJSDeniedMembers)
	}
	return p
}

func cloneRules(m map[string]Rule) map[string]Rule {
	out := make(map[string]Rule, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// withLimits returns p with its zero limits replaced by the defaults. Lists stay as they are: nil
// lists are resolved to the defaults where they are used, without copying.
func (p Policy) withLimits() Policy {
	if p.MaxSourceBytes <= 0 {
		p.MaxSourceBytes = limits.SourceBytes
	}
	if p.MaxDepth <= 0 {
		p.MaxDepth = limits.SourceDepth
	}
	if p.MaxConstAlloc <= 0 {
		p.MaxConstAlloc = limits.ConstAlloc
	}
	return p
}

func (p *Policy) jsGlobals() map[string]Rule {
	if p.JS.DeniedGlobals == nil {
		return defaultJSDeniedGlobals
	}
	return p.JS.DeniedGlobals
}

func (p *Policy) jsMembers() map[string]Rule {
	if p.JS.DeniedMembers == nil {
		return defaultJSDeniedMembers
	}
	return p.JS.DeniedMembers
}

// goSets is a Go policy compiled into lookup tables.
type goSets struct {
	allowed  map[string]bool   // allowed import paths
	pkgNames map[string]bool   // names of allowed and denied packages
	banned   map[string]bool   // denied package names
	denied   map[string]string // "name.Sym" -> "path.Sym"
	paths    map[string]string // package name -> allowed import path
}

var defaultGoSets = sync.OnceValue(func() *goSets {
	return newGoSets(defaultGoImports, defaultGoDeniedSymbols, defaultGoDeniedPackageNames)
})

// goSets returns the lookup tables for p's Go policy; the default's are built once.
func (p *Policy) goSets() *goSets {
	g := p.Go
	if g.Imports == nil && g.DeniedSymbols == nil && g.DeniedPackageNames == nil {
		return defaultGoSets()
	}
	e := Policy{Go: g}.Effective().Go
	return newGoSets(e.Imports, e.DeniedSymbols, e.DeniedPackageNames)
}

func newGoSets(imports, deniedSymbols, bannedNames []string) *goSets {
	s := &goSets{
		allowed: map[string]bool{}, pkgNames: map[string]bool{}, banned: map[string]bool{},
		denied: map[string]string{}, paths: map[string]string{},
	}
	for _, p := range imports {
		s.allowed[p] = true
		s.pkgNames[path.Base(p)] = true
		s.paths[path.Base(p)] = p
	}
	for _, sym := range deniedSymbols {
		if i := strings.LastIndex(sym, "."); i > 0 {
			s.denied[path.Base(sym[:i])+sym[i:]] = sym
		}
	}
	for _, n := range bannedNames {
		s.banned[n], s.pkgNames[n] = true, true
	}
	return s
}
