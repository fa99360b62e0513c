package repl

import "fmt"

// addIndexes gives every context file its index, from o.Indexes (built once per input and
// cached there, or built now), each in a sealed anonymous file the workers inherit after the
// context files. A worker reads it instead of scanning the input (tools.OpenIndexed), and
// checks it: it takes nothing the parent sends on trust.
func (in *inherited) addIndexes(o Options) error {
	for i := range in.ctxFDs {
		f := in.files[i]
		enc, err := o.Indexes.Encoded(f)
		if err != nil {
			return fmt.Errorf("indexing the context file %s: %w", f.Name(), err)
		}
		idx, err := sealedFile("rlm-index", enc)
		if err != nil {
			return fmt.Errorf("passing the index of %s to the worker: %w", f.Name(), err)
		}
		in.idxFDs = append(in.idxFDs, in.add(idx))
	}
	return nil
}
