package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestConvertPDF runs the scripts of testdata/convert: `rlm run --ctx doc.pdf` (answered
// through --replay) and `rlm repl --ctx doc.pdf` (cells piped in) over a PDF the test writes
// itself, converted by pdftotext (Debian's poppler-utils, which .ci/run installs) as the
// README's "Your own tools" shows. Under CI=true a missing
// pdftotext fails the test; elsewhere it is skipped.
func TestConvertPDF(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no pdftotext: .ci/run installs the Debian package poppler-utils")
		}
		t.Skip("no pdftotext (install the Debian package poppler-utils): the [convert] example is not run")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/convert",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", filepath.Join(env.WorkDir, ".home"))
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": exits, "genpdf": genPDF},
	})
}

// genpdf FILE LINE... writes a one-page PDF that shows each LINE in Helvetica: a minimal PDF
// 1.4 with its cross-reference table, the text in an uncompressed content stream.
func genPDF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: genpdf FILE LINE...")
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), minimalPDF(args[1:]), 0o644); err != nil {
		ts.Fatalf("genpdf: %v", err)
	}
}

// minimalPDF is a one-page PDF showing lines, one below the other.
func minimalPDF(lines []string) []byte {
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	var stream strings.Builder
	stream.WriteString("BT /F1 12 Tf 14 TL 72 720 Td")
	for _, l := range lines {
		fmt.Fprintf(&stream, " (%s) Tj T*", esc.Replace(l))
	}
	stream.WriteString(" ET")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", stream.Len(), stream.String()),
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return []byte(b.String())
}
