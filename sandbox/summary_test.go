package sandbox

import (
	"strings"
	"testing"
)

// testReport has the layers in present available and the others missing, all for one reason.
func testReport(present Layer) Report {
	r := newReport()
	for _, l := range AllLayers.List() {
		if present&l != 0 {
			r.set(l, Available, "")
		} else {
			r.set(l, Missing, "test")
		}
	}
	return r
}

// TestCheckMessage: the refusal names the missing layers once per reason, what each would stop,
// the others missing, the flag and the Go option.
func TestCheckMessage(t *testing.T) {
	r := testReport(Rlimits)
	r.set(Seccomp, Missing, "another reason")
	err := r.Check(0, false)
	if err == nil {
		t.Fatal("no refusal below the minimum")
	}
	for _, w := range []string{"isolation is none", "no_new_privs,landlock missing (test); seccomp missing (another reason)",
		"landlock would stop reading and writing files", "seccomp would stop sockets", "also missing: user_ns,net_ns,pid_ns,mount_ns,ipc_ns,uts_ns",
		"Pass --allow-degraded (Options.AllowDegraded in Go)", "rlimits, the validator and the interpreters' allow-lists only"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("refusal lacks %q:\n%v", w, err)
		}
	}
	if err := r.Check(0, true); err != nil {
		t.Errorf("refused with allowDegraded: %v", err)
	}
	if err := testReport(AllLayers&^PidNS).Check(0, false); err != nil {
		t.Errorf("refused above the minimum: %v", err)
	}
}

// TestSummary: what rlm isolation tells a person about model code, for the three verdicts.
func TestSummary(t *testing.T) {
	tests := []struct {
		name    string
		present Layer
		want    []string
		not     []string
	}{
		{"full", AllLayers, []string{"untrusted code: runs, with every layer"}, []string{"missing", "refused"}},
		{"above the minimum", AllLayers &^ PidNS, []string{
			"untrusted code: runs; the missing layers are not in the minimum",
			"allow-lists, with rlimits,no_new_privs,landlock,seccomp,user_ns,net_ns,mount_ns,ipc_ns,uts_ns",
			"missing pid_ns, which would stop seeing and signalling your other processes",
		}, []string{"refused", "all of your user's rights"}},
		{"no landlock", AllLayers &^ Landlock, []string{
			"untrusted code: refused (missing landlock, which the minimum needs); --allow-degraded runs it anyway",
			"missing landlock, which would stop reading and writing files",
		}, []string{"all of your user's rights"}},
		{"macOS", Rlimits, []string{
			"untrusted code: refused (missing no_new_privs,landlock,seccomp",
			"allow-lists, under rlimits only",
			"missing net_ns, which would stop the network",
			"runs with all of your user's rights",
		}, nil},
	}
	for _, tt := range tests {
		got := strings.Join(testReport(tt.present).Summary(0), "\n")
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: summary lacks %q:\n%s", tt.name, w, got)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: summary has %q:\n%s", tt.name, n, got)
			}
		}
	}
}
