#!/usr/bin/env bash
# batch-rss.sh: the memory of `rlm batch` over a batch of N script tasks (no model needed)
# through the embedded JetStream server, sampled from /proc every 2 s with the number of results
# written so far. Linux only; not part of `go test` (10,000 tasks take 15 minutes on 2 cores).
#
#   scripts/batch-rss.sh [N] [RLM_BINARY]     # default: 10000 tasks, a binary built from here
#
# It prints "seconds,results,rss_kb" lines as it goes, then the RSS nearest to 0, 1/4, 1/2, 3/4
# and all of the tasks. The work directory (tasks, results, RLM_HOME) is left in $TMPDIR.
set -euo pipefail
n=${1:-10000}
bin=${2:-}
dir=$(mktemp -d "${TMPDIR:-/tmp}/batch-rss.XXXXXX")
if [ -z "$bin" ]; then
	bin=$dir/rlm
	go build -o "$bin" ./cmd/rlm
fi
cd "$dir"
printf 'alpha\nbeta\ngamma\n' >in.txt
echo 'FINAL(`${text(context).trim().split("\n").length} lines`)' >count.js
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":\"t%05d\",\"script\":\"count.js\",\"files\":[\"in.txt\"]}\n", i }' >tasks.jsonl
RLM_HOME=$dir/home "$bin" batch tasks.jsonl --parallel 2 --quiet 2>batch.err &
pid=$!
start=$(date +%s)
echo "seconds,results,rss_kb" | tee rss.csv
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
	done_=0
	[ -f tasks.results.jsonl ] && done_=$(wc -l <tasks.results.jsonl)
	[ -n "$rss" ] && echo "$(($(date +%s) - start)),$done_,$rss" | tee -a rss.csv
	sleep 2
done
wait "$pid" || echo "rlm batch exited $?" >&2
cat batch.err >&2
for q in 0 1 2 3 4; do
	awk -F, -v t=$((n * q / 4)) 'NR > 1 { d = $2 - t; if (d < 0) d = -d; if (best == "" || d < best) { best = d; line = $0 } } END { print "near " t " results: " line }' rss.csv
done
echo "work directory: $dir" >&2
