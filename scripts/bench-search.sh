#!/usr/bin/env bash
# Measures the context store (tools/) on a 1 GB log-like file and compares
# Count with `rg -c` on the same file, alternating the two so that both see
# the same machine load. Prints: index build speed, peek latency, a table of
# Count vs rg -c times with ratios, and RssAnon.
#
#   scripts/bench-search.sh                 # uses /tmp/rlm-bench-1g.log
#   BIGFILE=/tmp/x.log BIGSIZE=2147483648 scripts/bench-search.sh
#
# The file is generated (by the Go test helper) if it is missing. Needs
# ripgrep: apt-get update && apt-get install -y ripgrep
set -euo pipefail
cd "$(dirname "$0")/.."
BIGFILE=${BIGFILE:-/tmp/rlm-bench-1g.log}
BIGSIZE=${BIGSIZE:-1073741824}
case "$BIGFILE" in
"$PWD"/*) echo "put the big file outside the repository (e.g. /tmp)" >&2; exit 2 ;;
esac
if ! command -v rg >/dev/null; then
	echo "ripgrep not found: apt-get update && apt-get install -y ripgrep" >&2
	exit 2
fi
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg), $(rg --version 2>/dev/null | sed -n 1p)"
go test -count=1 -run '^TestBigReport$' -v -timeout 30m ./tools/ \
	-args -bigfile="$BIGFILE" -bigsize="$BIGSIZE" |
	grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS$' -e '^ok '
# Plain Go benchmarks over the same file, if wanted:
#   go test -run '^$' -bench '1G$' -benchtime 3x ./tools/ -args -bigfile="$BIGFILE"
