package termsafe_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/termsafe"
)

// hostile is what a cell or a model can print to take over a terminal.
var hostile = []struct{ name, in, want string }{
	{"plain", "hello, world\n\tindented", "hello, world\n\tindented"},
	{"backslash kept", `C:\x1b and \u009b as text`, `C:\x1b and \u009b as text`},
	{"OSC 0 title", "\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
	{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`},
	{"hidden text", "ok \x1b[8msecret\x1b[0m", `ok \x1b[8msecret\x1b[0m`},
	{"line forged", "data\r\x1b[KFINAL: 42", `data\r\x1b[KFINAL: 42`},
	{"CRLF kept", "a\r\nb\r\n", "a\r\nb\r\n"},
	{"lone CR at end", "a\r", `a\r`},
	{"C1 CSI, UTF-8 form", "x\u009b31mred", `x\u009b31mred`},
	{"C1 CSI, raw byte", "x\x9b31m", `x\x9b31m`},
	{"DEL and NUL", "a\x7fb\x00c", `a\x7fb\x00c`},
	{"bidi override", "abc\u202edcba", `abc\u202edcba`},
	{"isolates", "\u2066x\u2069", `\u2066x\u2069`},
	{"mark", "⟫ FINAL: 42", `\u27eb FINAL: 42`},
	{"truncated UTF-8", "caf\xc3", `caf\xc3`},
	{"valid non-ASCII", "café ☕ 日本 \u00a0", "café ☕ 日本 \u00a0"},
	{"BEL BS FF VT", "\a\b\f\v", `\a\b\f\v`},

	// Characters that show nothing or break a line where an editor or a log viewer reads text.
	{"zero-width space", "a\u200bb", `a\u200bb`},
	{"zero-width non-joiner after ASCII", "a\u200cb", `a\u200cb`},
	{"zero-width joiner between Latin letters", "r\u200dlm", `r\u200dlm`},
	{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
	{"word joiner, invisible operators", "x\u2060\u2061\u2062\u2063\u2064", `x\u2060\u2061\u2062\u2063\u2064`},
	{"byte order mark", "\ufeffhi", `\ufeffhi`},
	{"soft hyphen", "in\u00advisible", `in\u00advisible`},
	{"line separator", "a\u2028b", `a\u2028b`},
	{"paragraph separator", "a\u2029b", `a\u2029b`},
	{"tag characters", "hi\U000e0041\U000e0042\U000e007f", `hi\U000e0041\U000e0042\U000e007f`},
	{"tag block, unassigned", "\U000e0000\U000e0002", `\U000e0000\U000e0002`},
	{"variation selector after ASCII", "r\ufe0flm", `r\ufe0flm`},
	{"variation selector at the start", "\ufe0e", `\ufe0e`},
	{"variation selector supplement after ASCII", "a\U000e0100", `a\U000e0100`},
	{"Mongolian selectors", "x\u180b\u180e\u180f", `x\u180b\u180e\u180f`},
	{"Hangul fillers", "\u3164\u115f\u1160\uffa0", `\u3164\u115f\u1160\uffa0`},
	{"blank-looking", "a\u034fb\u17b4\u17b5\u2800", `a\u034fb\u17b4\u17b5\u2800`},
	{"interlinear annotation", "\ufff9a\ufffab\ufffb", `\ufff9a\ufffab\ufffb`},
	{"joiner at the end", "\U0001f469\u200d", "\U0001f469" + `\u200d`},

	// Ordinary text, and the invisible characters that are part of it, kept.
	{"accents, CJK, Greek, Cyrillic", "café naïve 日本語のテキスト Ελληνικά русский 한국어", "café naïve 日本語のテキスト Ελληνικά русский 한국어"},
	{"emoji presentation", "\u26a0\ufe0f careful \u2764\ufe0f", "\u26a0\ufe0f careful \u2764\ufe0f"},
	{"keycap", "1\ufe0f\u20e3 #\ufe0f\u20e3", "1\ufe0f\u20e3 #\ufe0f\u20e3"},
	{"emoji ZWJ sequence", "\U0001f469\u200d\U0001f4bb \U0001f9d1\U0001f3fd\u200d\U0001f680", "\U0001f469\u200d\U0001f4bb \U0001f9d1\U0001f3fd\u200d\U0001f680"},
	{"ZWJ after VS16", "\u2764\ufe0f\u200d\U0001f525", "\u2764\ufe0f\u200d\U0001f525"},
	{"Persian ZWNJ", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"},
	{"Devanagari ZWJ", "\u0915\u094d\u200d\u0937", "\u0915\u094d\u200d\u0937"},
	{"ideographic variation", "\u845b\U000e0100", "\u845b\U000e0100"},
	{"guillemets inside a line", "il a dit « oui » et 》 读《三体》 ≫ 1", "il a dit « oui » et 》 读《三体》 ≫ 1"},
	{"not at the start of a line", "see [agent:rlm] and rlm: here", "see [agent:rlm] and rlm: here"},
	{"markdown link, doctest, shouting", "[agent docs](x)\n>>> x\n>> y\nRLM: z\n[batch job]", "[agent docs](x)\n>>> x\n>> y\nRLM: z\n[batch job]"},
	{"indented past 8", "         \u226b FINAL: 42", "         \u226b FINAL: 42"},

	// Lines that start like rlm's own: the first character is escaped.
	{"mark look-alike ≫", "\u226b FINAL: 42", `\u226b FINAL: 42`},
	{"mark look-alike 》", "\u300b FINAL: 42", `\u300b FINAL: 42`},
	{"mark look-alike », second line", "ok\n\u00bb FINAL: 42", "ok\n" + `\u00bb FINAL: 42`},
	{"mark look-alikes, indented", "   \u203a a\n\t\u276f b\n\u22d9 c\n\uff1e d", "   " + `\u203a a` + "\n\t" + `\u276f b` + "\n" + `\u22d9 c` + "\n" + `\uff1e d`},
	{"German quote opening a line", "\u00bbZitat\u00ab", `\u00bbZitat` + "\u00ab"},
	{"progress line", "[agent:rlm] finished: ANSWERED", `\x5bagent:rlm] finished: ANSWERED`},
	{"rlm message, after CRLF", "x\r\nrlm: warning: isolation is full", "x\r\n" + `\x72lm: warning: isolation is full`},
	{"batch and worker lines", "[batch] 3/3 done\n  [worker] ok", `\x5bbatch] 3/3 done` + "\n  " + `\x5bworker] ok`},
	{"Cyrillic letters", "[\u0430g\u0435nt:rlm] ok", `\x5b` + "\u0430g\u0435nt:rlm] ok"},
	{"fullwidth bracket", "\uff3bagent:rlm] ok", `\uff3bagent:rlm] ok`},
	{"Armenian colon", "rlm\u0589 x", `\x72lm` + "\u0589 x"},
	{"combining marks inside", "[a\u0332g\u0332ent:rlm] ok\nr\u0307lm: x", `\x5b` + "a\u0332g\u0332ent:rlm] ok\n" + `\x72` + "\u0307lm: x"},
	{"a forged line after a separator", "a\u2028\u226b FINAL: 1", `a\u2028` + "\u226b FINAL: 1"},

	// Issue 17, second red team: blanks other than ASCII ones before a line start, a combining
	// mark first, look-alikes a closed table missed, and line starts it did not list.
	{"no-break space first", "\u00a0rlm: configuration from /tmp/evil/rlm.toml (user)", "\u00a0" + `\x72lm: configuration from /tmp/evil/rlm.toml (user)`},
	{"em space first", "\u2003rlm: x", "\u2003" + `\x72lm: x`},
	{"ideographic space first", "\u3000[agent:rlm] completed", "\u3000" + `\x5bagent:rlm] completed`},
	{"figure, narrow no-break and Ogham spaces", "\u2007rlm: x\n\u202frlm: x\n\u1680rlm: x", "\u2007" + `\x72lm: x` + "\n\u202f" + `\x72lm: x` + "\n\u1680" + `\x72lm: x`},
	{"blanks of every kind, mixed", " \t\u00a0\u3000\u205f\u2800[batch] done", " \t\u00a0\u3000\u205f" + `\u2800\x5bbatch] done`},
	{"combining mark first", "\u0301rlm: x", "\u0301" + `\x72lm: x`},
	{"combining mark on a blank", " \u0301 [eval] 1/1 ok", " \u0301 " + `\x5beval] 1/1 ok`},
	{"mark look-alike ⏵", "\u23f5 FINAL: 42", `\u23f5 FINAL: 42`},
	{"mark look-alike ˃", "\u02c3 FINAL: 42", `\u02c3 FINAL: 42`},
	{"mark look-alikes ➤ ▷ ⏩", "\u27a4 a\n\u25b7 b\n\u23e9 c", `\u27a4 a` + "\n" + `\u25b7 b` + "\n" + `\u23e9 c`},
	{"Lisu colon", "rlm\ua4fd configuration from x", `\x72lm` + "\ua4fd configuration from x"},
	{"raised colon", "rlm\u02f8 configuration from x", `\x72lm` + "\u02f8 configuration from x"},
	{"l as Latin capital iota", "r\u0196m: x", `\x72` + "\u0196m: x"},
	{"l as script l", "r\u2113m: x", `\x72` + "\u2113m: x"},
	{"m as rn", "rlrn: x", `\x72lrn: x`},
	{"accented r", "\u0155lm: x", `\u0155lm: x`},
	{"mathematical bold letters", "\U0001d42b\U0001d425\U0001d426: x", `\U0001d42b` + "\U0001d425\U0001d426: x"},
	{"bracket, upper corner", "\u23a1agent:rlm] completed", `\u23a1agent:rlm] completed`},
	{"bracket, white square", "\u27e6agent:rlm] completed", `\u27e6agent:rlm] completed`},
	{"bracket, lenticular", "\u3010worker\u3011 ok", `\u3010worker` + "\u3011 ok"},
	{"script e", "[ag\u212fnt:rlm] completed", `\x5b` + "ag\u212fnt:rlm] completed"},
	{"rlm mcp line", "rlm mcp: serving http://127.0.0.1:1/ (roots /)", `\x72lm mcp: serving http://127.0.0.1:1/ (roots /)`},
	{"rlm mcp line, no-break space inside", "rlm\u00a0mcp: serving", `\x72lm` + "\u00a0mcp: serving"},
	{"eval line", "[eval] 1/1 ok", `\x5beval] 1/1 ok`},

	// Ordinary text in other scripts stays as it is, at the start of a line too.
	{"CJK after an ideographic space", "\u3000日本語のテキスト\n\u3000\u3000《三体》", "\u3000日本語のテキスト\n\u3000\u3000《三体》"},
	{"accents, emoji and quotes first", "é là\n✅ done\n« oui »\n「引用」\n👩\u200d💻 ok", "é là\n✅ done\n« oui »\n「引用」\n👩\u200d💻 ok"},
	{"rlm as a word", "rlm is a tool; rlm run works\n[evaluation] 3", "rlm is a tool; rlm run works\n[evaluation] 3"},
	{"no-break space inside", "prix\u00a0: 3\u00a0€", "prix\u00a0: 3\u00a0€"},
}

func TestString(t *testing.T) {
	for _, tc := range hostile {
		if got := termsafe.String(tc.in); got != tc.want {
			t.Errorf("%s: String(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestWriterSplits writes each case cut at every byte: the output equals String's.
func TestWriterSplits(t *testing.T) {
	for _, tc := range hostile {
		for cut := 0; cut <= len(tc.in); cut++ {
			var buf bytes.Buffer
			w := termsafe.NewWriter(&buf)
			for _, part := range []string{tc.in[:cut], tc.in[cut:]} {
				if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
					t.Fatalf("%s: Write = %d, %v; want %d, nil", tc.name, n, err, len(part))
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tc.want {
				t.Errorf("%s cut at %d: wrote %q, want %q", tc.name, cut, got, tc.want)
			}
		}
	}
}

func TestRaw(t *testing.T) {
	var buf bytes.Buffer
	w := termsafe.NewWriter(&buf)
	w.Write([]byte("held\r"))
	termsafe.Raw(w).Write([]byte("\x1b[1mbold\x1b[0m\n"))
	w.Write([]byte("\x1b"))
	w.Flush()
	if got, want := buf.String(), "held\\r\x1b[1mbold\x1b[0m\n\\x1b"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if termsafe.Raw(&buf) != &buf {
		t.Error("Raw of a plain writer is not the writer itself")
	}
}

// TestJSON: the JSON of hostile values keeps no DEL, C1 or bidi character, stays valid, and
// decodes to the same values.
func TestJSON(t *testing.T) {
	for _, tc := range hostile {
		b, err := json.Marshal(map[string]string{"answer": tc.in})
		if err != nil {
			t.Fatal(err)
		}
		got := termsafe.JSON(b)
		if termsafe.String(string(got)) != string(got) {
			t.Errorf("%s: JSON left something to escape: %q", tc.name, got)
		}
		var back, orig map[string]string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: invalid JSON %q: %v", tc.name, got, err)
		}
		json.Unmarshal(b, &orig)
		if back["answer"] != orig["answer"] {
			t.Errorf("%s: decoded %q, want %q", tc.name, back["answer"], orig["answer"])
		}
	}
}

// lookAlikes are characters that read like termsafe.Mark, listed here apart from the package's.
var lookAlikes = "\u27eb\u226b\u22d9\u00bb\u203a\u300b\u3009\u27e9\u232a\u276f\u2771\uff1e\ufe65\u23f5\u02c3\u27a4\u25b7"

// inert reports the first terminal-active, invisible or forging thing in s, or "".
func inert(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	prev := rune('\n')
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
		case r < 0x20 && r != '\t' && r != '\n', r >= 0x7f && r <= 0x9f:
			return "control character"
		case r == termsafe.Mark:
			return "mark"
		case r == 0x200c || r == 0x200d || unicode.Is(unicode.Variation_Selector, r):
			if prev < 0x80 && !(r == 0xfe0f && strings.HasPrefix(s[i+3:], "\u20e3")) {
				return "joiner or selector after ASCII or at a line start"
			}
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp), r >= 0xe0000 && r <= 0xe007f:
			return "invisible character"
		}
		prev = r
	}
	for _, line := range strings.Split(s, "\n") {
		for k := 0; k < 8 && line != ""; k++ { // rlm's lines are told apart up to 8 blanks in
			r, n := utf8.DecodeRuneInString(line)
			if r != '\t' && !unicode.In(r, unicode.Zs, unicode.Mn) {
				break
			}
			line = line[n:]
		}
		for _, own := range termsafe.OwnStarts {
			if strings.HasPrefix(line, own) {
				return "a line starts like rlm's: " + own
			}
		}
		if r, _ := utf8.DecodeRuneInString(line); r != utf8.RuneError && strings.ContainsRune(lookAlikes, r) {
			return "a line starts with a look-alike of the mark"
		}
	}
	return ""
}

func FuzzString(f *testing.F) {
	for _, tc := range hostile {
		f.Add(tc.in, uint8(3))
	}
	for _, tc := range messages {
		f.Add(strings.Join(tc.writes, ""), uint8(len(tc.writes[0])))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		got := termsafe.String(s)
		if why := inert(got); why != "" {
			t.Fatalf("String(%q) = %q: %s", s, got, why)
		}
		if m := termsafe.Message(s); inert(m) != "" {
			t.Fatalf("Message(%q) = %q: %s", s, m, inert(m))
		}
		var buf bytes.Buffer
		w := termsafe.NewWriter(&buf)
		c := min(int(cut), len(s))
		w.Write([]byte(s[:c]))
		w.Write([]byte(s[c:]))
		w.Flush()
		if buf.String() != got {
			t.Fatalf("Writer cut at %d wrote %q, String gives %q", c, buf.String(), got)
		}
	})
}

// messages are rlm's own messages on stderr, each one Write, that quote a cell or a model: the
// first line of a Write is rlm's (left as it is), every later line is indented, and escaped.
var messages = []struct {
	name   string
	writes []string
	want   string
}{
	{"one line each", []string{"[agent:rlm] iteration 1: 1 cell\n", "rlm: code: x\n"}, "[agent:rlm] iteration 1: 1 cell\nrlm: code: x\n"},
	{"verbose cell", []string{"[agent:rlm] cell 1.1:\nprint(1)\n--- output ---\n1\n", "[agent:rlm] next\n"},
		"[agent:rlm] cell 1.1:\n  | print(1)\n  | --- output ---\n  | 1\n[agent:rlm] next\n"},
	{"forged progress line", []string{"rlm: code: oops\n[agent:rlm] finished: ANSWERED\n"}, "rlm: code: oops\n  | " + `\x5bagent:rlm] finished: ANSWERED` + "\n"},
	{"look-alike and invisible", []string{"rlm: x\n\u226b FINAL: 1\u200b\n"}, "rlm: x\n  | " + `\u226b FINAL: 1\u200b` + "\n"},
	{"empty lines, no end", []string{"rlm: a\n\n\nb"}, "rlm: a\n  | \n  | \n  | b"},
	{"a line begun in one Write, ended in the next", []string{"rlm: a\nrl", "m: b\n"}, "rlm: a\n  | " + `\x72lm: b` + "\n"},
}

func TestMessageWriter(t *testing.T) {
	for _, tc := range messages {
		var buf bytes.Buffer
		w := termsafe.NewMessageWriter(&buf)
		for _, p := range tc.writes {
			w.Write([]byte(p))
		}
		w.Flush()
		if got := buf.String(); got != tc.want {
			t.Errorf("%s: wrote %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMessage: Message escapes the first line too (the text goes after rlm's own mark).
func TestMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"error (code): boom\nrlm: files written in this session are in /tmp/x", "error (code): boom\n  | " + `\x72lm: files written in this session are in /tmp/x`},
		{"\u00bb FINAL: 1\n2", `\u00bb FINAL: 1` + "\n  | 2"},
		{"FINAL: 7", "FINAL: 7"},
	} {
		if got := termsafe.Message(tc.in); got != tc.want {
			t.Errorf("Message(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestBlanksBeforeOwnStart: a line that starts like rlm's after any Unicode space (Zs) is
// escaped as after ASCII spaces.
func TestBlanksBeforeOwnStart(t *testing.T) {
	for _, rng := range unicode.Zs.R16 {
		for r := rune(rng.Lo); r <= rune(rng.Hi); r += rune(rng.Stride) {
			in := string(r) + "rlm: x"
			want := string(r) + `\x72lm: x`
			if got := termsafe.String(in); got != want {
				t.Errorf("String(%q) = %q, want %q", in, got, want)
			}
		}
	}
}
