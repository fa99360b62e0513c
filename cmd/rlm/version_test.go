package main

import (
	"runtime/debug"
	"testing"
)

// TestReadBuild: what rlm version says about a build, from its build information and stamp.
func TestReadBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	const rev = "b4742872223b0123456789abcdef0123456789ab"
	tests := []struct {
		name  string
		bi    *debug.BuildInfo
		stamp string
		want  buildInfo
	}{
		{name: "no build information", want: buildInfo{Version: "(devel)", Module: "github.com/rlm-sandbox/rlm", Go: "go1.x"}},
		{name: "a work tree without VCS", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rlm-sandbox/rlm", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "0", "GOOS", "linux")},
			want: buildInfo{Version: "(devel)", Module: "github.com/rlm-sandbox/rlm", Go: "go1.26.8", CGO: "0"}},
		{name: "a clean checkout", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rlm-sandbox/rlm", Version: "(devel)"},
			Settings: settings("CGO_ENABLED", "1", "vcs.revision", rev, "vcs.time", "2026-11-24T23:20:28Z", "vcs.modified", "false")},
			want: buildInfo{Version: "(devel)", Module: "github.com/rlm-sandbox/rlm", Commit: rev, CommitTime: "2026-11-24T23:20:28Z", Go: "go1.26.8", CGO: "1"}},
		{name: "a modified checkout", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rlm-sandbox/rlm", Version: "v0.0.0-20261124232028-b4742872223b+dirty"},
			Settings: settings("vcs.revision", rev, "vcs.modified", "true", "-tags", "rlm_portable")},
			want: buildInfo{Version: "v0.0.0-20261124232028-b4742872223b+dirty", Module: "github.com/rlm-sandbox/rlm", Commit: rev + "+dirty", Go: "go1.26.8", Tags: "rlm_portable"}},
		{name: "a module version, stamped", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rlm-sandbox/rlm", Version: "v1.2.3"}},
			stamp: "debian-1.2.3-1",
			want:  buildInfo{Version: "v1.2.3", Module: "github.com/rlm-sandbox/rlm", Stamp: "debian-1.2.3-1", Go: "go1.26.8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readBuild(tt.bi, tt.stamp, "go1.x")
			if got != tt.want {
				t.Errorf("readBuild:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
