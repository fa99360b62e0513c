package rlm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-sandbox/rlm"
)

// TestSessionConvert: a session over a file that is not text reads the text its converter prints
// (SessionOptions.Convert), Conversions names the file and the program, and Close removes a text
// made for the session only (the file changed too recently to be kept). Without a converter the
// file is refused, and the message names [convert]; a converter without {path} is refused too.
func TestSessionConvert(t *testing.T) {
	ctx := context.Background()
	in := filepath.Join(t.TempDir(), "invoice.dat")
	if err := os.WriteFile(in, []byte("\x00\x01\x02 a binary header\nTotal due: 4,210 EUR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	_, err := rlm.OpenSession(ctx, rlm.SessionOptions{Files: []string{in}, Home: home})
	var oe *rlm.OptionError
	if !errors.As(err, &oe) || oe.Option != "Files" || !strings.Contains(err.Error(), "[convert]") {
		t.Errorf("without a converter: %v; want an OptionError for Files that names [convert]", err)
	}
	bad := map[string]rlm.Converter{"dat": {Exec: []string{"tail", "-n", "1"}}}
	if _, err := rlm.OpenSession(ctx, rlm.SessionOptions{Files: []string{in}, Home: home, Convert: bad}); !errors.As(err, &oe) || oe.Option != "Convert" {
		t.Errorf("a converter without {path}: %v; want an OptionError for Convert", err)
	}
	conv := map[string]rlm.Converter{"dat": {Exec: []string{"tail", "-n", "1", "{path}"}}}
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: "js", Files: []string{in}, Home: home, Convert: conv})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := s.Exec(ctx, `print(search(context, "Total due: [0-9,]+ EUR")[0].text); print(search(context, "binary").length)`); r.Error != nil || r.Output != "Total due: 4,210 EUR\n0\n" {
		t.Errorf("the cell over the converted text: output %q, error %+v", r.Output, r.Error)
	}
	c := s.Conversions()
	if len(c) != 1 || c[0].Original != in || c[0].Converter != "tail" || c[0].Cached || c[0].Kept || c[0].Bytes != int64(len("Total due: 4,210 EUR\n")) {
		t.Fatalf("Conversions: %+v", c)
	}
	if msg := c[0].String(); !strings.HasPrefix(msg, "invoice.dat: converted to text by tail in ") {
		t.Errorf("Conversion.String: %q", msg)
	}
	s.Close()
	if _, err := os.Stat(c[0].Text); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close the session's own text %s: %v; want it removed", c[0].Text, err)
	}
}
