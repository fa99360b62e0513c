package tools

import "bytes"

// byteFreq estimates how often each byte value occurs in data from up to 64
// samples of 4 KiB spread over it.
func byteFreq(data []byte) *[256]uint32 {
	var f [256]uint32
	const samples, size = 64, 4 << 10
	if len(data) <= samples*size {
		for _, b := range data {
			f[b]++
		}
		return &f
	}
	step := (len(data) - size) / (samples - 1)
	for k := range samples {
		for _, b := range data[k*step : k*step+size] {
			f[b]++
		}
	}
	return &f
}

// needle is a literal searched for by its rarest byte (by the sampled
// frequencies): bytes.IndexByte skips to candidates with SIMD, which beats
// bytes.Index when the literal's first byte is common (a log's 'T' or '2').
type needle struct {
	lit []byte
	k   int // offset of the rarest byte in lit
}

func newNeedle(lit []byte, freq *[256]uint32) needle {
	k := 0
	for i, b := range lit {
		if freq[b] < freq[lit[k]] {
			k = i
		}
	}
	return needle{lit: lit, k: k}
}

// index returns the first occurrence of the literal in s, or -1. When the
// rare byte keeps giving false candidates it hands over to bytes.Index.
func (n needle) index(s []byte) int {
	L, b := len(n.lit), n.lit[n.k]
	fails := 0
	for i := 0; i+L <= len(s); {
		j := bytes.IndexByte(s[i+n.k:len(s)-L+n.k+1], b)
		if j < 0 {
			return -1
		}
		c := i + j
		if bytes.Equal(s[c:c+L], n.lit) {
			return c
		}
		i = c + 1
		if fails++; fails > 16+i/64 {
			if r := bytes.Index(s[i:], n.lit); r >= 0 {
				return i + r
			}
			return -1
		}
	}
	return -1
}

// count returns the number of non-overlapping occurrences in s.
func (n needle) count(s []byte) int {
	total := 0
	for {
		i := n.index(s)
		if i < 0 {
			return total
		}
		total++
		s = s[i+len(n.lit):]
	}
}
