package worker

import (
	"context"
	"testing"

	"github.com/rlm-sandbox/rlm/engine"
)

// TestServesWhatTheRegistryPlacesHere: the worker's local tools serve exactly the functions the
// registry places in the worker (engine.InWorker), and no other name; the file-call budget
// counts exactly those with engine.FileCallBudget, in a cell and again in a replay; the worker
// journals exactly the host calls whose Replay is engine.Journaled.
func TestServesWhatTheRegistryPlacesHere(t *testing.T) {
	type probe struct{ served, counted, journaled, recounted bool }
	names := []string{"exec", "_peek", "Peek"} // not in the registry
	for _, f := range engine.API {
		names = append(names, f.Name)
	}
	for _, name := range names {
		f, _ := engine.Lookup(name)
		want := probe{served: f.Place == engine.InWorker, counted: f.Budget == engine.FileCallBudget}
		lt, err := openLocalTools(Config{Limits: engine.Limits{}.Effective()})
		if err != nil {
			t.Fatal(err)
		}
		var got probe
		_, got.served, _ = lt.call(name, nil)
		got.counted = lt.fileCalls.Used() > 0
		if f.Place != engine.InEngine && f.Place != engine.BadPlace { // only host calls reach a Host
			want.journaled, want.recounted = f.Replay == engine.Journaled, want.counted
			// closed: a call for the parent fails at once, without a parent to wait for
			wk := &worker{local: lt, cell: 1, room: [2]int64{1 << 20, 1 << 20}, closed: true}
			_, _ = wk.Call(context.Background(), name, nil)
			got.journaled = wk.journal.Len() > 0
			used := lt.fileCalls.Used()
			wk.replay = &replayJournal{byKey: map[string][]journalEntry{}}
			_, _ = wk.Call(context.Background(), name, nil)
			got.recounted = lt.fileCalls.Used() > used
		}
		if got != want {
			t.Errorf("%s (%v, %v, %v): got %+v, want %+v", name, f.Place, f.Budget, f.Replay, got, want)
		}
	}
}

// TestFileCallsHint: the file-call budget's advice names what it counts, as it always has.
func TestFileCallsHint(t *testing.T) {
	want := "read_file, list_dir, file_info and grep count (write_file and the context tools do not); work from what you have read, or grep a whole directory in one call"
	if got := fileCallsHint(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
