package redact

import "strings"

const pemBegin = "-----BEGIN "

// matchPEM matches "-----BEGIN <label>PRIVATE KEY[ BLOCK]-----" followed by a body of
// base64, armour headers (Proc-Type: 4,ENCRYPTED) and whitespace, up to "-----END", the first
// byte that cannot be in a body, or 64 KiB. The secret is the body without its leading and
// trailing blank space (real or JSON-escaped "\n"), so the header and footer lines survive.
// An unterminated block (a truncated key) is still redacted to where its body ends.
//
// This is the only multi-line pattern: in a stream, a block whose body reaches the end of
// what has arrived is undecided (more), unless eof.
func matchPEM(s string, i int, eof bool) (int, int, status) {
	if !hasAt(s, i, pemBegin) {
		if !eof && i < len(s) && len(s)-i < len(pemBegin) && strings.HasPrefix(pemBegin, s[i:]) {
			return 0, 0, more
		}
		return 0, 0, none
	}
	j := i + len(pemBegin)
	k := run(s, j, pemLabel, 48)
	if k-j > 48 {
		return 0, 0, none
	}
	if k == len(s) && !eof {
		return 0, 0, more
	}
	label := s[j:k]
	if !strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return 0, 0, none
	}
	if !hasAt(s, k, "-----") {
		if !eof && len(s)-k < 5 && strings.HasPrefix("-----", s[k:]) {
			return 0, 0, more
		}
		return 0, 0, none
	}
	b := k + 5
	e := b
	for e < len(s) && e-b < maxPEMBody && pemBody[s[e]] {
		if s[e] == '-' && hasAt(s, e, "-----END") {
			break
		}
		e++
	}
	if e == len(s) && e-b < maxPEMBody && !eof {
		return 0, 0, more
	}
	ss, se := trimPEM(s, b, e)
	if !hasBase64Run(s[ss:se], 20) {
		return 0, 0, none
	}
	return ss, se, found
}

// trimPEM drops up to 16 blanks or escaped newlines from each end of s[b:e].
func trimPEM(s string, b, e int) (int, int) {
	for n := 0; n < 16 && b < e; n++ {
		switch {
		case isBlank(s[b]):
			b++
		case e-b >= 2 && s[b] == '\\' && (s[b+1] == 'n' || s[b+1] == 'r'):
			b += 2
		default:
			n = 16
		}
	}
	for n := 0; n < 16 && b < e; n++ {
		switch {
		case isBlank(s[e-1]):
			e--
		case e-b >= 2 && s[e-2] == '\\' && (s[e-1] == 'n' || s[e-1] == 'r'):
			e -= 2
		default:
			n = 16
		}
	}
	return b, e
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// hasBase64Run reports whether s holds n consecutive standard-base64 bytes.
func hasBase64Run(s string, n int) bool {
	r := 0
	for i := 0; i < len(s); i++ {
		if awsCls[s[i]] || s[i] == '=' {
			r++
			if r >= n {
				return true
			}
		} else {
			r = 0
		}
	}
	return false
}
