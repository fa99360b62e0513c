package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/repl"
	"github.com/rlm-sandbox/rlm/sandbox"
	"github.com/rlm-sandbox/rlm/wire"
)

// modulePath is the module rlm is built from, named when the binary carries no build information.
const modulePath = "github.com/rlm-sandbox/rlm"

// buildInfo is where this binary comes from, as rlm version prints it.
type buildInfo struct {
	Version    string `json:"version"` // the module version; "(devel)" from a work tree
	Module     string `json:"module"`
	Commit     string `json:"commit,omitempty"` // the VCS revision, with "+dirty" when the tree was modified
	CommitTime string `json:"commit_time,omitempty"`
	Stamp      string `json:"stamp,omitempty"` // -ldflags -X=github.com/rlm-sandbox/rlm/wire.stamp=NAME
	Go         string `json:"go"`
	CGO        string `json:"cgo,omitempty"` // CGO_ENABLED as built: "0" or "1"
	Tags       string `json:"tags,omitempty"`
}

// readBuild reads a build's description from its build information (nil: none) and stamp;
// goVersion stands in for the information's Go version when there is none.
func readBuild(bi *debug.BuildInfo, stamp, goVersion string) buildInfo {
	b := buildInfo{Version: "(devel)", Module: modulePath, Stamp: stamp, Go: goVersion}
	if bi == nil {
		return b
	}
	if bi.Main.Path != "" {
		b.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	dirty := false
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			b.Commit = kv.Value
		case "vcs.time":
			b.CommitTime = kv.Value
		case "vcs.modified":
			dirty = kv.Value == "true"
		case "CGO_ENABLED":
			b.CGO = kv.Value
		case "-tags":
			b.Tags = kv.Value
		}
	}
	if dirty && b.Commit != "" {
		b.Commit += "+dirty"
	}
	return b
}

// thisBuild is this binary's buildInfo.
func thisBuild() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return readBuild(bi, wire.Stamp(), runtime.Version())
}

// moduleVersion is the module's version as built ("(devel)" from a work tree).
func moduleVersion() string { return thisBuild().Version }

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "version [--json]",
		Annotations: map[string]string{noHome: ""},
		Short:       "Print rlm's version, commit, build, Go version, platform and isolation verdict",
		Example: `  rlm version
  rlm version --json`,
		Long: `Version prints where this binary comes from: the module version ("(devel)" when built
without VCS information), the VCS commit it was built from ("+dirty" when the tree had
changes; unknown when Go stamped none: built with -buildvcs=false, in a git worktree, or
outside a git checkout), the stamp given with -ldflags
-X=github.com/rlm-sandbox/rlm/wire.stamp=NAME, the build id rlm and rlm-worker must share, the
Go version, the platform and the cgo setting. Then what rlm isolation computes: the isolation
verdict on this machine and the worker binary sessions use (rlm isolation: each layer).
rlm --version and rlm -V print the same.

--json prints one object: {"version", "module", "commit", "commit_time", "stamp", "go", "os",
"arch", "cgo", "tags", "build_id", "stamped", "isolation", "worker": {"path", "fallback", "why"}}.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd.Context(), cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	return cmd
}

// printVersion is rlm version.
func printVersion(ctx context.Context, out io.Writer, asJSON bool) error {
	b := thisBuild()
	id, stamped := wire.BuildID()
	rep, wb := isolationState(ctx)
	if asJSON {
		return printJSON(out, struct {
			buildInfo
			OS        string         `json:"os"`
			Arch      string         `json:"arch"`
			BuildID   string         `json:"build_id"`
			Stamped   bool           `json:"stamped"`
			Isolation string         `json:"isolation"`
			Worker    map[string]any `json:"worker"`
		}{b, runtime.GOOS, runtime.GOARCH, id, stamped, rep.Verdict().String(), workerJSON(wb)})
	}
	var s strings.Builder
	fmt.Fprintf(&s, "rlm version %s\n", b.Version)
	line := func(k, v string) { fmt.Fprintf(&s, "%-11s %s\n", k+":", v) }
	line("module", b.Module)
	line("commit", commitText(b))
	line("stamp", orNone(b.Stamp))
	line("build id", buildIDText(id, stamped))
	line("go", goText(b))
	line("isolation", rep.Verdict().String())
	line("worker", workerText(wb))
	_, err := io.WriteString(out, s.String())
	return err
}

func commitText(b buildInfo) string {
	if b.Commit == "" {
		return "unknown (built without VCS information: with -buildvcs=false, in a git worktree, or outside a git checkout)"
	}
	if b.CommitTime != "" {
		return b.Commit + " (" + b.CommitTime + ")"
	}
	return b.Commit
}

func buildIDText(id string, stamped bool) string {
	if id == "" {
		return "unknown (the binary carries no build information)"
	}
	if stamped {
		return id
	}
	return id + " (not told apart from other builds: no module version, clean commit or stamp, so " +
		repl.WorkerName + " beside rlm is not used)"
}

func goText(b buildInfo) string {
	s := fmt.Sprintf("%s %s/%s", b.Go, runtime.GOOS, runtime.GOARCH)
	if b.CGO != "" {
		s += ", CGO_ENABLED=" + b.CGO
	}
	if b.Tags != "" {
		s += ", tags " + b.Tags
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// isolationState is what rlm isolation reports: the probe of this machine's layers, and the
// worker binary sessions run.
func isolationState(ctx context.Context) (sandbox.Report, repl.WorkerBinary) {
	return sandbox.Probe(), repl.DefaultWorker(ctx)
}
