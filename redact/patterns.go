package redact

import "strings"

// status is what a matcher says about a position.
type status uint8

const (
	none  status = iota // no secret starts here
	found               // a secret was found
	more                // undecided until more input arrives (streams only)
)

// matcher tries one pattern at position i of s. On found, [ss, se) is the secret part.
// eof says that s is the whole input; only the private-key matcher ever answers more.
// Every matcher reads at most s[i-1 : i+maxLook] except the private-key one.
type matcher func(s string, i int, eof bool) (ss, se int, st status)

type pattern struct {
	name, desc string
	match      matcher
}

// patterns in label priority order (see doc.go). Filled in init to break the initialisation
// cycle through the keyed matchers.
var patterns []pattern

func init() {
	patterns = []pattern{
		{"private-key", "PEM private key block (RSA, EC, DSA, OPENSSH, PKCS#8, ENCRYPTED, PGP): body only", matchPEM},
		{"anthropic", "Anthropic API key sk-ant-api03-… / sk-ant-admin01-…", matchAnthropic},
		{"openai", "OpenAI API key sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…", matchOpenAI},
		{"github", "GitHub token ghp_, gho_, ghu_, ghs_, ghr_ + 36 alphanumerics", matchGitHub},
		{"github-pat", "GitHub fine-grained token github_pat_…", matchGitHubPAT},
		{"aws-access-key", "AWS access key id AKIA…/ASIA… (20 characters)", matchAWSKeyID},
		{"aws-secret", "AWS secret access key: 40 characters assigned to an aws…secret / SecretAccessKey name", matchAWSSecret},
		{"slack-token", "Slack token xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-, xapp-", matchSlackToken},
		{"slack-webhook", "Slack incoming webhook hooks.slack.com/services/…: path only", matchSlackWebhook},
		{"google-api-key", "Google API key AIza + 35 characters", matchGoogleKey},
		{"stripe", "Stripe secret or restricted key sk_live_, rk_live_, sk_test_, rk_test_", matchStripe},
		{"huggingface", "Hugging Face token hf_ + 34 letters or digits", matchHuggingFace},
		{"npm", "npm token npm_ + 36 alphanumerics", matchNPM},
		{"sendgrid", "SendGrid API key SG.<22>.<43>", matchSendGrid},
		{"jwt", "JSON Web Token (eyJ…, three or five base64url segments): whole token", matchJWT},
		{"url-password", "password in URL userinfo scheme://user:PASSWORD@host", matchURLPassword},
		{"authorization", "Authorization header value (Bearer/Basic/Token/Bot credentials)", matchAuthorization},
		{"password", "assignment to a …password / passwd / passphrase name", keyedMatcher(pwKeywords)},
		{"api-key", "assignment to a …api_key / access_key / private_key name", keyedMatcher(apiKeywords)},
		{"secret", "assignment to a …secret / secret_key name", keyedMatcher(secretKeywords)},
		{"token", "assignment to a …token name", keyedMatcher(tokenKeywords)},
	}
	markers = make([]string, len(patterns))
	for k, p := range patterns {
		markers[k] = "[REDACTED:" + p.name + "]"
	}
}

// markers[k] replaces a secret found by patterns[k].
var markers []string

// knownLabel labels values given to New.
const knownLabel = "known"

// Pattern describes one curated secret pattern.
type Pattern struct {
	Name        string // the label in "[REDACTED:Name]"
	Description string
}

// Patterns lists the curated patterns in priority order, then the label of known values.
func Patterns() []Pattern {
	out := make([]Pattern, 0, len(patterns)+1)
	for _, p := range patterns {
		out = append(out, Pattern{p.name, p.desc})
	}
	return append(out, Pattern{knownLabel, "a value passed to New (for example the API key in use)"})
}

// Size limits. Every single-line match lies in s[i-1 : i+maxLook].
const (
	maxLook     = 16 << 10 // bound on what a single-line matcher reads
	maxJWT      = 12 << 10
	maxPEMBody  = 64 << 10
	maxAuthVal  = 2048
	maxValue    = 256
	maxIdent    = 64
	maxSpaces   = 8
	minKnownLen = 8
)

// class is a byte set.
type class [256]bool

// newClass builds a class from a spec such as "A-Za-z0-9_-" (a '-' not between two bytes
// is literal).
func newClass(spec string) *class {
	var c class
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for b := int(spec[i]); b <= int(spec[i+2]); b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[spec[i]] = true
	}
	return &c
}

var (
	word      = newClass("A-Za-z0-9_")
	alnum     = newClass("A-Za-z0-9")
	b64url    = newClass("A-Za-z0-9_-")
	upperDig  = newClass("A-Z0-9")
	awsCls    = newClass("A-Za-z0-9+/")
	slackCls  = newClass("A-Za-z0-9-")
	hookLeft  = newClass("A-Za-z0-9_.-")
	hookPath  = newClass("A-Za-z0-9_/-")
	pemLabel  = newClass("A-Z0-9 ")
	pemBody   = newClass("A-Za-z0-9+/=:,.\\ \t\r\n-")
	urlUser   = newClass("A-Za-z0-9._~%!$&()*+,;=-")
	urlPass   = newClass("A-Za-z0-9._~%!$&()*+,;=:-")
	authValue = newClass("A-Za-z0-9._~+/=-")
)

// run returns the end of the run of c bytes starting at i, looking at no more than limit+1
// bytes, so that end-i > limit means "too long".
func run(s string, i int, c *class, limit int) int {
	j := i
	for j < len(s) && j-i <= limit && c[s[j]] {
		j++
	}
	return j
}

// leftOK: a token of body class c may start at i (not glued to a word, to more of c, or to
// a marker's closing bracket).
func leftOK(s string, i int, c *class) bool {
	if i == 0 {
		return true
	}
	b := s[i-1]
	return !c[b] && !word[b] && b != ']'
}

// rightOK: a token of body class c may end at e.
func rightOK(s string, e int, c *class) bool {
	if e >= len(s) {
		return true
	}
	b := s[e]
	return !c[b] && !word[b] && b != '['
}

func hasAt(s string, i int, p string) bool { return len(s)-i >= len(p) && s[i:i+len(p)] == p }

// token matches prefix + [min,max] bytes of body as a whole token; the secret is all of it.
func token(s string, i int, prefix string, body *class, lo, hi int) (int, int, status) {
	if !hasAt(s, i, prefix) || !leftOK(s, i, body) {
		return 0, 0, none
	}
	j := i + len(prefix)
	e := run(s, j, body, hi)
	if n := e - j; n < lo || n > hi || !rightOK(s, e, body) {
		return 0, 0, none
	}
	return i, e, found
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }
func isLower(b byte) bool { return 'a' <= b && b <= 'z' }
func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }

func hasDigitAndLetter(v string) bool {
	var d, l bool
	for i := 0; i < len(v); i++ {
		d = d || isDigit(v[i])
		l = l || isLower(v[i]) || isUpper(v[i])
	}
	return d && l
}

func matchAnthropic(s string, i int, _ bool) (int, int, status) {
	const p = "sk-ant-"
	ss, se, st := token(s, i, p, b64url, 40, 250)
	if st != found {
		return 0, 0, none
	}
	// kind and version: api03-, admin01-, …
	k := i + len(p)
	for k < se && isLower(s[k]) {
		k++
	}
	if n := k - i - len(p); n < 2 || n > 12 || se-k < 3 || !isDigit(s[k]) || !isDigit(s[k+1]) || s[k+2] != '-' {
		return 0, 0, none
	}
	if se-(k+3) < 32 {
		return 0, 0, none
	}
	return ss, se, found
}

func matchOpenAI(s string, i int, _ bool) (int, int, status) {
	ss, se, st := token(s, i, "sk-", b64url, 32, 250)
	if st != found || !hasDigitAndLetter(s[i+3:se]) {
		return 0, 0, none
	}
	return ss, se, found
}

func matchGitHub(s string, i int, _ bool) (int, int, status) {
	if len(s)-i < 4 || s[i] != 'g' || s[i+1] != 'h' || s[i+3] != '_' || !strings.ContainsRune("pousr", rune(s[i+2])) {
		return 0, 0, none
	}
	return token(s, i, s[i:i+4], alnum, 36, 251)
}

func matchGitHubPAT(s string, i int, _ bool) (int, int, status) {
	return token(s, i, "github_pat_", word, 50, 251)
}

func matchAWSKeyID(s string, i int, _ bool) (int, int, status) {
	if !hasAt(s, i, "AKIA") && !hasAt(s, i, "ASIA") {
		return 0, 0, none
	}
	return token(s, i, s[i:i+4], upperDig, 16, 16)
}

var slackPrefixes = []string{"xoxa-", "xoxb-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"}

func matchSlackToken(s string, i int, _ bool) (int, int, status) {
	for _, p := range slackPrefixes {
		if !hasAt(s, i, p) {
			continue
		}
		ss, se, st := token(s, i, p, slackCls, 10, 250)
		if st == found && strings.ContainsAny(s[i+len(p):se], "0123456789") {
			return ss, se, found
		}
		return 0, 0, none
	}
	return 0, 0, none
}

func matchSlackWebhook(s string, i int, _ bool) (int, int, status) {
	const p = "hooks.slack.com/services/"
	if !hasAt(s, i, p) || !leftOK(s, i, hookLeft) {
		return 0, 0, none
	}
	j := i + len(p)
	e := run(s, j, hookPath, 200)
	if n := e - j; n < 20 || n > 200 || !rightOK(s, e, hookPath) || !strings.Contains(s[j:e], "/") {
		return 0, 0, none
	}
	return j, e, found
}

func matchGoogleKey(s string, i int, _ bool) (int, int, status) {
	return token(s, i, "AIza", b64url, 35, 35)
}

func matchStripe(s string, i int, _ bool) (int, int, status) {
	if len(s)-i < 8 || (s[i] != 's' && s[i] != 'r') || s[i+1] != 'k' {
		return 0, 0, none
	}
	if p := s[i : i+8]; p[2:] != "_live_" && p[2:] != "_test_" {
		return 0, 0, none
	}
	return token(s, i, s[i:i+8], alnum, 20, 247)
}

func matchHuggingFace(s string, i int, _ bool) (int, int, status) {
	ss, se, st := token(s, i, "hf_", alnum, 34, 40)
	if st != found {
		return 0, 0, none
	}
	v := s[i+3 : se]
	if !strings.ContainsFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' }) ||
		!strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return 0, 0, none
	}
	return ss, se, found
}

func matchNPM(s string, i int, _ bool) (int, int, status) {
	return token(s, i, "npm_", alnum, 36, 36)
}

func matchSendGrid(s string, i int, _ bool) (int, int, status) {
	if !hasAt(s, i, "SG.") || !leftOK(s, i, b64url) || (i > 0 && s[i-1] == '.') {
		return 0, 0, none
	}
	j := i + 3
	e := run(s, j, b64url, 22)
	if e-j != 22 || e >= len(s) || s[e] != '.' {
		return 0, 0, none
	}
	f := run(s, e+1, b64url, 43)
	if f-(e+1) != 43 || !rightOK(s, f, b64url) {
		return 0, 0, none
	}
	return i, f, found
}

// matchJWT: header "eyJ…", then two or four more base64url segments (an empty middle
// segment is allowed, as in JWE), the last one at least 10 bytes.
func matchJWT(s string, i int, _ bool) (int, int, status) {
	if !hasAt(s, i, "eyJ") || !leftOK(s, i, b64url) {
		return 0, 0, none
	}
	e := run(s, i, b64url, maxJWT)
	if e-i < 10 || e-i > maxJWT {
		return 0, 0, none
	}
	segs, last := 1, 0
	for segs < 5 && e < len(s) && s[e] == '.' {
		f := run(s, e+1, b64url, maxJWT)
		n := f - (e + 1)
		if n == 0 && (f >= len(s) || s[f] != '.') {
			break
		}
		segs, last, e = segs+1, n, f
		if e-i > maxJWT {
			return 0, 0, none
		}
	}
	if segs != 3 && segs != 5 || last < 10 || !rightOK(s, e, b64url) {
		return 0, 0, none
	}
	// A token followed by a dot and more text has another segment we did not count (or one a
	// previous pass already redacted): taking it would make redaction depend on the pass.
	if e+1 < len(s) && s[e] == '.' && s[e+1] > ' ' {
		return 0, 0, none
	}
	return i, e, found
}

// matchURLPassword: scheme://[user]:PASSWORD@host; the secret is the password.
func matchURLPassword(s string, i int, _ bool) (int, int, status) {
	if !hasAt(s, i, "://") || i == 0 || !alnum[s[i-1]] {
		return 0, 0, none
	}
	u := run(s, i+3, urlUser, 128)
	if u-(i+3) > 128 || u >= len(s) || s[u] != ':' {
		return 0, 0, none
	}
	p := run(s, u+1, urlPass, maxValue)
	if n := p - (u + 1); n < 1 || n > maxValue || p+1 >= len(s) || s[p] != '@' || !alnum[s[p+1]] {
		return 0, 0, none
	}
	return u + 1, p, found
}
