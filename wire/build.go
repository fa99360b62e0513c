package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"strings"
	"sync"
)

// stamp names a build for BuildID when neither a module version nor a clean VCS revision does:
// a packager sets it with -ldflags "-X github.com/rlm-sandbox/rlm/wire.stamp=NAME", the same
// for rlm and rlm-worker.
var stamp string

// Stamp is the name the packager gave this build with -ldflags (see stamp), or "".
func Stamp() string { return stamp }

// BuildID identifies the build this binary comes from: a digest of its main module's path,
// version and sum, the Go version, the build settings (tags, cgo, VCS revision and whether the
// tree was modified) and the stamp. rlm and rlm-worker built by one `go build ./cmd/...` or `go
// install ./cmd/...` have the same BuildID. Stamped reports whether it tells builds of
// different sources apart: a module version, a VCS revision of a clean tree, or a stamp.
func BuildID() (id string, stamped bool) {
	buildOnce.Do(func() { buildID, buildStamped = computeBuildID() })
	return buildID, buildStamped
}

var (
	buildOnce    sync.Once
	buildID      string
	buildStamped bool
)

func computeBuildID() (string, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", stamp != ""
	}
	return digestBuild(bi, stamp)
}

// digestBuild is BuildID for the build info bi and the stamp s.
func digestBuild(bi *debug.BuildInfo, s string) (string, bool) {
	h := sha256.New()
	write := func(parts ...string) {
		for _, p := range parts {
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	write(bi.Main.Path, bi.Main.Version, bi.Main.Sum, bi.GoVersion, s)
	var revision, modified string
	for _, kv := range bi.Settings {
		write(kv.Key, kv.Value)
		switch kv.Key {
		case "vcs.revision":
			revision = kv.Value
		case "vcs.modified":
			modified = kv.Value
		}
	}
	version := bi.Main.Version != "" && bi.Main.Version != "(devel)" && !strings.HasSuffix(bi.Main.Version, "+dirty")
	clean := revision != "" && modified == "false"
	return hex.EncodeToString(h.Sum(nil)[:12]), s != "" || clean || (version && modified != "true")
}
