package sandbox

import "fmt"

// layerStops says, for a person deciding whether to pass --allow-degraded, what each layer
// stops (doc.go has the detail, and what each does not stop).
var layerStops = map[Layer]string{
	Rlimits:    "runaway memory, file sizes, open files and CPU time",
	NoNewPrivs: "gaining privileges through setuid programs",
	Landlock:   "reading and writing files other than the context files, the roots and the workspace; executing programs",
	Seccomp:    "sockets, starting programs, fork, ptrace and the other denied system calls",
	UserNS:     "running with your uid (the worker gets an unmapped, unprivileged one)",
	NetNS:      "the network, including services on localhost",
	PidNS:      "seeing and signalling your other processes",
	MountNS:    "mounts that your other processes would see (seccomp also denies mount)",
	IPCNS:      "System V IPC and POSIX message queues shared with your other processes",
	UTSNS:      "changing the host name",
}

// Lines lists the layers one to a line, as rlm isolation and a session's isolation report
// print them: the layer, its status and, when there is one, the reason in parentheses.
func (r Report) Lines() []string {
	out := make([]string, 0, len(r.Layers))
	for _, l := range r.Layers {
		line := fmt.Sprintf("%-10s %s", l.Layer, l.Status)
		if l.Detail != "" {
			line += " (" + l.Detail + ")"
		}
		out = append(out, line)
	}
	return out
}

// Summary says in plain words what the report means for model code: whether rlm runs it
// without --allow-degraded (minimum as in Config.Minimum; 0 means DefaultMinimum), what it runs
// in with the flag, and what each missing layer would have stopped.
func (r Report) Summary(minimum Layer) []string {
	if minimum == 0 {
		minimum = DefaultMinimum
	}
	v := r.Verdict()
	if v.Level == "full" {
		return []string{"untrusted code: runs, with every layer"}
	}
	var out []string
	if lack := minimum &^ r.Present(); lack != 0 {
		out = append(out, fmt.Sprintf("untrusted code: refused (missing %s, which the minimum needs); --allow-degraded runs it anyway", lack))
	} else {
		out = append(out, "untrusted code: runs; the missing layers are not in the minimum ("+minimum.String()+")")
	}
	in := "a separate worker process in its own process group, killed at the hard deadline, behind the validator and the interpreters' allow-lists"
	switch p := r.Present(); {
	case p == Rlimits:
		in += ", under rlimits only"
	case p != 0:
		in += ", with " + p.String()
	}
	out = append(out, "model code runs in "+in)
	for _, l := range v.Missing.List() {
		out = append(out, fmt.Sprintf("missing %s, which would stop %s", l, layerStops[l]))
	}
	if v.Level == "none" {
		out = append(out, "code that gets past the validator and the allow-lists runs with all of your user's rights: "+
			"your files, the network, your other processes")
	}
	return out
}
