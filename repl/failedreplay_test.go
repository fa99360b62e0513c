package repl

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

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

// A replay that cannot reproduce a cell names the cells it drops by the session's numbers. A
// failed cell must fail again with the same kind at the same position (not the same message,
// which may name a map's order or the time), after running, and every cell must bring back the
// variables it introduced.
func TestReplayedAs(t *testing.T) {
	at := func(k fault.Kind, line int, msg string) error {
		return &fault.Error{Kind: k, Pos: fault.Position{Filename: "cell.go", Line: line, Column: 1}, Msg: msg}
	}
	boom := at(fault.Code, 5, "panic: k7")
	failed := entry{cell: 4, failed: fault.Code, failedAt: "cell.go:5:1"}
	for _, tc := range []struct {
		e    entry
		res  Result
		want string // "" for a replay that ended as the cell did
	}{
		{entry{cell: 3}, Result{}, ""},
		{failed, Result{Err: boom}, ""},
		{failed, Result{Err: at(fault.Code, 5, "panic: k3")}, ""}, // another key of a map, the same place
		{entry{cell: 3}, Result{Err: boom}, "replaying cell 3 failed: cell.go:5:1: panic: k7"},
		{failed, Result{}, "cell 4 failed (code) when it ran, and its replay did not"},
		{failed, Result{Err: at(fault.Code, 1, "x is not defined")}, "replaying cell 4, which failed when it ran (code at cell.go:5:1), failed otherwise: cell.go:1:1: x is not defined"},
		{failed, Result{Err: at(fault.Limit, 5, "cap")}, "replaying cell 4, which failed when it ran (code at cell.go:5:1), failed otherwise: cell.go:5:1: cap"},
		{failed, Result{Err: boom, notRun: true}, "replaying cell 4, which failed when it ran (code at cell.go:5:1), failed otherwise: cell.go:5:1: panic: k7"},
		{entry{cell: 6, failed: fault.Code}, Result{Err: fault.New(fault.Code, "no position")}, ""},
		{entry{cell: 5, added: []string{"a", "b"}}, Result{Vars: []string{"a", "z"}}, "replaying cell 5 did not bring back b, which it introduced when it ran"},
		{entry{cell: 5, added: []string{"a"}}, Result{Vars: []string{"a", "z"}}, ""},
	} {
		got := ""
		if err := replayedAs(tc.e, tc.res); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("replayedAs(%+v, %+v) = %q, want %q", tc.e, tc.res, got, tc.want)
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
	j = &journal{entries: []entry{{cell: 2, vars: []string{"a"}}, {cell: 5, vars: []string{"a", "b"}}, {cell: 7, vars: []string{"a", "b", "c"}}}}
	err = j.dropRan(1, errors.New("why"), []string{"a", "b"})
	if want := "why; cells 5 to 7 are no longer replayed, and these variables are lost: c (the others may hold other values)"; err == nil || err.Error() != want {
		t.Errorf("dropRan: %v, want %q", err, want)
	}
}

// A failed cell whose message names what differs from run to run (here a map's order) is
// replayed as it ran: the same kind, at the same place.
func TestReplayOfFailedCellWithAnotherMessage(t *testing.T) {
	s := open(t, realOptions(t, "go"))
	cells := []string{
		"counts := map[string]string{}\nfor i := range 40 {\n\tcounts[fmt.Sprint(\"k\", i)] = \"x\"\n}",
		"for k, v := range counts {\n\tif _, err := strconv.Atoi(v); err != nil {\n\t\tpanic(k + \": \" + err.Error())\n\t}\n}",
	}
	if r := run(t, s, cells[0]); r.Err != nil {
		t.Fatal(r.Err)
	}
	if r := run(t, s, cells[1]); !errors.Is(r.Err, fault.Code) {
		t.Fatalf("cell 2: want a panic, got %v", r.Err)
	}
	for range 3 { // a replay may happen to name the same key; three in a row seldom do
		if err := syscall.Kill(s.w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-s.w.exited
		if r := run(t, s, "print(len(counts))"); r.Lost != nil || r.Stdout != "40\n" {
			t.Fatalf("after the kill: %q lost %v", r.Stdout, r.Lost)
		}
	}
}

// A failed cell that used what a timed-out cell (never journaled) defined fails otherwise when
// it is replayed: the rebuild says what was lost, instead of saying that everything is back.
func TestReplayOfFailedCellChecksHowItFailed(t *testing.T) {
	cells := map[string][3]string{
		"go": {"x := 5\nn := 0\nfor i := 0; i < 1<<40; i++ {\n\tn += i\n}", "y := x * 2\npanic(\"boom\")", "print(y)"},
		"js": {"let x = 5; let n = 0; for (let i = 0; i < 2 ** 40; i++) n += i", "let y = x * 2; throw new Error(\"boom\")", "print(y)"},
	}
	for lang, c := range cells {
		t.Run(lang, func(t *testing.T) {
			o := realOptions(t, lang)
			o.CellTimeout, o.KillGrace = 300*time.Millisecond, 2*time.Second
			s := open(t, o)
			if r := run(t, s, c[0]); !errors.Is(r.Err, fault.Timeout) {
				t.Fatalf("cell 1: want a timeout, got %v", r.Err)
			}
			if r := run(t, s, c[1]); !errors.Is(r.Err, fault.Code) {
				t.Fatalf("cell 2: want a code error, got %v", r.Err)
			}
			if r := run(t, s, c[2]); r.Stdout != "10\n" {
				t.Fatalf("cell 3: %q %v", r.Stdout, r.Err)
			}
			if err := syscall.Kill(s.w.cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-s.w.exited
			r := run(t, s, `print("next")`)
			if r.Lost == nil || !strings.Contains(r.Lost.Error(), "replaying cell 2, which failed when it ran") || !strings.Contains(r.Lost.Error(), "y") {
				t.Errorf("after the kill: lost %v; want the replay of cell 2 to say it failed otherwise, and y lost", r.Lost)
			}
		})
	}
}
