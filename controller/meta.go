package controller

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/tools"
)

// previewChars is the length of the head and tail previews in the first message.
const previewChars = 300

// docMeta describes one context file.
type docMeta struct {
	Name, Path string
	Chars      int64
	Lines      int64
	Bytes      int64
	Head, Tail string
	Text       string // the whole text, only when the whole input is under DirectThreshold
	Converter  string // the program that made this text of Original ([convert]); "" for none
	Original   string
}

// origins marks the documents that are the text of another file (Config.Converted).
func (m contextMeta) origins(conv []Converted) {
	for i, d := range m.docs {
		for _, c := range conv {
			if c.Path == d.Path {
				m.docs[i].Original, m.docs[i].Converter = c.Original, c.Converter
			}
		}
	}
}

// file names the document's file for the model: its base name, or the original's and the
// program that converted it ("contract.pdf, converted to text by pdftotext").
func (d docMeta) file() string {
	if d.Converter == "" {
		return filepath.Base(d.Path)
	}
	return fmt.Sprintf("%s, converted to text by %s", filepath.Base(d.Original), filepath.Base(d.Converter))
}

// contextMeta describes the run's context files.
type contextMeta struct {
	docs []docMeta
}

func (m contextMeta) chars() int64 {
	var n int64
	for _, d := range m.docs {
		n += d.Chars
	}
	return n
}

// describe measures the context files and takes their previews: the counts come from their
// indexes (from idx, which the session then shares), the previews from the first and last
// pages. It reads their text too when the input is small enough for a direct call, or direct
// is forced.
func describe(idx *tools.Indexes, paths []string, direct bool) (contextMeta, error) {
	if len(paths) == 0 {
		return contextMeta{}, nil
	}
	st, err := idx.Open(paths, tools.Limits{})
	if err != nil {
		return contextMeta{}, err
	}
	defer st.Close()
	var m contextMeta
	for _, d := range st.Docs() {
		dm, err := measure(d)
		if err != nil {
			return contextMeta{}, err
		}
		m.docs = append(m.docs, dm)
	}
	if m.chars() < DirectThreshold || direct && m.chars() <= MaxDirectChars {
		for i, d := range st.Docs() {
			if m.docs[i].Text, err = readAll(d); err != nil {
				return contextMeta{}, err
			}
		}
	}
	return m, nil
}

func measure(d *tools.Doc) (docMeta, error) {
	n := d.Length()
	dm := docMeta{Name: d.Name(), Path: d.Path(), Chars: n, Lines: d.Lines(), Bytes: d.Size()}
	head, err := d.Peek(0, min(n, previewChars))
	if err != nil {
		return dm, err
	}
	dm.Head = head.Text
	if n > previewChars {
		tail, err := d.Peek(n-previewChars, previewChars)
		if err != nil {
			return dm, err
		}
		dm.Tail = tail.Text
		dm.Head, dm.Tail = headLines(dm.Head), tailLines(dm.Tail)
	}
	return dm, nil
}

// headLines cuts a head preview back to its last newline, and tailLines a tail preview forward
// past its first, when that keeps at least half of it: a preview that ends or starts mid-line
// reads as a record that is not there.
func headLines(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= len(s)/2 {
		return s[:i+1]
	}
	return s
}

func tailLines(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)/2 {
		return s[i+1:]
	}
	return s
}

// previewLabel names a preview by what it shows ("first 288 characters, whole lines"); whole
// says it starts and ends at line boundaries.
func previewLabel(which, s string, whole bool) string {
	label := fmt.Sprintf("%s %s characters", which, num(utf8.RuneCountInString(s)))
	if whole {
		label += ", whole lines"
	}
	return label
}

// readAll reads a small document whole, peek by peek.
func readAll(d *tools.Doc) (string, error) {
	var b strings.Builder
	for off := int64(0); off < d.Length(); off += limits.PeekChars {
		s, err := d.Peek(off, min(limits.PeekChars, d.Length()-off))
		if err != nil {
			return "", err
		}
		b.WriteString(s.Text)
	}
	return b.String(), nil
}

// text is the whole context, for a direct run (under DirectThreshold characters).
func (m contextMeta) text() string {
	var b strings.Builder
	for _, d := range m.docs {
		if len(m.docs) > 1 || d.Converter != "" {
			fmt.Fprintf(&b, "=== %s (%s) ===\n", d.Name, d.file())
		}
		t := d.Text
		b.WriteString(t)
		if !strings.HasSuffix(t, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// firstMessage gives the question and the context's metadata, never the context itself.
func (m contextMeta) firstMessage(question string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Question: %s\n\n", question)
	if len(m.docs) == 0 {
		b.WriteString("There is no context file in this run.\n")
	}
	for i, d := range m.docs {
		handle := d.Name
		if i == 0 {
			handle += " (also named context)"
		}
		fmt.Fprintf(&b, "Context file %s: %s, %s characters, %s lines, %s bytes. In code: %s.%s\n",
			d.Name, d.file(), num(d.Chars), num(shownLines(d)), num(d.Bytes), handle, crlfNote(d))
		if d.Tail == "" {
			fmt.Fprintf(&b, "All of it:\n%s\n", fence(d.Head))
			continue
		}
		fmt.Fprintf(&b, "Head (%s):\n%s\n", previewLabel("first", d.Head, strings.HasSuffix(d.Head, "\n")), fence(strings.TrimSuffix(d.Head, "\n")))
		fmt.Fprintf(&b, "Tail (%s):\n%s\n", previewLabel("last", d.Tail, int64(utf8.RuneCountInString(d.Tail)) < previewChars), fence(d.Tail))
	}
	// The question again at the end, in the words the reference RLM visualizer looks for
	// (`original query: "…"`), so that it shows an rlm trace's question.
	fmt.Fprintf(&b, "\nThe context is not in this conversation. Explore it with code, then call FINAL with the answer to the original query: \"%s\"", strings.ReplaceAll(question, `"`, "'"))
	return b.String()
}

// crlfNote warns of Windows line endings seen in the previews: split on "\n" leaves a "\r" at the
// end of every line (and of a CSV header's last key).
func crlfNote(d docMeta) string {
	if strings.Contains(d.Head, "\r\n") || strings.Contains(d.Tail, "\r\n") {
		return ` Lines end with "\r\n" (Windows): trim the "\r" after splitting on "\n".`
	}
	return ""
}

// shownLines is the number of lines as a person counts them: a final newline ends the last
// line rather than starting an empty one (Doc.Lines counts newlines plus one).
func shownLines(d docMeta) int64 {
	last := d.Tail
	if last == "" {
		last = d.Head
	}
	switch {
	case d.Chars == 0:
		return 0
	case strings.HasSuffix(last, "\n"):
		return d.Lines - 1
	}
	return d.Lines
}

// fence quotes a preview so that it cannot be mistaken for a code block of ours.
func fence(s string) string {
	return "~~~text\n" + strings.ReplaceAll(s, "~~~", "~ ~ ~") + "\n~~~"
}
