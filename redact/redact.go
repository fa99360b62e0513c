package redact

import "strings"

// Redactor replaces secrets in text. It is immutable and safe for concurrent use. A nil
// *Redactor, like New(), redacts the curated patterns only.
type Redactor struct {
	known    []string
	maxKnown int
}

// New returns a Redactor that also replaces every occurrence of each known value (for
// example the API key in use), labelled "known". Values shorter than 8 bytes, containing '['
// or ']', or occurring inside a "[REDACTED:…]" marker are ignored (see the package doc).
func New(known ...string) *Redactor {
	r := &Redactor{}
	for _, v := range known {
		if len(v) < minKnownLen || strings.ContainsAny(v, "[]") || insideMarker(v) {
			continue
		}
		dup := false
		for _, w := range r.known {
			dup = dup || w == v
		}
		if !dup {
			r.known = append(r.known, v)
			r.maxKnown = max(r.maxKnown, len(v))
		}
	}
	return r
}

func insideMarker(v string) bool {
	for _, m := range markers {
		if strings.Contains(m, v) {
			return true
		}
	}
	return strings.Contains("[REDACTED:"+knownLabel+"]", v)
}

// String returns s with its secrets replaced; s itself when there is nothing to redact.
func (r *Redactor) String(s string) string {
	iv := r.find(s)
	if len(iv) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8*len(iv))
	p := 0
	for _, x := range iv {
		b.WriteString(s[p:x.ss])
		b.WriteString(marker(x.pat))
		p = x.se
	}
	b.WriteString(s[p:])
	return b.String()
}

// Bytes returns b with its secrets replaced. It never modifies b: it returns b itself when
// there is nothing to redact and a new slice otherwise.
func (r *Redactor) Bytes(b []byte) []byte {
	s := string(b)
	iv := r.find(s)
	if len(iv) == 0 {
		return b
	}
	return appendRedacted(make([]byte, 0, len(s)+8*len(iv)), s, 0, len(s), iv)
}

// find returns the merged secret spans of s.
func (r *Redactor) find(s string) []span {
	if r == nil {
		r = &Redactor{}
	}
	sp, _ := r.findSpans(s, 0, len(s), true, nil)
	return merge(sp)
}
