package audit

import (
	"path/filepath"
	"sync"
	"testing"
)

// TestOpenConcurrently: many connections opening a new database at once (the runs of a batch
// starting together) all get it migrated, none refused as busy.
func TestOpenConcurrently(t *testing.T) {
	for round := range 5 {
		path := filepath.Join(t.TempDir(), "audit.db")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Go(func() {
				db, err := Open(path, Options{})
				if err != nil {
					errs <- err
					return
				}
				db.Close()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
