// Package traceview renders a run's trace (package trace's JSONL, or the reference RLM
// logger's) as one self-contained HTML page, for `rlm trace view`.
//
// The page shows the question, the answer or the failure, token usage (and cost, where the
// trace records any) over the iterations, a timeline of the iterations, and each iteration in
// full: its prompt (the messages new since the previous iteration, the rest on demand), the
// model's response, and every code block with its code highlighted for the session's
// language (Go, JavaScript, or Python for reference traces), its output, errors, variables,
// sub-calls (prompt and answer) and timings.
//
// # A trace is hostile data
//
// Everything in a trace may have been written by a model or by the code it ran. The page:
//   - loads nothing: a Content-Security-Policy meta tag allows only the page's own script and
//     style, by their SHA-256 hashes (default-src 'none'; no connect, frame, font or image
//     source other than data:, base-uri and form-action 'none'), and the page has no link;
//   - carries the trace only as JSON inside <script type="application/json"> blocks, which a
//     browser never runs, encoded with <, >, &, U+2028 and U+2029 escaped, so no content can
//     close the block or open markup; the title is HTML-escaped;
//   - puts trace content in the document only as text (textContent), never as markup, and
//     never as a URL;
//   - never uses a trace string as the key of a plain object: the script's tables have no
//     prototype, so a language, role or fence tag named "constructor" or "__proto__" finds
//     nothing of Object.prototype.
//
// # Large traces
//
// The index (metadata, outcome, one small row per iteration) is one JSON block read at once;
// each iteration's detail is its own block, parsed when the iteration is shown. The script
// sits before the detail blocks, so the first screen is drawn while they are still being
// parsed. Long outputs, prompts and code are shown folded, with a button for the rest. A
// prompt repeats the conversation so far, so each iteration keeps only the messages that
// differ from the previous iteration's prompt; the page rebuilds the rest on demand.
//
// The page reads location.hash: "#i7" opens iteration 7, "#all" renders every iteration.
package traceview
