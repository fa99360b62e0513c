package repl

import (
	"errors"
	"syscall"
	"testing"

	"github.com/rlm-sandbox/rlm/fault"
)

// A cell that fails at run time keeps what it defined before it failed, and later cells may use
// it; a rebuild after the worker dies must give those cells the same state.
func TestReplayKeepsWhatFailedCellsDefined(t *testing.T) {
	// A failed cell, a cell that does not compile (not journaled: it changed nothing), a cell
	// that uses what the failed one defined, and one after the kill.
	cells := map[string][4]string{
		"go": {"x := 5\nvar xs []int\nxs = append(xs, x)\npanic(\"boom\")", "z := x + undefinedName", "y := x + len(xs)\nfmt.Println(y)", "fmt.Println(x, y)"},
		"js": {"let x = 5; const xs = [x];\nthrow new Error(\"boom\")", "let z = x +;", "let y = x + xs.length; print(y)", "print(x, y)"},
	}
	for lang, c := range cells {
		t.Run(lang, func(t *testing.T) {
			s := open(t, realOptions(t, lang))
			if r := run(t, s, c[0]); !errors.Is(r.Err, fault.Code) {
				t.Fatalf("cell 1: want a code error, got %v", r.Err)
			}
			if r := run(t, s, c[1]); r.Err == nil || !r.notRun {
				t.Fatalf("cell 2: want an error before it ran, got %v (not run: %v)", r.Err, r.notRun)
			}
			if r := run(t, s, c[2]); r.Err != nil || r.Stdout != "6\n" {
				t.Fatalf("cell 3: stdout %q err %v", r.Stdout, r.Err)
			}
			if n := len(s.journal.entries); n != 2 {
				t.Errorf("the journal keeps %d cells, want 2 (the failed one and the last)", n)
			}
			if err := syscall.Kill(s.w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-s.w.exited
			r := run(t, s, c[3])
			if r.Err != nil || r.Lost != nil || !r.Rebuilt || r.Stdout != "5 6\n" {
				t.Fatalf("after the kill: stdout %q err %v lost %v rebuilt %v", r.Stdout, r.Err, r.Lost, r.Rebuilt)
			}
		})
	}
}

// A replay that cannot reproduce a cell names the cells it drops by the session's numbers, and a
// failed cell must fail again, with the same kind.
func TestReplayedAs(t *testing.T) {
	boom := fault.New(fault.Code, "boom")
	for _, tc := range []struct {
		e    entry
		err  error
		want string // "" for a replay that ended as the cell did
	}{
		{entry{cell: 3}, nil, ""},
		{entry{cell: 3, failed: fault.Code}, boom, ""},
		{entry{cell: 3}, boom, "replaying cell 3 failed: boom"},
		{entry{cell: 4, failed: fault.Code}, nil, "cell 4 failed (code) when it ran, and its replay did not"},
		{entry{cell: 5, failed: fault.Limit}, boom, "replaying cell 5, which failed (limit) when it ran, failed otherwise: boom"},
	} {
		got := ""
		if err := replayedAs(tc.e, tc.err); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("replayedAs(%+v, %v) = %q, want %q", tc.e, tc.err, got, tc.want)
		}
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, true}, {boom, true}, {fault.New(fault.Limit, "cap"), true}, {fault.New(fault.Denied, "no"), true},
		{fault.New(fault.Timeout, "late"), false}, {fault.New(fault.Canceled, "stop"), false},
		{fault.New(fault.Rejected, "eval"), false}, {fault.New(fault.Crashed, "died"), false},
	} {
		if _, got := replayable(tc.err); got != tc.want {
			t.Errorf("replayable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	j := &journal{entries: []entry{{cell: 2, vars: []string{"a"}}, {cell: 5, vars: []string{"a", "b"}}, {cell: 7, vars: []string{"a", "b", "c"}}}}
	err := j.dropFrom(1, errors.New("why"))
	if want := "why; cells 5 to 7 were not replayed, so these variables are lost: b, c"; err == nil || err.Error() != want {
		t.Errorf("dropFrom: %v, want %q", err, want)
	}
	if len(j.entries) != 1 {
		t.Errorf("dropFrom kept %d entries, want 1", len(j.entries))
	}
}
