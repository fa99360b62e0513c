package traceview

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./traceview -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (rerun with -update if the change is intended)\n got:\n%s", path, got)
	}
}

func render(t *testing.T, path string) string {
	t.Helper()
	var b bytes.Buffer
	if err := RenderFile(&b, path); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var dataBlock = regexp.MustCompile(`<script type="application/json" id="([^"]+)">([^<]*)</script>`)

// blocks returns the page's JSON data blocks by id, decoded.
func blocks(t *testing.T, page string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, m := range dataBlock.FindAllStringSubmatch(page, -1) {
		var v any
		if err := json.Unmarshal([]byte(m[2]), &v); err != nil {
			t.Fatalf("block %s: %v", m[1], err)
		}
		out[m[1]] = v
	}
	return out
}

// TestGolden keeps the view model of the fixture (what the page's script reads) and the page's
// skeleton, the assets left out.
func TestGolden(t *testing.T) {
	page := render(t, filepath.Join("testdata", "fixture.jsonl"))
	model, err := json.MarshalIndent(blocks(t, page), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.model.json", append(model, '\n'))
	skeleton := strings.Replace(page, script, "/* view.js */", 1)
	skeleton = strings.Replace(skeleton, style, "/* view.css */", 1)
	skeleton = strings.NewReplacer(hash(script), "sha256-(view.js)", hash(style), "sha256-(view.css)").Replace(skeleton)
	skeleton = dataBlock.ReplaceAllString(skeleton, `<script type="application/json" id="$1">…</script>`)
	golden(t, "fixture.skeleton.html", []byte(skeleton))
}

func TestModel(t *testing.T) {
	b := blocks(t, render(t, filepath.Join("testdata", "fixture.jsonl")))
	ix := b["rlm-index"].(map[string]any)
	if ix["question"] != "Which service failed first after the deploy, and why?" {
		t.Errorf("question = %v", ix["question"])
	}
	if ix["final"] != "billing, first, at 10:00:07: the ledger was restarting" || ix["final_from"].(float64) != 0 {
		t.Errorf("final = %v from %v; want the outcome's answer", ix["final"], ix["final_from"])
	}
	rows := ix["iterations"].([]any)
	if len(rows) != 3 {
		t.Fatalf("%d iterations", len(rows))
	}
	r2 := rows[1].(map[string]any)
	if r2["calls"].(float64) != 2 || r2["call_errors"].(float64) != 1 || r2["errors"].(float64) != 1 || r2["spt"].(float64) != 300 {
		t.Errorf("row 2 = %v", r2)
	}
	if rows[2].(map[string]any)["forced"] != true {
		t.Errorf("the forced final iteration is not marked: %v", rows[2])
	}
	// Each prompt message is kept once: 2, then 2 new of 4, then 3 new of 7.
	for i, want := range []string{"2 [[0,2]]", "2 [[0,4]]", "3 [[0,7]]"} {
		d := b["rlm-it-"+string(rune('1'+i))].(map[string]any)
		ranges, _ := json.Marshal(d["prompt"])
		if got := fmt.Sprintf("%d %s", len(d["msgs"].([]any)), ranges); got != want {
			t.Errorf("iteration %d: new messages and prompt ids = %s, want %s", i+1, got, want)
		}
	}
	blk := b["rlm-it-2"].(map[string]any)["blocks"].([]any)[0].(map[string]any)
	if blk["err_kind"] != "code" || strings.Contains(blk["stderr"].(string), "undefinedThing") {
		t.Errorf("the error is shown once, as the error: err_kind %v, stderr %q", blk["err_kind"], blk["stderr"])
	}
	locals := b["rlm-it-1"].(map[string]any)["blocks"].([]any)[0].(map[string]any)["locals"].([]any)
	if len(locals) != 2 || locals[1].([]any)[1] != "[]Match" {
		t.Errorf("locals = %v", locals)
	}
}

// TestReferenceTrace renders a trace in the reference's own shape: tokens from usage_summary,
// the question from the first user message, the answer from a [variable, value] pair.
func TestReferenceTrace(t *testing.T) {
	b := blocks(t, render(t, filepath.Join("..", "trace", "testdata", "reference.jsonl")))
	ix := b["rlm-index"].(map[string]any)
	if ix["final"] != "15" || ix["question"] == "" || len(ix["iterations"].([]any)) != 2 {
		t.Errorf("index = %v", ix)
	}
	var sub float64
	for _, r := range ix["iterations"].([]any) {
		sub += r.(map[string]any)["spt"].(float64)
	}
	if sub == 0 {
		t.Error("sub-call tokens from usage_summary not read")
	}
}

// TestBadLines: a broken line in the middle is skipped with a warning, a cut last line too.
func TestBadLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "fixture.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	in := lines[0] + "{oops\n" + `[1,2]` + "\n" + lines[1] + lines[2][:100]
	var out bytes.Buffer
	if err := Render(&out, strings.NewReader(in), Options{Name: "cut.jsonl"}); err != nil {
		t.Fatal(err)
	}
	ix := blocks(t, out.String())["rlm-index"].(map[string]any)
	warnings := ix["warnings"].([]any)
	if len(warnings) != 3 || !strings.Contains(warnings[0].(string), "line 2") || !strings.Contains(warnings[2].(string), "cut short") {
		t.Errorf("warnings = %q", warnings)
	}
	if n := len(ix["iterations"].([]any)); n != 1 {
		t.Errorf("%d iterations, want 1", n)
	}
}

// TestInert checks the page's text for the properties the package documentation states, on a
// trace full of markup, script and line separators.
func TestInert(t *testing.T) {
	path := hostileTrace(t, t.TempDir())
	page := render(t, path)
	if n, want := strings.Count(strings.ToLower(page), "</script"), strings.Count(page, "<script"); n != want {
		t.Errorf("%d </script in the page for %d script elements: trace content closed one", n, want)
	}
	for _, bad := range []string{"<img", "<svg", "<textarea", "<iframe", "\u2028", "\u2029", "<!--"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %q outside escaped JSON", bad)
		}
	}
	if !strings.Contains(page, `<title>rlm trace · &lt;/title&gt;&lt;script&gt;`) {
		t.Errorf("the title is not escaped: %s", page[:min(len(page), 600)])
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if csp == nil || !strings.HasPrefix(csp[1], "default-src 'none'; script-src 'sha256-") ||
		!strings.Contains(csp[1], hash(script)) || !strings.Contains(csp[1], hash(style)) {
		t.Errorf("CSP = %v", csp)
	}
	if strings.Contains(script, "innerHTML") || strings.Contains(script, "eval(") || strings.Contains(script, "insertAdjacentHTML") {
		t.Error("view.js uses an HTML or code sink")
	}
}

// TestCost: rlm's cost records reach the view: each iteration's root and sub-call costs, each
// sub-call's, and the outcome's total as rlm states it (unknown never shown as $0).
func TestCost(t *testing.T) {
	b := blocks(t, render(t, filepath.Join("..", "trace", "testdata", "run.jsonl")))
	ix := b["rlm-index"].(map[string]any)
	if ix["has_cost"] != true {
		t.Fatal("has_cost is false for a trace that records costs")
	}
	if got := ix["outcome"].(map[string]any)["cost"]; got != "≥ $0.0031 (1 call of unknown cost)" {
		t.Errorf("outcome cost = %v", got)
	}
	row := ix["iterations"].([]any)[0].(map[string]any)
	if got := row["cost"].(float64); got < 0.00271-1e-12 || got > 0.00271+1e-12 {
		t.Errorf("iteration 1 cost = %v, want 0.0027 + 0.00001", got)
	}
	calls := b["rlm-it-1"].(map[string]any)["blocks"].([]any)[1].(map[string]any)["calls"].([]any)
	if c0, c1 := calls[0].(map[string]any)["cost"], calls[1].(map[string]any)["cost"]; c0 != 0.00001 || c1 != nil {
		t.Errorf("sub-call costs %v, %v; want 0.00001 and null (unknown)", c0, c1)
	}
}
