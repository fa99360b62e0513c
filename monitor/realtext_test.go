package monitor

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// realFiles lists hand-written Go sources and documentation of the Go
// distribution (testdata, vendor and generated files skipped), sorted.
func realFiles(t *testing.T) []string {
	t.Helper()
	root := runtime.GOROOT()
	var out []string
	for _, dir := range []string{"src", "doc"} {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
				return fs.SkipDir
			}
			if ext := filepath.Ext(p); !d.IsDir() && (ext == ".go" || ext == ".md" || ext == ".html") {
				out = append(out, p)
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Skip("no Go distribution sources found")
	}
	sort.Strings(out)
	return out
}

// TestRealTextFalseAlarms feeds real text, pretokenized, to the text-only
// detectors (there are no logprobs for real text here): every 8th Go source
// file of the distribution and all its documentation, the first 1000 tokens
// of each. Documentation must never abort. Real Go code does contain exact
// repetition (tables of 0x00, duplicated lines, the same test case twice),
// so a small share of files aborts as a loop; the bound guards against
// regressions and -eval.print lists the cases.
func TestRealTextFalseAlarms(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	files := realFiles(t)
	runs := map[string]int{}
	aborts := map[string]int{}
	for i, p := range files {
		kind := "doc"
		if strings.HasSuffix(p, ".go") {
			if kind = "code"; strings.HasSuffix(p, "_test.go") {
				kind = "test"
			}
			if i%8 != 0 {
				continue
			}
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 2000 || bytes.Contains(b, []byte("DO NOT EDIT")) {
			continue
		}
		toks := pretokenize(string(b))
		toks = toks[:min(len(toks), 1000)]
		runs[kind]++
		m := New(Config{}, 0)
		for j, s := range toks {
			if v := m.Observe(Token{Text: s}); v.Abort {
				aborts[kind]++
				if *evalPrint {
					t.Logf("%s at token %d: %s: %s\n\t%q", strings.TrimPrefix(p, runtime.GOROOT()+"/"), j,
						v.Reason, v.Detail, strings.Join(toks[max(0, j-20):j+1], ""))
				}
				break
			}
		}
	}
	if *evalPrint {
		t.Logf("real text, text-only mode: aborted/files: code %d/%d, tests %d/%d, docs %d/%d",
			aborts["code"], runs["code"], aborts["test"], runs["test"], aborts["doc"], runs["doc"])
	}
	if aborts["doc"] > 0 {
		t.Errorf("%d of %d documentation files aborted", aborts["doc"], runs["doc"])
	}
	// Measured with Go 1.26: code 3/253, tests 9/138, all exact repetition.
	for kind, bound := range map[string]float64{"code": 0.03, "test": 0.10} {
		if runs[kind] < 20 {
			t.Fatalf("only %d %s files found", runs[kind], kind)
		}
		if float64(aborts[kind]) > bound*float64(runs[kind]) {
			t.Errorf("%s: %d of %d files aborted, above %.0f%%", kind, aborts[kind], runs[kind], 100*bound)
		}
	}
}
