package redact

import (
	"bytes"
	"strings"
)

// An assignment is `name ['"]? [ \t]{0,8} (: | := | = | => | ==) [ \t]{0,8} ['"`]? value`,
// as in env files, YAML, JSON, INI, HTTP headers, shell flags and most languages. name is a
// run of [A-Za-z0-9_.-] of at most 64 bytes that starts with [A-Za-z0-9_] and is not glued to a
// word, a '.' or a ']' on its left (a '-' is fine: --password=…, X-Api-Key: …). A keyed
// pattern matches at the start of name; the secret is the value only.
//
// The prefilter finds these from the separator backwards (keyedCandidates); the grammar there
// must stay the exact mirror of parseAssign.

var identCls = newClass("A-Za-z0-9_.-")

// valueCls is what an unquoted or quoted generic value may be made of.
var valueCls = newClass("A-Za-z0-9-_.+/=~!@#$%^*:?|")

type assign struct {
	name  string
	val   int  // index of the value's first byte
	quote byte // opening quote of the value, or 0
}

// identStart reports whether a name may start at i.
func identStart(s string, i int) bool {
	if i >= len(s) || !word[s[i]] {
		return false
	}
	if i == 0 {
		return true
	}
	b := s[i-1]
	return !word[b] && b != '.' && b != ']'
}

func skipSpaces(s string, j, limit int) int {
	for n := 0; n < limit && j < len(s) && (s[j] == ' ' || s[j] == '\t'); n++ {
		j++
	}
	return j
}

func isQuote(b byte) bool { return b == '"' || b == '\'' }

func parseAssign(s string, i int) (a assign, ok bool) {
	if !identStart(s, i) {
		return a, false
	}
	e := run(s, i, identCls, maxIdent)
	if e-i > maxIdent {
		return a, false
	}
	j := e
	if j < len(s) && isQuote(s[j]) {
		j++
	}
	j = skipSpaces(s, j, maxSpaces)
	if j >= len(s) {
		return a, false
	}
	switch s[j] {
	case ':':
		j++
		if j < len(s) && s[j] == '=' {
			j++
		}
	case '=':
		j++
		if j < len(s) && (s[j] == '>' || s[j] == '=') {
			j++
		}
	default:
		return a, false
	}
	j = skipSpaces(s, j, maxSpaces)
	a = assign{name: s[i:e]}
	if j < len(s) && (isQuote(s[j]) || s[j] == '`') {
		a.quote = s[j]
		j++
	}
	a.val = j
	return a, true
}

// keyedCandidates appends the positions where parseAssign may succeed with its separator at
// j (s[j] is ':' or '='): walk back over blanks, one quote and the name.
func keyedCandidates(s string, j, from int, dst []int) []int {
	p := j
	for p > 0 && (s[p-1] == ' ' || s[p-1] == '\t') {
		p--
		if j-p > maxSpaces {
			return dst
		}
	}
	if p > 0 && isQuote(s[p-1]) {
		p--
	}
	end, lo := p, p
	for lo > from && end-lo < maxIdent && identCls[s[lo-1]] {
		lo--
	}
	if !hasStem(s[lo:end]) {
		return dst
	}
	for k := end - 1; k >= lo; k-- {
		if identStart(s, k) {
			dst = append(dst, k)
		}
	}
	return dst
}

// hasStem reports whether name holds (ASCII case-insensitively) one of the stems that every
// keyed pattern's name contains: pass, key, secret, token, auth.
func hasStem(name string) bool {
	for i := 0; i < len(name); i++ {
		switch lowerByte(name[i]) {
		case 'p':
			if hasFoldAt(name, i, "pass") {
				return true
			}
		case 'k':
			if hasFoldAt(name, i, "key") {
				return true
			}
		case 's':
			if hasFoldAt(name, i, "secret") {
				return true
			}
		case 't':
			if hasFoldAt(name, i, "token") {
				return true
			}
		case 'a':
			if hasFoldAt(name, i, "auth") {
				return true
			}
		}
	}
	return false
}

// hasFoldAt: s[i:] starts with the lower-case ASCII word w, ignoring case.
func hasFoldAt(s string, i int, w string) bool {
	if len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if lowerByte(s[i+k]) != w[k] {
			return false
		}
	}
	return true
}

// Keyword lists for the generic patterns: the name must end with one of them, at a word
// boundary ('_', '-', '.', or a camelCase hump). A '_' in a keyword matches an optional '_',
// '-' or '.'.
var (
	pwKeywords     = []string{"password", "passwd", "passphrase"}
	apiKeywords    = []string{"api_key", "access_key", "private_key"}
	secretKeywords = []string{"secret", "secret_key"}
	tokenKeywords  = []string{"token"}
)

func isSep(b byte) bool { return b == '_' || b == '-' || b == '.' }

func lowerByte(b byte) byte {
	if isUpper(b) {
		return b + 'a' - 'A'
	}
	return b
}

// endsWithKeyword reports whether name ends with kw (ASCII case-insensitive) at a boundary.
func endsWithKeyword(name, kw string) bool {
	i, k := len(name), len(kw)
	for k > 0 {
		c := kw[k-1]
		k--
		if c == '_' {
			if i > 0 && isSep(name[i-1]) {
				i--
			}
			continue
		}
		if i == 0 || lowerByte(name[i-1]) != c {
			return false
		}
		i--
	}
	if i == 0 {
		return true
	}
	p := name[i-1]
	return isSep(p) || (isLower(p) || isDigit(p)) && isUpper(name[i])
}

// looksSecret: long enough and random-looking, not a placeholder or a reference.
func looksSecret(v string) bool {
	var lo, up, dg, ot, same = false, false, false, false, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isLower(c):
			lo = true
		case isUpper(c):
			up = true
		case isDigit(c):
			dg = true
		default:
			ot = true
		}
		same = same && c == v[0]
	}
	n := 0
	for _, b := range []bool{lo, up, dg, ot} {
		if b {
			n++
		}
	}
	return !same && (dg && (lo || up) || n >= 3) && !isDottedPath(v)
}

// isDottedPath: settings.SECRET_KEY, process.env.API_TOKEN, self.token_value…
func isDottedPath(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for _, seg := range strings.Split(v, ".") {
		if seg == "" || isDigit(seg[0]) {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if !word[seg[i]] {
				return false
			}
		}
	}
	return true
}

// genericValue parses a generic value at a.val: 8..256 bytes of valueCls starting with
// [A-Za-z0-9_+], closed by the same quote if opened, not followed by '(' (a call) or '['.
func genericValue(s string, a assign) (int, int, status) {
	j := a.val
	if j >= len(s) || !(word[s[j]] || s[j] == '+') {
		return 0, 0, none
	}
	e := run(s, j, valueCls, maxValue)
	if n := e - j; n < 8 || n > maxValue {
		return 0, 0, none
	}
	if a.quote != 0 {
		if e >= len(s) || s[e] != a.quote {
			return 0, 0, none
		}
	} else if e < len(s) && (s[e] == '(' || s[e] == '[') {
		return 0, 0, none
	}
	if !looksSecret(s[j:e]) {
		return 0, 0, none
	}
	return j, e, found
}

func keyedMatcher(keywords []string) matcher {
	return func(s string, i int, _ bool) (int, int, status) {
		a, ok := parseAssign(s, i)
		if !ok {
			return 0, 0, none
		}
		for _, kw := range keywords {
			if endsWithKeyword(a.name, kw) {
				return genericValue(s, a)
			}
		}
		return 0, 0, none
	}
}

// matchAWSSecret: exactly 40 bytes of [A-Za-z0-9+/] assigned to a name that mentions both
// "aws" and "secret", or "secret access key" (SecretAccessKey, aws_secret_access_key, …).
func matchAWSSecret(s string, i int, _ bool) (int, int, status) {
	a, ok := parseAssign(s, i)
	if !ok {
		return 0, 0, none
	}
	var buf [maxIdent]byte
	n := buf[:0]
	for k := 0; k < len(a.name); k++ {
		if c := lowerByte(a.name[k]); isLower(c) {
			n = append(n, c)
		}
	}
	if !bytes.Contains(n, []byte("secretaccesskey")) && !(bytes.Contains(n, []byte("aws")) && bytes.Contains(n, []byte("secret"))) {
		return 0, 0, none
	}
	j := a.val
	e := run(s, j, awsCls, 40)
	if e-j != 40 {
		return 0, 0, none
	}
	if a.quote != 0 {
		if e >= len(s) || s[e] != a.quote {
			return 0, 0, none
		}
	} else if !rightOK(s, e, awsCls) || (e < len(s) && s[e] == '=') {
		return 0, 0, none
	}
	if !looksSecret(s[j:e]) {
		return 0, 0, none
	}
	return j, e, found
}

var authSchemes = []string{"bearer", "basic", "token", "bot"}

// matchAuthorization: a name ending in "authorization", an optional scheme word, then a
// credential of 8..2048 bytes that looks random.
func matchAuthorization(s string, i int, _ bool) (int, int, status) {
	a, ok := parseAssign(s, i)
	if !ok || !endsWithKeyword(a.name, "authorization") {
		return 0, 0, none
	}
	j := a.val
	w := j
	for w < len(s) && w-j <= 6 && (isLower(s[w]) || isUpper(s[w])) {
		w++
	}
	if w < len(s) && (s[w] == ' ' || s[w] == '\t') {
		for _, sch := range authSchemes {
			if strings.EqualFold(s[j:w], sch) {
				j = skipSpaces(s, w, maxSpaces)
				break
			}
		}
	}
	if j >= len(s) || !alnum[s[j]] {
		return 0, 0, none
	}
	e := run(s, j, authValue, maxAuthVal)
	if n := e - j; n < 8 || n > maxAuthVal || !rightOK(s, e, authValue) || !looksSecret(s[j:e]) {
		return 0, 0, none
	}
	return j, e, found
}
