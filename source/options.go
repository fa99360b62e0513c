package source

import (
	"go/token"

	"github.com/rlm-sandbox/rlm/limits"
)

// Options say how to parse one source. A limit of zero (or less) means its default
// (limits.SourceBytes, limits.SourceDepth), never "unlimited".
type Options struct {
	MaxBytes int // a source larger than this is rejected unparsed; JS: the parse may take twice this in steps
	MaxDepth int // the deepest nesting the pre-scan may estimate; also bounds JS arrows (4×)

	// FileSet is the file set a Go source is parsed into; nil means a new one. An engine that
	// keys declarations by position (yaegi does) must compile the AST against the FileSet it was
	// parsed into: pass the interpreter's own.
	FileSet *token.FileSet

	// Unchecked parses without the pre-checks and ignores the limits. It exists only so that the
	// layers below the validator can be tested on their own (rlm run --no-validate), where the
	// parse runs in a confined worker whose memory cap contains it; syntax errors are still
	// reported.
	Unchecked bool
}

// withDefaults is o with every limit of zero or less replaced by its default.
func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = limits.SourceBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = limits.SourceDepth
	}
	return o
}
