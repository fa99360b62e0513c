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
# Each side's rlm, with its rlm-worker beside it when its tree has one, stamped so that rlm uses
# it (README: install); a tree without cmd/rlm-worker gets rlm alone.
build() { # src dir stamp
	rm -rf "$2" && mkdir -p "$2"
	local pkgs=(./cmd/rlm)
	[ -d "$1/cmd/rlm-worker" ] && pkgs+=(./cmd/rlm-worker)
	(cd "$1" && go build -o "$2/" -ldflags="-X=github.com/rlm-sandbox/rlm/wire.stamp=$3" "${pkgs[@]}")
}
build "$src" "$DIR/before" "bench-before-$$"
build "$PWD" "$DIR/after" "bench-after-$$"
echo "before: $BEFORE ($(git rev-parse --short "$BEFORE")), after: working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo ', modified'))"
drop=()
[ -n "${DROP:-}" ] && drop=(-drop)
go run ./scripts/startup -before "$DIR/before/rlm" -after "$DIR/after/rlm" -dir "$DIR" \
	-reps "${REPS:-5}" -sizes "${SIZES:-10MB,100MB,1GB}" ${drop[@]+"${drop[@]}"}
