#!/usr/bin/env bash
# The resident memory (VmRSS) of rlm's worker process once it has answered the handshake and
# waits for its first cell, for the worker that BIN runs (rlm isolation names it):
#
#   scripts/worker-rss.sh bin/rlm go        # go or js; the median of REPS (default 5) sessions
#
# Each session is `rlm repl --lang LANG` with stdin held open; the worker is the child of the rlm
# process whose resident memory no longer moves. VmRSS counts the pages of the binary it has
# touched (RssFile, shared with every process of that binary through the page cache) and its own
# memory (RssAnon); both are printed. Linux only (it reads /proc).
set -euo pipefail
bin=${1:?usage: scripts/worker-rss.sh RLM_BINARY [go|js]}
lang=${2:-go}
reps=${REPS:-5}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }
anon() { awk '/^RssAnon:/ {print $2}' "/proc/$1/status" 2>/dev/null || true; }
children() { cat /proc/"$1"/task/*/children 2>/dev/null || true; }
"$bin" isolation | grep '^worker: ' || echo "worker: (this rlm does not say; before issue 18 it is always rlm __worker)"
all=() anons=()
for _ in $(seq "$reps"); do
	mkfifo "$home/in"
	RLM_HOME="$home" "$bin" repl --lang "$lang" <"$home/in" >/dev/null 2>&1 &
	pid=$!
	exec 3>"$home/in"
	kb=""
	for _ in $(seq 200); do
		sleep 0.05
		for c in $(children "$pid"); do
			a=$(rss "$c"); sleep 0.3; b=$(rss "$c")
			if [ -n "$a" ] && [ "$a" = "$b" ]; then kb=$b anonkb=$(anon "$c"); fi
		done
		[ -n "$kb" ] && break
	done
	exec 3>&-
	wait "$pid" || true
	rm -f "$home/in"
	[ -n "$kb" ] || { echo "no worker found" >&2; exit 1; }
	all+=("$kb") anons+=("$anonkb")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "median %.1f MiB (min %.1f, max %.1f)", v[int((NR+1)/2)]/1024, v[1]/1024, v[NR]/1024}'; }
echo "$lang worker before its first cell, $reps sessions: VmRSS $(median "${all[@]}"); RssAnon $(median "${anons[@]}")"
