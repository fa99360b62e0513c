package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"strings"
)

// Test secrets are generated at run time from fixed seeds, so that no credential-shaped
// literal sits in the source for secret scanners to flag.

const (
	alnumChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64urlChars = alnumChars + "_-"
	b64Chars    = alnumChars + "+/"
	letters     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits      = "0123456789"
)

// fake returns n pseudo-random bytes of alphabet, always with a digit and both cases when
// the alphabet has them (as real keys do).
func fake(seed uint64, alphabet string, n int) string {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if n < 8 || (wants(alphabet, isDigit) <= has(s, isDigit) && wants(alphabet, isLower) <= has(s, isLower) &&
			wants(alphabet, isUpper) <= has(s, isUpper)) {
			return s
		}
	}
}

func wants(alphabet string, f func(byte) bool) int { return has(alphabet, f) }

func has(s string, f func(byte) bool) int {
	for i := 0; i < len(s); i++ {
		if f(s[i]) {
			return 1
		}
	}
	return 0
}

func b64json(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }

// fakeJWT returns a real-shaped HS256 token.
func fakeJWT(seed uint64) string {
	h := b64json(`{"alg":"HS256","typ":"JWT"}`)
	p := b64json(`{"sub":"` + fake(seed, digits, 10) + `","name":"Ada","iat":1516239022}`)
	return h + "." + p + "." + fake(seed+1, b64urlChars, 43)
}

// fakePEM returns a private-key block with the given label and body lines joined by nl.
func fakePEM(seed uint64, label, nl string) (block, header, footer string) {
	header = "-----BEGIN " + label + "-----"
	footer = "-----END " + label + "-----"
	var lines []string
	for k := range 4 {
		lines = append(lines, fake(seed+uint64(k), b64Chars, 64))
	}
	lines = append(lines, fake(seed+9, b64Chars, 20)+"==")
	return header + nl + strings.Join(lines, nl) + nl + footer, header, footer
}

// slowRedact is the reference: every pattern and every known value at every position.
func slowRedact(r *Redactor, s string) string {
	var sp []span
	for i := 0; i <= len(s); i++ {
		sp, _ = evalAt(s, i, true, sp)
		for _, v := range r.known {
			if strings.HasPrefix(s[i:], v) {
				sp = append(sp, span{i, i, i + len(v), len(patterns)})
			}
		}
	}
	return string(appendRedacted(nil, s, 0, len(s), merge(sp)))
}

// missedCandidates returns the positions where some matcher answers found or more (with
// and without eof) that the prefilter does not propose.
func missedCandidates(s string) []int {
	cands := candidates(s, 0, nil)
	var missed []int
	for i := 0; i <= len(s); i++ {
		a, m1 := evalAt(s, i, true, nil)
		b, m2 := evalAt(s, i, false, nil)
		if (len(a) > 0 || len(b) > 0 || m1 || m2) && !slices.Contains(cands, i) {
			missed = append(missed, i)
		}
	}
	return missed
}

var proseWords = strings.Fields(`the of and to a in is it you that he was for on are with as I his they be
at one have this from or had by hot word but what some we can out other were all there when up use your
how said an each she which do their time if will way about many then them write would like so these her
long make thing see him two has look more day could go come did number sound no most people my over know
water than call first who may down side been now find any new work part take get place made live where
after back little only round man year came show every good me give our under name very through just form
sentence great think say help low line differ turn cause much mean before move right boy old too same tell
does set three want air well also play small end put home read hand port large spell add even land here
must big high such follow act why ask men change went light kind off need house picture try us again animal
point mother world near build self earth father head stand own page should country found answer school grow
study still learn plant cover food sun four between state keep eye never last let thought city tree cross
farm hard start might story saw far sea draw left late run while press close night real life few north
password secret token key access private public header value session review deploy config service`)

// english returns about n bytes of English-like prose: sentences, commas, the odd colon,
// hyphen, number, parenthesis and quotation, and paragraphs.
func english(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.Grow(n + 200)
	for b.Len() < n {
		words := 6 + rng.IntN(14)
		for w := range words {
			word := proseWords[rng.IntN(len(proseWords))]
			if w == 0 {
				word = strings.ToUpper(word[:1]) + word[1:]
			}
			switch r := rng.IntN(100); {
			case r < 2:
				word += "-" + proseWords[rng.IntN(len(proseWords))]
			case r < 3:
				word = "(" + word + ")"
			case r < 4:
				word = `"` + word + `"`
			case r < 5:
				word = fake(rng.Uint64(), digits, 1+rng.IntN(4))
			}
			b.WriteString(word)
			switch r := rng.IntN(100); {
			case w == words-1:
			case r < 6:
				b.WriteString(", ")
			case r < 7:
				b.WriteString(": ")
			default:
				b.WriteByte(' ')
			}
		}
		b.WriteByte("....!?"[rng.IntN(6)])
		if rng.IntN(8) == 0 {
			b.WriteString("\n\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
