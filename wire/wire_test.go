package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
)

// shapes records, for each protocol Version, a digest of the messages' shape: every type that
// crosses the wire, its fields, their types and their JSON names.
var shapes = map[int]string{
	1: "337ca0fe61fa2484",
	2: "4168cf401e87f808", // Call.Err carries a kind and a position (an Error), not a string
	3: "88d46ec6204ca633", // Error.Pos is a fault.Position (file, offset, line, col), not a string
	4: "94b9e2cea0a081a2", // Init.Tools: the session's own tools, which the worker's engines declare
	5: "3741113f9f85004a", // Init.Limits.TallyResults: the cap of tally()
	6: "e43456e7d671f892", // Result.NotRun: a cell that failed before it ran is not journaled
}

// TestShapeIsVersioned fails when the messages change and Version does not: a worker binary of
// an older build would otherwise pass the handshake and misread what the parent sends.
func TestShapeIsVersioned(t *testing.T) {
	got := shapeDigest(reflect.TypeOf(Message{}))
	want, ok := shapes[Version]
	if !ok || want != got {
		t.Errorf("the protocol's shape is %s, and Version %d records %q: when the messages change, add 1 to Version and record the new shape under it in shapes", got, Version, want)
	}
}

func shapeDigest(t reflect.Type) string {
	var b strings.Builder
	writeShape(&b, t, map[reflect.Type]bool{})
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// writeShape writes t's shape as encoding/json sees it: the kind, and for structs each encoded
// field's name, JSON tag and shape (type names do not count).
func writeShape(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		fmt.Fprintf(b, "%s(", t.Kind())
		writeShape(b, t.Elem(), seen)
		b.WriteString(")")
	case reflect.Map:
		b.WriteString("map(")
		writeShape(b, t.Key(), seen)
		b.WriteString(",")
		writeShape(b, t.Elem(), seen)
		b.WriteString(")")
	case reflect.Struct:
		if seen[t] {
			b.WriteString("^") // a type within itself
			return
		}
		seen[t] = true
		defer delete(seen, t)
		b.WriteString("{")
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			fmt.Fprintf(b, "%s %q ", f.Name, f.Tag.Get("json"))
			writeShape(b, f.Type, seen)
			b.WriteString(";")
		}
		b.WriteString("}")
	default:
		b.WriteString(t.Kind().String())
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("é", LoggedChars+5)
	if got := Cut(long); got != strings.Repeat("é", LoggedChars)+"…" {
		t.Errorf("Cut of %d characters = %d characters; want %d and …", LoggedChars+5, len([]rune(got)), LoggedChars)
	}
	for _, s := range []string{"", "short", strings.Repeat("x", LoggedChars)} {
		if got := Cut(s); got != s {
			t.Errorf("Cut(%q) = %q; want it unchanged", s, got)
		}
	}
}

// TestBuildStamped: a build tells itself apart from builds of other sources when it has a
// module version, a VCS revision of a clean tree, or a stamp; a build of a modified tree, or
// one with none of these, does not. Different revisions, settings or stamps give different IDs.
func TestBuildStamped(t *testing.T) {
	info := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rlm-sandbox/rlm", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	cases := []struct {
		name    string
		bi      *debug.BuildInfo
		stamp   string
		stamped bool
	}{
		{"devel, no VCS", info("(devel)", "CGO_ENABLED", "0"), "", false},
		{"clean revision", info("(devel)", "vcs.revision", "abc", "vcs.modified", "false"), "", true},
		{"other revision", info("(devel)", "vcs.revision", "abd", "vcs.modified", "false"), "", true},
		{"modified tree", info("(devel)", "vcs.revision", "abc", "vcs.modified", "true"), "", false},
		{"dirty version", info("v0.0.0-20261129000000-abc+dirty", "vcs.revision", "abc", "vcs.modified", "true"), "", false},
		{"module version", info("v1.2.3"), "", true},
		{"stamp", info("(devel)"), "release-1", true},
		{"other stamp", info("(devel)"), "release-2", true},
		{"other settings", info("(devel)", "vcs.revision", "abc", "vcs.modified", "false", "-tags", "rlm_portable"), "", true},
	}
	ids := map[string]string{}
	for _, c := range cases {
		id, stamped := digestBuild(c.bi, c.stamp)
		if stamped != c.stamped {
			t.Errorf("%s: stamped %v; want %v", c.name, stamped, c.stamped)
		}
		if other, dup := ids[id]; dup {
			t.Errorf("%s and %s have the same BuildID %s", c.name, other, id)
		}
		ids[id] = c.name
	}
	a, _ := digestBuild(info("v1.2.3"), "")
	b, _ := digestBuild(info("v1.2.3"), "")
	if a != b {
		t.Errorf("the same build info gives two BuildIDs, %s and %s", a, b)
	}
}
