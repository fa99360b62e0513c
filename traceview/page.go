package traceview

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

//go:embed assets/view.js
var script string

//go:embed assets/view.css
var style string

// csp allows the page's own script and style, by hash, and nothing else: no network, no other
// script, no plugin, no form, no base.
func csp() string {
	return fmt.Sprintf("default-src 'none'; script-src '%s'; style-src '%s'; img-src data:; base-uri 'none'; form-action 'none'",
		hash(script), hash(style))
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// write renders the page. Every byte that comes from the trace is either HTML-escaped text
// (the title) or JSON inside a <script type="application/json"> block, encoded with <, >, &,
// U+2028 and U+2029 escaped, so no trace content can end the block or start markup.
func (m *model) write(out io.Writer) error {
	w := bufio.NewWriterSize(out, 1<<16)
	title := "rlm trace"
	if q := strings.TrimSpace(m.index.Question); q != "" {
		title += " · " + clip(strings.Join(strings.Fields(q), " "), 120)
	}
	fmt.Fprintf(w, `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="%s">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>%s</title>
<style>%s</style>
</head>
<body>
<noscript><p class="noscript">This trace viewer needs JavaScript; the trace itself is the JSONL file it was made from.</p></noscript>
<div id="app" aria-live="polite"></div>
`, csp(), html.EscapeString(title), style)
	if err := writeJSON(w, "rlm-index", m.index); err != nil {
		return err
	}
	// The script comes before the details: it draws the first screen while they are parsed.
	fmt.Fprintf(w, "<script>%s</script>\n", script)
	for i, d := range m.details {
		if err := writeJSON(w, fmt.Sprintf("rlm-it-%d", i+1), d); err != nil {
			return err
		}
	}
	io.WriteString(w, "</body>\n</html>\n")
	return w.Flush()
}

// writeJSON writes v as a non-executable data block. encoding/json escapes <, > and & as
// \u003c, \u003e, \u0026, and U+2028, U+2029 as \u2028, \u2029, so the text cannot hold
// "</script" or "<!--"; invalid UTF-8 becomes U+FFFD.
func writeJSON(w io.Writer, id string, v any) error {
	if _, err := fmt.Fprintf(w, `<script type="application/json" id="%s">`, id); err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("traceview: encode %s: %w", id, err)
	}
	_, err := io.WriteString(w, "</script>\n")
	return err
}
