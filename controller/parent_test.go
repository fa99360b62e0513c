package controller

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/repl"
)

// cellLog is an Observer that keeps the cells.
type cellLog struct {
	nopObserver
	mu    sync.Mutex
	cells []Cell
}

func (c *cellLog) Cell(cl Cell) {
	c.mu.Lock()
	c.cells = append(c.cells, cl)
	c.mu.Unlock()
}

// TestBlocksPerReplyAreCapped: a reply with more than MaxBlocks code blocks runs the first
// MaxBlocks, and the feedback says so.
func TestBlocksPerReplyAreCapped(t *testing.T) {
	var reply strings.Builder
	for i := 0; i < 12; i++ {
		reply.WriteString(fenced("js", fmt.Sprintf("print(%d)", i)))
	}
	m := &scripted{replies: []string{reply.String(), fenced("js", `FINAL("done")`)}}
	cfg := cfgFor(t, "js", m)
	obs := &cellLog{}
	cfg.Observer = obs
	out := Run(context.Background(), cfg)
	if out.Err != nil || out.Answer != "done" {
		t.Fatalf("got %q, %v", out.Answer, out.Err)
	}
	if len(obs.cells) != limits.MaxBlocks+1 {
		t.Errorf("%d cells ran; want the first %d of the 12 blocks, then the answer", len(obs.cells), limits.MaxBlocks)
	}
	fb := m.seen[1][len(m.seen[1])-1].Content
	if !strings.Contains(fb, "had 12 code blocks; only the first 8 ran") {
		t.Errorf("feedback %q; want it to say that only 8 of 12 blocks ran", fb)
	}
}

// TestSubCallGetsTheCellsRemainingTime: a cell that calls llm_query just before its deadline ends
// at the deadline, although the sub-model would answer much later, and the run goes on.
func TestSubCallGetsTheCellsRemainingTime(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	m := &scripted{sub: func(string) (string, error) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return "late", nil
	}}
	m.replies = []string{
		fenced("js", `const t0 = Date.now(); while (Date.now() - t0 < 1500) {}; const a = llm_query("slow")`),
		fenced("js", `FINAL("done")`),
	}
	cfg := cfgFor(t, "js", m)
	cfg.Session.CellTimeout = 2 * time.Second
	obs := &cellLog{}
	cfg.Observer = obs
	out := Run(context.Background(), cfg)
	if out.Err != nil || out.Answer != "done" {
		t.Fatalf("got %q, %v; the cell's timeout must not end the run", out.Answer, out.Err)
	}
	took := obs.cells[0].Took
	t.Logf("the cell that called llm_query 0.5 s before its 2 s deadline ended after %v: (%s) %v", took.Round(time.Millisecond), kindName(obs.cells[0].Result.Err), obs.cells[0].Result.Err)
	if took > cfg.Session.CellTimeout+time.Second {
		t.Errorf("the cell ended %v after its start; want at most 1 s past its %v deadline", took, cfg.Session.CellTimeout)
	}
}

// TestFeedbackWarnsBeforeTheSessionEnds: from the second death on, the feedback says how many more
// deaths end the session.
func TestFeedbackWarnsBeforeTheSessionEnds(t *testing.T) {
	for _, tc := range []struct {
		deaths, left int
		want         string
	}{
		{1, 4, ""},
		{2, 3, "has died 2 times in this session; 4 more deaths will end the session"},
		{5, 0, "has died 5 times in this session; one more death will end the session"},
	} {
		var f feedbackBuilder
		f.cell(0, 1, "", repl.Result{Stdout: "x\n", Rebuilt: true, Deaths: tc.deaths, RestartsLeft: tc.left}, 1000)
		got := f.text(10_000)
		if tc.want == "" && strings.Contains(got, "will end the session") || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("deaths %d: feedback %q; want %q", tc.deaths, got, tc.want)
		}
	}
}
