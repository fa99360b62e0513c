package tools

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rlm-sandbox/rlm/limits"
)

// Limits are the per-call caps of the context tools. The zero value of each
// field means its default (zero never means unlimited); negative values are
// errors. There is no cap on how many calls a session makes: the caps bound
// what one call returns, and the cell timeout and the worker's memory bound
// the rest.
type Limits struct {
	PeekChars     int // characters one Peek may return (16,000)
	SearchResults int // matches one Search returns (200)
	LineChars     int // characters of a Match's Text and LineText (500)
	Chunks        int // descriptors one Chunk or PlanSlices may return (5,000)
	TallyResults  int // distinct matches one Tally returns (1,000)
	TextChars     int // characters Text returns (32,000,000); longer documents are an error
}

// Effective returns l with every zero (or negative) field replaced by its default (limits.Or).
func (l Limits) Effective() Limits {
	return Limits{
		PeekChars:     limits.Or(l.PeekChars, limits.PeekChars),
		SearchResults: limits.Or(l.SearchResults, limits.SearchResults),
		LineChars:     limits.Or(l.LineChars, limits.MatchChars),
		Chunks:        limits.Or(l.Chunks, limits.Chunks),
		TallyResults:  limits.Or(l.TallyResults, limits.TallyResults),
		TextChars:     limits.Or(l.TextChars, limits.TextChars),
	}
}

// Error kinds; test with errors.Is. Messages say how to fix the call.
var (
	ErrLimit    = errors.New("limit")    // a cap or a budget was hit
	ErrInvalid  = errors.New("invalid")  // a bad argument or pattern
	ErrChanged  = errors.New("changed")  // the file shrank or vanished under the mapping
	ErrClosed   = errors.New("closed")   // the store was closed
	ErrInternal = errors.New("internal") // a bug, reported instead of crashing
)

// Slice is text read by Peek.
type Slice struct {
	Ref   string `json:"ref"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Text  string `json:"text"`
}

// Match is one Search hit. Text is the matched text and LineText the line
// that holds Start; each is clipped to Limits.LineChars, with "…" marking a cut.
type Match struct {
	Ref      string `json:"ref"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Line     int64  `json:"line"`
	Text     string `json:"text"`
	LineText string `json:"line_text"`
}

// SearchResult is one page of matches: those numbered From, From+1, … in
// document order (0-based), at most Limits.SearchResults of them. Total counts
// every match in the document; Capped says matches follow this page (the next
// page starts at From+len(Matches)).
type SearchResult struct {
	Matches []Match `json:"matches"`
	From    int64   `json:"from"`
	Total   int64   `json:"total"`
	Capped  bool    `json:"capped"`
}

// Span describes a slice without its text (read it with Peek).
type Span struct {
	Index int    `json:"index"`
	Ref   string `json:"ref"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Hits  int64  `json:"hits,omitempty"`
}

// Plan is the result of PlanSlices.
type Plan struct {
	Slices  []Span `json:"slices"`
	Hits    int64  `json:"hits"`    // keyword occurrences found in the whole document
	Uniform bool   `json:"uniform"` // no keyword occurred: uniform slices instead
}

// Store holds the open context documents, named ctx0, ctx1, … in the order
// of the paths given to Open.
type Store struct {
	docs []*Doc
	lim  Limits
}

// Doc is one memory-mapped context file. Its methods are safe for
// concurrent use.
type Doc struct {
	name, path string
	store      *Store
	mu         sync.RWMutex // held for reading by operations, for writing by Close
	data       []byte
	idx        *index
	closed     bool
}

// Open maps the files read-only and indexes them. Path checks (allowed roots)
// are the caller's business; a path that is not a regular file (a fifo, a
// device) is refused without being opened (OpenRegular). Indexes.Open is Open with indexes that are built
// once and kept.
func Open(paths []string, lim Limits) (*Store, error) {
	return (*Indexes)(nil).Open(paths, lim)
}

// OpenFiles is Open for files that are already open, such as descriptors a confined worker
// inherited for files it may not open by path. The caller keeps ownership of files.
func OpenFiles(files []*os.File, lim Limits) (*Store, error) {
	return open(len(files), lim, func(s *Store, i int) (*Doc, error) {
		return (*Indexes)(nil).doc(s, "ctx"+strconv.Itoa(i), files[i].Name(), files[i])
	})
}

// OpenIndexed is OpenFiles with each file's index read from indexes[i], as
// Indexes.Encoded wrote it, instead of built: what a worker does with the
// indexes its parent passed it. It trusts no index: one that is malformed is
// an ErrInvalid error, and one that describes another file, or this file with
// other content, an ErrChanged error. A file that grew since it was indexed
// is read up to its size then. The caller keeps ownership of the files.
func OpenIndexed(files, indexes []*os.File, lim Limits) (*Store, error) {
	if len(indexes) != len(files) {
		return nil, invalidf("%d indexes for %d context files", len(indexes), len(files))
	}
	return open(len(files), lim, func(s *Store, i int) (*Doc, error) {
		return indexedDoc(s, "ctx"+strconv.Itoa(i), files[i], indexes[i])
	})
}

func open(n int, lim Limits, doc func(*Store, int) (*Doc, error)) (*Store, error) {
	if err := lim.validate(); err != nil {
		return nil, err
	}
	s := &Store{lim: lim.Effective()}
	for i := range n {
		d, err := doc(s, i)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.docs = append(s.docs, d)
	}
	return s, nil
}

// Docs returns the documents in order.
func (s *Store) Docs() []*Doc { return append([]*Doc(nil), s.docs...) }

// Doc returns the document with the given name ("ctx0", …).
func (s *Store) Doc(name string) (*Doc, error) {
	for _, d := range s.docs {
		if d.name == name {
			return d, nil
		}
	}
	return nil, invalidf("no context named %q; the contexts are ctx0 … ctx%d", name, len(s.docs)-1)
}

// Limits returns the effective caps.
func (s *Store) Limits() Limits { return s.lim }

// Close unmaps every document; later calls fail with ErrClosed.
func (s *Store) Close() error {
	var first error
	for _, d := range s.docs {
		if err := d.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Name is the document's name in refs: ctx0, ctx1, ….
func (d *Doc) Name() string { return d.name }

// Path is the absolute path the document was opened from.
func (d *Doc) Path() string { return d.path }

// Size is the file size in bytes.
func (d *Doc) Size() int64 { return int64(len(d.data)) }

// Length is the size in characters.
func (d *Doc) Length() int64 { return d.idx.length() }

// Lines is the number of lines: the count of '\n' plus one.
func (d *Doc) Lines() int64 { return d.idx.newlines() + 1 }

// Peek returns up to n characters from character offset off.
func (d *Doc) Peek(off, n int64) (Slice, error) { return d.peek(off, n) }

// Search returns a page of the matches of an RE2 pattern: at most
// Limits.SearchResults of them, starting with match number from (0 for the
// first page), and the total number of matches.
func (d *Doc) Search(pattern string, from int64) (SearchResult, error) {
	return d.search(pattern, from)
}

// Text returns the whole document, if it has at most Limits.TextChars
// characters; a longer one is an ErrLimit error that says how to read it in
// pieces.
func (d *Doc) Text() (string, error) { return d.text() }

// Count returns the number of matches of an RE2 pattern, uncapped.
func (d *Doc) Count(pattern string) (int64, error) { return d.count(pattern) }

// Chunk cuts the document into slices of size characters, each overlapping
// the previous one by overlap characters.
func (d *Doc) Chunk(size, overlap int64) ([]Span, error) { return d.chunk(size, overlap) }

// PlanSlices proposes up to max slices around occurrences of the keywords
// (case-insensitive), or uniform slices when none occurs.
func (d *Doc) PlanSlices(keywords []string, max int) (Plan, error) {
	return d.planSlices(keywords, max)
}

// Ref formats a slice reference: "ctx0[1200:1800]", character offsets,
// start inclusive, end exclusive.
func Ref(doc string, start, end int64) string {
	return doc + "[" + strconv.FormatInt(start, 10) + ":" + strconv.FormatInt(end, 10) + "]"
}

// ParseRef parses a reference made by Ref.
func ParseRef(ref string) (doc string, start, end int64, err error) {
	bad := invalidf("bad slice reference %q; the form is ctx0[start:end]", ref)
	i := strings.IndexByte(ref, '[')
	if i <= 0 || !strings.HasSuffix(ref, "]") {
		return "", 0, 0, bad
	}
	a, b, ok := strings.Cut(ref[i+1:len(ref)-1], ":")
	if !ok {
		return "", 0, 0, bad
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return "", 0, 0, bad
	}
	return ref[:i], start, end, nil
}

// Counter counts uses of one budget, such as the file-tool calls of a
// session. It is safe for concurrent use.
type Counter struct {
	what, hint string
	max        int64
	used       atomic.Int64
}

// NewCounter makes a counter of max uses; what names a use ("file-tool
// call"), hint tells the model what to do when none is left.
func NewCounter(what string, max int, hint string) *Counter {
	return &Counter{what: what, hint: hint, max: int64(max)}
}

// Take uses n more, or fails with ErrLimit (taking nothing) if that would
// exceed the maximum.
func (c *Counter) Take(n int) error {
	for {
		u := c.used.Load()
		if u+int64(n) > c.max {
			return &toolError{kind: ErrLimit, msg: fmt.Sprintf("%s limit reached: %d of %d used; %s", c.what, u, c.max, c.hint)}
		}
		if c.used.CompareAndSwap(u, u+int64(n)) {
			return nil
		}
	}
}

// Used is how many uses were taken.
func (c *Counter) Used() int { return int(c.used.Load()) }

// Max is the counter's cap.
func (c *Counter) Max() int { return int(c.max) }
