#!/usr/bin/env bash
# Redraws docs/trace-view.png, the README's picture of `rlm trace view`: the demo run (replayed,
# no network) in a scratch RLM_HOME, its trace as HTML, and a headless Chromium screenshot.
#   scripts/trace-view-png.sh            (needs chromium, as the trace viewer's browser tests do)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rlm" ./cmd/rlm
export RLM_HOME="$tmp/home"; mkdir -p "$RLM_HOME"
"$tmp/rlm" run --replay examples/demo/model.json --ctx examples/demo/app.log \
  "Which user had the most payment errors, and what went wrong?" 2>"$tmp/err" >/dev/null
id="$(grep -o 'task [0-9a-f-]*' "$tmp/err" | head -1 | cut -d' ' -f2)"
"$tmp/rlm" trace view "$id" -o "$tmp/trace.html" >/dev/null
browser="$(command -v chromium || command -v chromium-browser)"
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1500 \
  --screenshot="$tmp/trace-view.png" "file://$tmp/trace.html" 2>/dev/null
cp "$tmp/trace-view.png" docs/trace-view.png
echo "docs/trace-view.png redrawn from task $id"
