package termsafe_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
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

// inert reports the first terminal-active thing in s, or "".
func inert(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i, r := range s {
		switch {
		case r == '\r' && strings.HasPrefix(s[i:], "\r\n"):
		case r < 0x20 && r != '\t' && r != '\n', r >= 0x7f && r <= 0x9f:
			return "control character"
		case r == 0x202e || r == 0x2066 || r == termsafe.Mark:
			return "bidi control or mark"
		}
	}
	return ""
}

func FuzzString(f *testing.F) {
	for _, tc := range hostile {
		f.Add(tc.in, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		got := termsafe.String(s)
		if why := inert(got); why != "" {
			t.Fatalf("String(%q) = %q: %s", s, got, why)
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
