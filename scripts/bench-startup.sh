#!/usr/bin/env bash
# Time to the first cell's result over 10 MB, 100 MB and 1 GB inputs, for rlm built from
# BEFORE (default: main) and from this working tree, side by side in one run (see
# scripts/startup/main.go for what is measured and how):
#
#   scripts/bench-startup.sh                      # cold and cached, 5 repetitions
#   DROP=1 scripts/bench-startup.sh               # also with the page cache dropped (root)
#   BEFORE=v0.3.0 REPS=3 SIZES=10MB,1GB scripts/bench-startup.sh
#
# The inputs (1.1 GB in all) and the binaries go to DIR (default /tmp/rlm-bench-startup),
# outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${DIR:-/tmp/rlm-bench-startup}
BEFORE=${BEFORE:-main}
case "$DIR" in
"$PWD"/*) echo "put DIR outside the repository (e.g. /tmp)" >&2; exit 2 ;;
esac
mkdir -p "$DIR"
src="$DIR/src-before"
rm -rf "$src" && mkdir -p "$src"
git archive "$BEFORE" | tar -x -C "$src"
(cd "$src" && go build -o "$DIR/rlm-before" ./cmd/rlm)
go build -o "$DIR/rlm-after" ./cmd/rlm
echo "before: $BEFORE ($(git rev-parse --short "$BEFORE")), after: working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified'))"
drop=()
[ -n "${DROP:-}" ] && drop=(-drop)
go run ./scripts/startup -before "$DIR/rlm-before" -after "$DIR/rlm-after" -dir "$DIR" \
	-reps "${REPS:-5}" -sizes "${SIZES:-10MB,100MB,1GB}" ${drop[@]+"${drop[@]}"}
