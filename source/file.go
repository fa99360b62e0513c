package source

import (
	"sort"
	"sync"

	"github.com/rlm-sandbox/rlm/fault"
)

// File is a source as written: its name and text, and the offsets of its lines, which turn a
// byte offset into a fault.Position. The line table is built on first use; a File is safe for
// concurrent use.
type File struct {
	name  string
	src   []byte
	once  sync.Once
	lines []int // offsets of line starts
}

// NewFile returns the File of src, named filename in its positions. src must not change.
func NewFile(filename string, src []byte) *File {
	return &File{name: filename, src: src}
}

// Position resolves byte offset off, clamped to the source.
func (f *File) Position(off int) fault.Position {
	off = max(0, min(off, len(f.src)))
	lines := f.table()
	i := sort.SearchInts(lines, off+1) - 1
	return fault.Position{Filename: f.name, Offset: off, Line: i + 1, Column: off - lines[i] + 1}
}

func (f *File) table() []int {
	f.once.Do(func() {
		f.lines = append(f.lines, 0)
		for i, b := range f.src {
			if b == '\n' {
				f.lines = append(f.lines, i+1)
			}
		}
	})
	return f.lines
}

// offset turns a 1-based line and byte column into an offset; 0 for a line outside the source.
func (f *File) offset(line, col int) int {
	lines := f.table()
	if line < 1 || line > len(lines) {
		return 0
	}
	return lines[line-1] + col - 1
}
