package standin

import (
	stdctx "context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlm-sandbox/rlm"
)

func TestMain(m *testing.M) {
	rlm.MaybeServeWorker() // the test binary is the sessions' worker
	os.Exit(m.Run())
}

// probeInput has non-ASCII text (two-byte, three-byte and four-byte characters, which JS holds
// as two UTF-16 units), a CRLF line, a line long enough to be cut around a match, and no final
// newline.
var probeInput = "héllo wörld ERROR 1 naïve\n" +
	"“quoted” ERROR café 😀 ERROR x😀y\n" +
	"日本語 ERROR テスト\r\n" +
	strings.Repeat("a", 450) + "ü ERROR zz " + strings.Repeat("b", 600) + "\n" +
	"last 😀😀 line ERROR"

// The probe cells: the same calls in each language and in Go natively (probe below); each
// records what the calls return as its answer.
const (
	probeGo = `r := map[string]any{}
n := length(context)
r["length"] = n
r["peek"] = []string{peek(context, 0, 7), peek(context, 3, 30), peek(context, n-4, 10), peek(context, n+5, 3)}
r["search"] = search(context, ` + "`ERROR \\S+`" + `)
r["page"] = search(context, "ERROR", 2)
r["count"] = []int{count(context, "ERROR"), count(context, ` + "`(?m)^\\S+ `" + `), count(context, "x*"), count(context, "b+")}
r["long"] = search(context, "b+")
r["empty"] = search(context, "é*")[:6]
r["chunk"] = chunk(context, 17, 5)[:4]
r["text"] = len(text(ctx0))
FINAL(r)
`
	probeJS = `const n = length(context);
FINAL({
  length: n,
  peek: [peek(context, 0, 7), peek(context, 3, 30), peek(context, n - 4, 10), peek(context, n + 5, 3)],
  search: search(context, /ERROR \S+/),
  page: search(context, "ERROR", 2),
  count: [count(context, "ERROR"), count(context, "(?m)^\\S+ "), count(context, /x*/), count(context, "b+")],
  long: search(context, /b+/),
  empty: search(context, "é*").slice(0, 6),
  chunk: chunk(context, 17, 5).slice(0, 4),
  text: text(ctx0).length,
});
`
)

// probe is probeGo, compiled here against the stand-in.
func probe() {
	r := map[string]any{}
	n := length(context)
	r["length"] = n
	r["peek"] = []string{peek(context, 0, 7), peek(context, 3, 30), peek(context, n-4, 10), peek(context, n+5, 3)}
	r["search"] = search(context, `ERROR \S+`)
	r["page"] = search(context, "ERROR", 2)
	r["count"] = []int{count(context, "ERROR"), count(context, `(?m)^\S+ `), count(context, "x*"), count(context, "b+")}
	r["long"] = search(context, "b+")
	r["empty"] = search(context, "é*")[:6]
	r["chunk"] = chunk(context, 17, 5)[:4]
	r["text"] = len(text(ctx0))
	FINAL(r)
}

// TestStandinAgrees checks that the stand-ins (Go in process, JS under node) return what rlm's
// API returns, field by field, on a small non-ASCII input: offsets in characters, lines, cut
// texts, pages, counts with empty matches, chunks. taskbench's native times are of the same
// computation only if they do.
func TestStandinAgrees(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "probe.txt")
	if err := os.WriteFile(input, []byte(probeInput), 0o644); err != nil {
		t.Fatal(err)
	}

	_inputs, _docs, _final = []string{input}, map[string]*_doc{}, nil
	probe()
	if _final == nil {
		t.Fatal("the Go probe recorded no answer")
	}
	if want := rlmFinal(t, dir, input, "go", probeGo); *_final != want {
		t.Errorf("Go stand-in and rlm disagree:\nstand-in: %s\nrlm:      %s", *_final, want)
	}

	js := filepath.Join(dir, "probe.js")
	src, err := os.ReadFile("standin.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(js, append(src, "\n;\n"+probeJS...), 0o644); err != nil {
		t.Fatal(err)
	}
	answer := filepath.Join(dir, "answer")
	if _, err := exec.LookPath("node"); err != nil {
		// The Go half above has run; the JS half needs node, as the MCP client test does.
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but no node on PATH: .ci/run installs the Debian package nodejs")
		}
		t.Skip("no node on PATH: the JS stand-in is not checked (go run ./scripts/taskbench needs node too)")
	}
	cmd := exec.Command("node", js, input)
	cmd.Env = append(os.Environ(), "RLMBENCH_FINAL="+answer)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node (taskbench needs it): %v\n%s", err, out)
	}
	got, err := os.ReadFile(answer)
	if err != nil {
		t.Fatal(err)
	}
	if want := rlmFinal(t, dir, input, "js", probeJS); string(got) != want {
		t.Errorf("JS stand-in and rlm disagree:\nstand-in: %s\nrlm:      %s", got, want)
	}
}

// rlmFinal runs a cell in an rlm session over input and returns its answer.
func rlmFinal(t *testing.T, dir, input, lang, cell string) string {
	t.Helper()
	ctx, cancel := stdctx.WithTimeout(stdctx.Background(), time.Minute)
	defer cancel()
	s, err := rlm.OpenSession(ctx, rlm.SessionOptions{Lang: lang, Files: []string{input}, Home: filepath.Join(dir, "home-"+lang), AllowDegraded: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := s.Exec(ctx, cell)
	if res.Error != nil || res.Final == nil {
		t.Fatalf("rlm %s probe: %+v; output: %s", lang, res.Error, res.Output)
	}
	return *res.Final
}
