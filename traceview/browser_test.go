package traceview

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium: $RLM_CHROMIUM, else chromium, chromium-browser,
// google-chrome on PATH. Without one the test skips, except under CI=true, where .ci/run
// installs the Debian package chromium and a skip would hide the browser tests.
func chromium(t *testing.T) string {
	t.Helper()
	names := []string{os.Getenv("RLM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, n := range names {
		if n == "" {
			continue
		}
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no Chromium found (chromium, chromium-browser, google-chrome or $RLM_CHROMIUM): .ci/run installs the Debian package chromium")
	}
	t.Skip("no Chromium found (install the Debian package chromium, or set RLM_CHROMIUM): the page is not checked in a browser")
	return ""
}

// browse runs headless Chromium on the page with extra arguments (--dump-dom, --screenshot=…)
// in a fresh profile, and returns its stdout and how long it took.
func browse(t *testing.T, bin, page, hash string, args ...string) (string, time.Duration) {
	t.Helper()
	out, _, took := chrome(t, bin, page, hash, args...)
	return out, took
}

// consoleLine is a message the page wrote to the console as Chromium logs it on stderr, e.g.
// `[…:INFO:CONSOLE:376] "Uncaught TypeError: …", source: file:///…/page.html (376)`.
var consoleLine = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE(?:\(\d+\))?:?\d*\] .*$`)

// browseConsole dumps the page's DOM and returns it with every console message of the page:
// an uncaught error, a refused resource (the CSP) or anything else the page logged. The viewer
// logs nothing, so any message is a fault.
func browseConsole(t *testing.T, bin, page, hash string) (string, []string) {
	t.Helper()
	out, errs, _ := chrome(t, bin, page, hash, "--dump-dom", "--enable-logging=stderr", "--v=0")
	return out, consoleLine.FindAllString(errs, -1)
}

func chrome(t *testing.T, bin, page, hash string, args ...string) (string, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+abs+hash)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(errb.String(), 2000))
	}
	return out.String(), errb.String(), time.Since(start)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// screenshot takes a PNG of the page and checks that it is a picture, not a blank page.
func screenshot(t *testing.T, bin, page, hash, out string, w, h int) time.Duration {
	t.Helper()
	_, took := browse(t, bin, page, hash, fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("screenshot is %v, want %dx%d", b, w, h)
	}
	colors := map[[4]uint32]bool{}
	for y := 0; y < img.Bounds().Dy(); y += 7 {
		for x := 0; x < img.Bounds().Dx(); x += 7 {
			r, g, b, a := img.At(x, y).RGBA()
			colors[[4]uint32{r, g, b, a}] = true
		}
	}
	if len(colors) < 20 {
		t.Errorf("the screenshot has %d colours: a blank page", len(colors))
	}
	return took
}

func TestBrowserFixture(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "fixture.html")
	writePage(t, filepath.Join("testdata", "fixture.jsonl"), page)
	dom, _ := browse(t, bin, page, "#all", "--dump-dom")
	for _, want := range []string{
		`data-all-rendered="3"`,
		`<h1 class="question">Which service failed first after the deploy, and why?</h1>`,
		`id="iteration-1"`, `id="iteration-2"`, `id="iteration-3"`,
		"billing, first, at 10:00:07: the ledger was restarting",
		`<span class="tok-b">search</span>(<span class="tok-b">context</span>, <span class="tok-s">"DEPLOY|ERROR"</span>)`,
		"1290 10:00:07 ERROR svc=billing timeout talking to ledger",
		"1:3: undefined: undefinedThing; declare it before use",
		"The ledger service was restarting during the deploy.",
		"HTTP 500 from the model endpoint",
		`<td class="name">hits</td><td class="type">[]Match</td>`,
		"forced final answer: the iteration cap was reached",
		"Tokens, cumulative",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if n := strings.Count(dom, `<button class="row`); n != 3 {
		t.Errorf("%d timeline rows, want 3", n)
	}
	screenshot(t, bin, page, "", filepath.Join(dir, "fixture.png"), 1400, 1000)
}

var (
	pwned = regexp.MustCompile(`<[a-zA-Z][^>]*\sdata-pwned=[^>]*>`)
	title = regexp.MustCompile(`<title>([^<]*)</title>`)
)

// TestBrowserHostile renders a trace full of script, markup and line separators: nothing in
// it may run. A control page with the same payloads as markup shows that they do run there, so
// the check can fail.
func TestBrowserHostile(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	control := filepath.Join(dir, "control.html")
	if err := os.WriteFile(control, []byte("<!doctype html><html><head><title>control</title></head><body>"+hostile+"</body></html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if dom, _ := browse(t, bin, control, "", "--dump-dom"); pwned.FindString(dom) == "" {
		t.Fatalf("the payloads did not run even as raw markup; the check below would prove nothing:\n%s", tail(dom, 1500))
	}
	page := filepath.Join(dir, "hostile.html")
	writePage(t, hostileTrace(t, dir), page)
	for _, hash := range []string{"#all", ""} {
		dom, console := browseConsole(t, bin, page, hash)
		if len(console) > 0 {
			t.Errorf("page %s logged %d messages, want none: %s", hash, len(console), strings.Join(console, "\n"))
		}
		// Trace text is escaped in the dump (&lt;…), so data-pwned= inside a tag is a payload
		// that ran; a changed title is one that ran too.
		if m := pwned.FindString(dom); m != "" {
			t.Errorf("page %s: a payload ran: %s", hash, m)
		}
		if m := title.FindStringSubmatch(dom); m == nil || !strings.HasPrefix(m[1], "rlm trace · &lt;/title&gt;&lt;script&gt;document.title=") {
			t.Errorf("page %s: the title changed: %v", hash, m)
		}
		if !strings.Contains(dom, "data-first-screen-ms") {
			t.Errorf("page %s: the viewer's script did not run", hash)
		}
		if hash == "#all" {
			for _, want := range []string{`data-all-rendered="3"`, "iteration 3\n&lt;script&gt;document.documentElement.setAttribute",
				"&lt;/textarea&gt;&lt;img src=x onerror=", "\u2028\u2029\"});document"} {
				if !strings.Contains(dom, want) {
					t.Errorf("the payloads are not shown as text: no %q", want)
				}
			}
		}
	}
	screenshot(t, bin, page, "#all", filepath.Join(dir, "hostile.png"), 1200, 900)
}

// TestBrowserLarge renders generated traces of 500 iterations: one of 50 MB whose prompts
// repeat a window of the conversation, as real runs do, and one of 10 MB made of distinct
// outputs (RLM_TRACEVIEW_MB sets both sizes). It reports the sizes and the time to the first screen as
// the page measures it (performance.now() when the header, usage charts and timeline are drawn,
// from the start of navigation), and the time until the selected iteration is drawn.
func TestBrowserLarge(t *testing.T) {
	bin := chromium(t)
	// The distinct-output page is as large as its trace, and dumping its DOM (the only way
	// to read the page's figures here) takes most of the time: 10 MB unless a size is asked.
	mb, distinct := 50, 10
	if v, err := strconv.Atoi(os.Getenv("RLM_TRACEVIEW_MB")); err == nil && v > 0 {
		mb, distinct = v, v
	}
	for _, tc := range []struct {
		name       string
		window, mb int
	}{{"window", 20, mb}, {"distinct", 0, distinct}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			large(t, bin, largeTrace(t, dir, 500, tc.mb<<20, tc.window), dir)
		})
	}
}

func large(t *testing.T, bin, tr, dir string) {
	st, _ := os.Stat(tr)
	page := filepath.Join(dir, "large.html")
	start := time.Now()
	writePage(t, tr, page)
	renderTook := time.Since(start)
	ps, _ := os.Stat(page)
	dom, took := browse(t, bin, page, "", "--dump-dom")
	first := attr(t, dom, "data-first-screen-ms")
	ready := attr(t, dom, "data-ready-ms")
	if n := strings.Count(dom, `<button class="row`); n != 500 {
		t.Errorf("%d timeline rows, want 500", n)
	}
	if !strings.Contains(dom, `id="iteration-1"`) {
		t.Error("iteration 1 is not shown")
	}
	shot := screenshot(t, bin, page, "#i500", filepath.Join(dir, "large.png"), 1400, 1000)
	t.Logf("trace %.1f MB, 500 iterations -> page %.1f MB in %s; Chromium: first screen at %.0f ms, iteration shown at %.0f ms (page's own clock); --dump-dom run %s, --screenshot of iteration 500 %s",
		float64(st.Size())/(1<<20), float64(ps.Size())/(1<<20), renderTook.Round(time.Millisecond), first, ready,
		took.Round(time.Millisecond), shot.Round(time.Millisecond))
	if first > 10000 {
		t.Errorf("first screen after %.0f ms; want it within 10 s even on a loaded machine", first)
	}
}

func attr(t *testing.T, dom, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(name + `="([0-9.]+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no %s in the rendered page", name)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}
