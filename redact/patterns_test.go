package redact

import (
	"slices"
	"strings"
	"testing"
)

type redactCase struct {
	name    string
	pattern string // the pattern this case is about
	in      string
	want    string // "" means unchanged (a near-miss)
}

func red(label string) string { return "[REDACTED:" + label + "]" }

// patternCases has, for every pattern, at least one real-shaped secret and one near-miss.
func patternCases() []redactCase {
	return slices.Concat(pemCases(), tokenCases(), assignCases())
}

func pemCases() []redactCase {
	rsa, rsaH, rsaF := fakePEM(1, "RSA PRIVATE KEY", "\n")
	ossh, osshH, osshF := fakePEM(2, "OPENSSH PRIVATE KEY", "\r\n")
	p8, p8H, p8F := fakePEM(3, "PRIVATE KEY", `\n`)
	ec, ecH, ecF := fakePEM(4, "EC PRIVATE KEY", "\n")
	enc, encH, encF := fakePEM(5, "ENCRYPTED PRIVATE KEY", "\n")
	pgp, pgpH, pgpF := fakePEM(6, "PGP PRIVATE KEY BLOCK", "\n")
	cert, _, _ := fakePEM(7, "CERTIFICATE", "\n")
	pub, _, _ := fakePEM(8, "PUBLIC KEY", "\n")
	procType := "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," +
		fake(9, "0123456789ABCDEF", 32) + "\n\n" + fake(10, b64Chars, 64) + "\n-----END RSA PRIVATE KEY-----"
	truncated := rsa[:len(rsa)-len(rsaF)-40]
	return []redactCase{
		{"pem rsa", "private-key", "key:\n" + rsa + "\n", "key:\n" + rsaH + "\n" + red("private-key") + "\n" + rsaF + "\n"},
		{"pem openssh crlf", "private-key", ossh, osshH + "\r\n" + red("private-key") + "\r\n" + osshF},
		{"pem pkcs8 json-escaped", "private-key", `{"private_key": "` + p8 + `\n"}`, `{"private_key": "` + p8H + `\n` + red("private-key") + `\n` + p8F + `\n"}`},
		{"pem ec", "private-key", ec, ecH + "\n" + red("private-key") + "\n" + ecF},
		{"pem encrypted pkcs8", "private-key", enc, encH + "\n" + red("private-key") + "\n" + encF},
		{"pem pgp", "private-key", pgp, pgpH + "\n" + red("private-key") + "\n" + pgpF},
		{"pem proc-type", "private-key", procType, "-----BEGIN RSA PRIVATE KEY-----\n" + red("private-key") + "\n-----END RSA PRIVATE KEY-----"},
		{"pem truncated", "private-key", truncated, rsaH + "\n" + red("private-key")},
		{"near pem certificate", "private-key", cert, ""},
		{"near pem public key", "private-key", pub, ""},
		{"near pem prose", "private-key", "It starts with -----BEGIN RSA PRIVATE KEY----- and ends with -----END RSA PRIVATE KEY-----.", ""},
	}
}

func tokenCases() []redactCase {
	ant := "sk-ant-api03-" + fake(11, b64urlChars, 93) + "AA"
	antAdmin := "sk-ant-admin01-" + fake(12, b64urlChars, 93) + "AA"
	proj := "sk-proj-" + fake(13, b64urlChars, 156)
	legacy := "sk-" + fake(14, alnumChars, 48)
	svc := "sk-svcacct-" + fake(15, b64urlChars, 120)
	adm := "sk-admin-" + fake(16, b64urlChars, 100)
	ghp := "ghp_" + fake(17, alnumChars, 36)
	pat := "github_pat_" + fake(18, alnumChars, 22) + "_" + fake(19, alnumChars, 59)
	akia := "AKIA" + fake(20, upperDigits, 16)
	asia := "ASIA" + fake(21, upperDigits, 16)
	awsSec := fake(22, b64Chars, 40)
	xoxb := "xoxb-" + fake(23, digits, 12) + "-" + fake(24, digits, 13) + "-" + fake(25, alnumChars, 24)
	xapp := "xapp-1-A" + fake(26, upperDigits, 10) + "-" + fake(27, digits, 13) + "-" + fake(28, "0123456789abcdef", 64)
	hook := "T" + fake(29, upperDigits, 8) + "/B" + fake(30, upperDigits, 10) + "/" + fake(31, alnumChars, 24)
	gkey := "AIza" + fake(32, b64urlChars, 35)
	stripe := "sk_live_" + fake(33, alnumChars, 99)
	rk := "rk_live_" + fake(34, alnumChars, 24)
	hf := "hf_" + fake(35, letters, 34)
	npm := "npm_" + fake(36, alnumChars, 36)
	sg := "SG." + fake(37, b64urlChars, 22) + "." + fake(38, b64urlChars, 43)
	jwt := fakeJWT(39)
	return []redactCase{
		{"anthropic api", "anthropic", "key " + ant + ".", "key " + red("anthropic") + "."},
		{"anthropic admin", "anthropic", antAdmin, red("anthropic")},
		{"near anthropic short", "anthropic", "sk-ant-api03-notakey", ""},

		{"openai project bearer", "openai", "Authorization: Bearer " + proj, "Authorization: Bearer " + red("openai")},
		{"openai legacy", "openai", `"` + legacy + `"`, `"` + red("openai") + `"`},
		{"openai svcacct", "openai", svc, red("openai")},
		{"openai admin", "openai", "x " + adm, "x " + red("openai")},
		{"openai in env", "openai", "OPENAI_API_KEY=" + proj + "\n", "OPENAI_API_KEY=" + red("openai") + "\n"},
		{"near openai prose", "openai", "we use sk-learn-and-scikit-image-for-the-whole-pipeline today", ""},
		{"near openai glued", "openai", "task-" + fake(43, alnumChars, 40), ""},

		{"github classic", "github", "token " + ghp + " ok", "token " + red("github") + " ok"},
		{"github other kinds", "github", "gho_" + fake(44, alnumChars, 36) + " ghs_" + fake(45, alnumChars, 36), red("github") + " " + red("github")},
		{"near github short", "github", "ghp_" + fake(46, alnumChars, 35), ""},
		{"near github kind", "github", "ghx_" + fake(47, alnumChars, 36), ""},

		{"github fine-grained", "github-pat", "GH=" + pat, "GH=" + red("github-pat")},
		{"near github fine-grained", "github-pat", "see github_pat_tokens_docs for details", ""},

		{"aws key id", "aws-access-key", "id=" + akia + ",", "id=" + red("aws-access-key") + ","},
		{"aws temporary key id", "aws-access-key", asia, red("aws-access-key")},
		{"near aws key id long", "aws-access-key", akia + "X", ""},
		{"near aws key id lower", "aws-access-key", "AKIA" + strings.ToLower(fake(48, upperDigits, 16)), ""},

		{"aws secret env", "aws-secret", "AWS_SECRET_ACCESS_KEY=" + awsSec + "\n", "AWS_SECRET_ACCESS_KEY=" + red("aws-secret") + "\n"},
		{"aws secret ini", "aws-secret", "aws_secret_access_key = " + awsSec, "aws_secret_access_key = " + red("aws-secret")},
		{"aws secret json", "aws-secret", `{"SecretAccessKey": "` + awsSec + `"}`, `{"SecretAccessKey": "` + red("aws-secret") + `"}`},
		{"near aws secret placeholder", "aws-secret", "AWS_SECRET_ACCESS_KEY=" + strings.Repeat("x", 40), ""},
		{"near aws secret reference", "aws-secret", "AWS_SECRET_ACCESS_KEY=$(vault read -field=key aws/creds)", ""},

		{"slack bot token", "slack-token", "SLACK=" + xoxb, "SLACK=" + red("slack-token")},
		{"slack app token", "slack-token", xapp, red("slack-token")},
		{"near slack token", "slack-token", "xoxb-not-a-real-token", ""},

		{"slack webhook", "slack-webhook", "https://hooks.slack.com/services/" + hook, "https://hooks.slack.com/services/" + red("slack-webhook")},
		{"near slack webhook", "slack-webhook", "post to https://hooks.slack.com/services/ with a JSON body", ""},

		{"google api key", "google-api-key", "key=" + gkey + "&q=1", "key=" + red("google-api-key") + "&q=1"},
		{"near google api key", "google-api-key", "AIza" + fake(49, b64urlChars, 34), ""},

		{"stripe live", "stripe", stripe, red("stripe")},
		{"stripe restricted", "stripe", "(" + rk + ")", "(" + red("stripe") + ")"},
		{"near stripe", "stripe", "sk_live_placeholder", ""},

		{"huggingface", "huggingface", "HF_TOKEN=" + hf, "HF_TOKEN=" + red("huggingface")},
		{"near huggingface", "huggingface", "from huggingface_hub import hf_hub_download", ""},

		{"npm", "npm", "//registry.npmjs.org/:_authToken=" + npm, "//registry.npmjs.org/:_authToken=" + red("npm")},
		{"near npm", "npm", "npm_config_registry=https://registry.npmjs.org/", ""},

		{"sendgrid", "sendgrid", "SENDGRID_API_KEY='" + sg + "'", "SENDGRID_API_KEY='" + red("sendgrid") + "'"},
		{"near sendgrid", "sendgrid", "SG." + fake(50, b64urlChars, 22) + "." + fake(51, b64urlChars, 42), ""},

		{"jwt", "jwt", "Cookie: session=" + jwt + "; Path=/", "Cookie: session=" + red("jwt") + "; Path=/"},
		{"jwt bearer", "jwt", "Authorization: Bearer " + jwt, "Authorization: Bearer " + red("jwt")},
		{"near jwt one segment", "jwt", "the header eyJhbGciOiJIUzI1NiJ9 alone", ""},
		{"near jwt two segments", "jwt", "eyJhbGciOiJIUzI1NiJ9." + b64json(`{"sub":"1"}`), ""},
	}
}

func assignCases() []redactCase {
	bearer := fake(40, b64urlChars+".~", 40)
	pw := "c0rrect-H0rse-" + fake(41, alnumChars, 6)
	k32 := fake(42, alnumChars, 32)

	return []redactCase{
		{"url password", "url-password", "postgres://app:" + pw + "@db.internal:5432/app", "postgres://app:" + red("url-password") + "@db.internal:5432/app"},
		{"url password no user", "url-password", "redis://:pw" + fake(52, alnumChars, 10) + "@cache:6379/0", "redis://:" + red("url-password") + "@cache:6379/0"},
		{"url password short", "url-password", "https://user:pass@host", "https://user:" + red("url-password") + "@host"},
		{"near url port", "url-password", "https://example.com:8443/path?q=1@2", ""},
		{"near url user only", "url-password", "ssh://git@github.com/org/repo.git", ""},

		{"authorization bearer", "authorization", "Authorization: Bearer " + bearer, "Authorization: Bearer " + red("authorization")},
		{"authorization basic json", "authorization", `{"authorization":"Basic dXNlcjpodW50ZXIyMg=="}`, `{"authorization":"Basic ` + red("authorization") + `"}`},
		{"authorization no scheme", "authorization", "Proxy-Authorization: " + k32, "Proxy-Authorization: " + red("authorization")},
		{"near authorization placeholder", "authorization", "Authorization: Bearer <token>", ""},
		{"near authorization variable", "authorization", `-H "Authorization: Bearer $TOKEN"`, ""},
		{"near authorization prose", "authorization", "Authorization: required for all endpoints", ""},

		{"password env", "password", "DB_PASSWORD=" + pw + "\n", "DB_PASSWORD=" + red("password") + "\n"},
		{"password yaml quoted", "password", "  password: '" + pw + "'", "  password: '" + red("password") + "'"},
		{"password flag", "password", "mysql --password=" + pw + " db", "mysql --password=" + red("password") + " db"},
		{"password camel go", "password", `cfg.AdminPassword := "` + pw + `"`, `cfg.AdminPassword := "` + red("password") + `"`},
		{"near password placeholder", "password", "password: <redacted>", ""},
		{"near password prose", "password", "the password is strong", ""},
		{"near password short", "password", "password=hunter2", ""},
		{"near password word", "password", "password: required", ""},
		{"near password call", "password", "password = getpass.getpass()", ""},

		{"api key header", "api-key", "X-Api-Key: " + k32, "X-Api-Key: " + red("api-key")},
		{"api key camel", "api-key", `apiKey: "` + k32 + `",`, `apiKey: "` + red("api-key") + `",`},
		{"near api key environ", "api-key", `api_key = os.environ["API_KEY"]`, ""},
		{"near api key ref", "api-key", "api_key: process.env.API_KEY", ""},

		{"secret", "secret", "client_secret=" + k32 + "&grant_type=x", "client_secret=" + red("secret") + "&grant_type=x"},
		{"secret key", "secret", "SECRET_KEY = '" + k32 + "'", "SECRET_KEY = '" + red("secret") + "'"},
		{"near secret template", "secret", "secret: ${{ secrets.DEPLOY_KEY }}", ""},
		{"near secret setting", "secret", "secret = settings.SECRET_KEY", ""},

		{"token", "token", `"refresh_token": "` + k32 + `"`, `"refresh_token": "` + red("token") + `"`},
		{"token query", "token", "https://x.example/cb?token=" + k32 + "&a=1", "https://x.example/cb?token=" + red("token") + "&a=1"},
		{"near token short", "token", "token=5", ""},
		{"near token count", "token", "max_tokens: 4096", ""},
		{"near tokenizer", "token", "tokenizer=bert-base-uncased-v2", ""},
	}
}

func TestPatterns(t *testing.T) {
	r := New()
	covered := map[string][2]int{}
	for _, tc := range patternCases() {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if got := r.String(tc.in); got != want {
			t.Errorf("%s:\n in: %q\ngot: %q\nwant %q", tc.name, tc.in, got, want)
		}
		if got := slowRedact(r, tc.in); got != want {
			t.Errorf("%s: reference disagrees:\ngot: %q\nwant %q", tc.name, got, want)
		}
		c := covered[tc.pattern]
		if tc.want == "" {
			c[1]++
		} else {
			c[0]++
		}
		covered[tc.pattern] = c
	}
	for _, p := range patterns {
		if c := covered[p.name]; c[0] == 0 || c[1] == 0 {
			t.Errorf("pattern %s has %d secret and %d near-miss cases; want at least one of each", p.name, c[0], c[1])
		}
	}
}

// TestPatternsInContext embeds every case in prose, with and without line breaks around.
func TestPatternsInContext(t *testing.T) {
	r := New()
	for _, tc := range patternCases() {
		want := tc.want
		if want == "" {
			want = tc.in
		}
		if strings.Contains(tc.name, "truncated") {
			continue // an unterminated key block runs on over text that could be key body
		}
		for _, wrap := range [][2]string{{"Some text. ", " More text."}, {"line\n", "\nline"}, {"", "\n"}} {
			in := wrap[0] + tc.in + wrap[1]
			if got := r.String(in); got != wrap[0]+want+wrap[1] {
				t.Errorf("%s wrapped %q:\ngot: %q\nwant %q", tc.name, wrap, got, wrap[0]+want+wrap[1])
			}
		}
	}
}

func TestPatternNames(t *testing.T) {
	ps := Patterns()
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Name == "" || p.Description == "" || seen[p.Name] {
			t.Errorf("bad or duplicate pattern %+v", p)
		}
		seen[p.Name] = true
	}
	if ps[len(ps)-1].Name != "known" || len(ps) != len(patterns)+1 {
		t.Errorf("Patterns() = %d entries, last %q", len(ps), ps[len(ps)-1].Name)
	}
}
