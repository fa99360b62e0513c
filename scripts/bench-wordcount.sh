#!/usr/bin/env bash
# Word counts over the same 5 MB text in the Go engine (yaegi cell), the JS engine (goja cell),
# native Go and python3 in-process, in one run. Every contender splits the text into lines,
# splits each line on whitespace, lower-cases each word and counts it into a map/dict; only
# the counting is timed (the text is already in memory), median of RUNS runs each. go-tally and
# js-tally are the same count as a model writes it with the API's tally: one cell,
# tally(context, `(?i)\S+`), over the text as the session's context (mapped once the session
# opens), timed per Exec with the round trip to the worker. The top-10 counts of all must
# agree. Prints: engine, median, ratio vs python3, ratio vs native Go.
#
#   scripts/bench-wordcount.sh                  # text in /tmp/rlm-wordcount-5mb.txt, 5 runs
#   RUNS=9 WORDFILE=/tmp/x.txt scripts/bench-wordcount.sh
#
# The text is wordText() from engine/golang/bench_test.go (seed 1), written by the Go test if
# missing. The Go tests behind this are skipped unless RLM_WORDCOUNT_FILE is set.
# The same word count is the map-count idiom of `go run ./scripts/idiombench`, which times many
# more idioms, at two sizes, through rlm sessions.
set -euo pipefail
cd "$(dirname "$0")/.."
export RLM_WORDCOUNT_FILE=${WORDFILE:-/tmp/rlm-wordcount-5mb.txt}
export RLM_WORDCOUNT_RUNS=${RUNS:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "cores: $(nproc), load: $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3), $(python3 --version)"
# Go first: it writes the text file if it is missing.
go test -count=1 -run '^TestWordCountFile$' -v -timeout 10m ./engine/golang/ | grep -E '^(RESULT|TOP10) ' >>"$out"
go test -count=1 -run '^TestWordCountFile$' -v -timeout 10m ./engine/js/ | grep -E '^(RESULT|TOP10) ' >>"$out"
go test -count=1 -run '^TestTallyWordCountFile$' -v -timeout 10m ./repl/ | grep -E '^(RESULT|TOP10) ' >>"$out"
python3 - "$RLM_WORDCOUNT_FILE" "$RLM_WORDCOUNT_RUNS" >>"$out" <<'PY'
import statistics, sys, time

def count(text):
    counts = {}
    for line in text.split("\n"):
        for w in line.split():
            k = w.lower()
            counts[k] = counts.get(k, 0) + 1
    return counts

with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
times = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    counts = count(text)
    times.append(time.perf_counter() - t0)
top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
print("RESULT python3 %d %s" % (statistics.median_low(times) * 1e9, sys.argv[2]))
print("TOP10 python3 " + " ".join("%s=%d" % kv for kv in top))
PY
if [ "$(awk '$1 == "TOP10" { $2 = ""; print }' "$out" | sort -u | wc -l)" -ne 1 ]; then
	echo "top-10 counts differ:" >&2
	grep '^TOP10' "$out" >&2
	exit 1
fi
echo "text: $RLM_WORDCOUNT_FILE ($(wc -c <"$RLM_WORDCOUNT_FILE") bytes), top-10 identical in all: $(grep -m1 '^TOP10' "$out" | cut -d' ' -f3-5) ..."
awk '$1 == "RESULT" { name[++n] = $2; ns[$2] = $3; runs = $4 }
END {
	printf "%-10s %12s %12s %14s   (median of %d)\n", "engine", "median ms", "vs python3", "vs native Go", runs
	for (i = 1; i <= n; i++)
		printf "%-10s %12.1f %11.2fx %13.2fx\n", name[i], ns[name[i]] / 1e6, ns[name[i]] / ns["python3"], ns[name[i]] / ns["native-go"]
}' "$out"
