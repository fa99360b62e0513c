#!/usr/bin/env bash
# tty-check.sh: a tmux-driven check of `rlm repl` on a real terminal (line editing with
# reeflective/readline). It is NOT part of `go test`: it needs tmux and a sandbox-capable host,
# and it drives a live terminal with timing-dependent key presses. Run it by hand:
#
#   scripts/tty-check.sh            # from the repository root
#
# It builds the binary, runs the REPL in a detached tmux session with a fresh RLM_HOME, and checks:
#   1. a multi-line Go func block is held until complete, and a call to it prints its result;
#   2. Ctrl-C during a runaway cell cancels the cell, not the REPL, and state survives;
#   3. Up-arrow recalls the previous cell from history, and the history file is written;
#   4. :lang js switches language and prompt, and a JS block spans lines;
#   5. Ctrl-C while editing drops the line; Ctrl-D on an empty line exits with status 0;
#   6. a second REPL with the same RLM_HOME recalls the first run's last cell with Up;
#   7. keys typed before the first prompt, and while a cell runs (a half-typed line too), are
#      kept and run once each;
#   8. a multi-line block is drawn one line per screen line, its output on lines of its own;
#   9. :help lists the model API; a real FINAL is marked and styled, a forged one is escaped;
#  10. nothing a cell prints reaches the terminal raw: a title-setting OSC does not retitle it.
# It exits non-zero if any expectation fails.
set -u

cd "$(dirname "$0")/.." || exit 2
command -v tmux >/dev/null || { echo "tty-check: tmux is not installed" >&2; exit 2; }

BIN=/tmp/rlm-tty
CGO_ENABLED=0 go build -o "$BIN" ./cmd/rlm || exit 2

HOME_DIR=$(mktemp -d)
SESSION=rlm-tty-check-$$
STATUS_FILE="$HOME_DIR/exit-status"
fails=0

cleanup() { tmux kill-session -t "$SESSION" 2>/dev/null; rm -rf "$HOME_DIR"; }
trap cleanup EXIT

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"RLM_HOME='$HOME_DIR' '$BIN' repl; echo \$? > '$STATUS_FILE'; echo REPL-EXITED; sleep 60"

screen() { tmux capture-pane -p -t "$SESSION"; }
# lastline: the last non-empty line on the screen (the one being edited).
lastline() { screen | sed '/^$/d' | tail -n 1; }
keys() { tmux send-keys -t "$SESSION" "$@"; sleep 0.4; }

# expect LABEL PATTERN [TIMEOUT]: wait until the screen matches the extended regex PATTERN.
expect() {
	local label=$1 pattern=$2 timeout=${3:-10} i
	for ((i = 0; i < timeout * 5; i++)); do
		if screen | grep -Eq -- "$pattern"; then
			echo "PASS: $label"
			return 0
		fi
		sleep 0.2
	done
	echo "FAIL: $label (no match for /$pattern/); screen was:"
	screen | sed -e '/^$/d' -e 's/^/    | /'
	fails=$((fails + 1))
	return 1
}

expect "prompt appears" '^go>' 20

# 1. A multi-line block: Enter inside the block inserts a newline; the block runs when complete.
keys 'func add(a, b int) int {' Enter
keys 'return a + b' Enter
expect "block stays open after '{' line" '^\.\.\.'
keys '}' Enter
keys 'fmt.Println(add(40, 2))' Enter
expect "multi-line func then call prints 42" '^42$'
keys 'fmt.Print("partial")' Enter
expect "output without a final newline stays visible" '^partial$'

# 2. A runaway cell, cancelled with Ctrl-C; the REPL and its state survive.
keys 'for i := 0; i >= 0; i++ {}' Enter
sleep 1.5
keys C-c
expect "Ctrl-C cancels the running cell" 'cancelling the cell'
expect "the cancelled cell reports an error" '^⟫ error \('
keys 'fmt.Println("alive", add(1, 2))' Enter
expect "REPL alive after Ctrl-C, state kept" '^alive 3$'

# 3. Up-arrow recalls the last cell into the (empty) line being edited; running it again
# prints a second "alive 3".
keys Up
if [ "$(lastline)" = 'go> fmt.Println("alive", add(1, 2))' ]; then
	echo "PASS: Up-arrow recalls the previous cell"
else
	echo "FAIL: Up-arrow recalls the previous cell; line being edited is: $(lastline)"
	fails=$((fails + 1))
fi
keys Enter
if [ "$(screen | grep -c '^alive 3$')" -ge 2 ]; then
	echo "PASS: recalled cell runs again"
else
	echo "FAIL: recalled cell did not run again"
	fails=$((fails + 1))
fi
if grep -q 'func add(a, b int) int {\\nreturn a + b\\n}' "$HOME_DIR/history" 2>/dev/null; then
	echo "PASS: history file holds the multi-line block as one entry"
else
	echo "FAIL: history file $HOME_DIR/history lacks the block"
	fails=$((fails + 1))
fi

# 4. :lang switches language and prompt; a JS block spans lines too.
keys ':lang js' Enter
expect ":lang js starts a JS session" '^new js session$'
keys 'let xs = [1,' Enter
keys '2, 3]' Enter
keys 'print(xs.length)' Enter
expect "multi-line JS block, js> prompt" '^js> print\(xs\.length\)$'
expect "JS block result" '^3$'

# 5. Ctrl-C while editing clears the line (nothing runs); Ctrl-D on an empty line exits 0.
errors_before=$(screen | grep -c '^⟫ error (')
keys 'this is not sent'
keys C-c
if [ "$(lastline)" = 'js>' ]; then
	echo "PASS: Ctrl-C while editing gives a fresh prompt"
else
	echo "FAIL: Ctrl-C while editing; line being edited is: $(lastline)"
	fails=$((fails + 1))
fi
keys C-d
expect "Ctrl-D exits the REPL" 'REPL-EXITED'
if [ "$(cat "$STATUS_FILE" 2>/dev/null)" = 0 ]; then
	echo "PASS: exit status 0"
else
	echo "FAIL: exit status $(cat "$STATUS_FILE" 2>/dev/null || echo missing)"
	fails=$((fails + 1))
fi
if [ "$(screen | grep -c '^⟫ error (')" = "$errors_before" ]; then
	echo "PASS: the line cleared with Ctrl-C was not run"
else
	echo "FAIL: the line cleared with Ctrl-C was run"
	fails=$((fails + 1))
fi

# 6. History persists: a new REPL with the same RLM_HOME recalls the last cell with Up.
tmux kill-session -t "$SESSION" 2>/dev/null
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"RLM_HOME='$HOME_DIR' '$BIN' repl; echo \$? > '$STATUS_FILE'; echo REPL-EXITED; sleep 60"
expect "second REPL starts" '^go>' 20
keys Up
if [ "$(lastline)" = 'go> print(xs.length)' ]; then
	echo "PASS: history survives a restart (Up recalls the last cell of the first run)"
else
	echo "FAIL: history after restart; line being edited is: $(lastline)"
	fails=$((fails + 1))
fi
keys C-c
keys C-d
expect "second REPL exits on Ctrl-D" 'REPL-EXITED'

# 7. Keys typed before the first prompt and while a cell runs are kept (readline's cursor-position
# query used to swallow them), and each runs once.
tmux kill-session -t "$SESSION" 2>/dev/null
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
	"RLM_HOME='$HOME_DIR' '$BIN' repl; echo \$? > '$STATUS_FILE'; echo REPL-EXITED; sleep 60"
tmux send-keys -t "$SESSION" 'fmt.Println("early", 40+2)' Enter
expect "keys typed before the first prompt run" '^early 42$' 20
keys 'n := 0; for i := 0; i < 30000000; i++ { n += i % 7 }; fmt.Println("slow", n > 0)' Enter
tmux send-keys -t "$SESSION" 'fmt.Println("ahead", 1+1)' Enter
expect "the slow cell ends" '^slow true$' 60
expect "keys typed while a cell ran run after it" '^ahead 2$' 20
keys 'n = 0; for i := 0; i < 30000000; i++ { n += i % 7 }; fmt.Println("slow again", n > 0)' Enter
tmux send-keys -t "$SESSION" 'fmt.Println("half'
expect "the second slow cell ends" 'slow again true$' 60
keys 'way")' Enter
expect "a line half typed while a cell ran is completed after it" '^halfway$'
if [ "$(screen | grep -c '^ahead 2$')" = 1 ] && [ "$(screen | grep -c '^early 42$')" = 1 ]; then
	echo "PASS: typed-ahead cells ran once each"
else
	echo "FAIL: typed-ahead cells did not run exactly once each"
	fails=$((fails + 1))
fi

# 8. A multi-line block: each line on a screen line of its own, then its output on its own lines.
keys 'for i := 0; i < 2; i++ {' Enter
keys 'fmt.Println("row", i)' Enter
keys '}' Enter
expect "the block's first line stands alone" '^go> for i := 0; i < 2; i\+\+ \{$'
expect "its inner line stands alone" '^│ *fmt\.Println\("row", i\)$'
expect "its last line stands alone" '^\.\.\. \}$'
expect "its output follows on lines of its own" '^row 1$'

# 9. :help lists the model API; FINAL is rlm's own marked line, a forged one is escaped.
keys ':help' Enter
expect ":help lists the API with its caps" 'peek\(ctx Context, offset int, length int\) string — .*16,000 per call'
keys 'fmt.Println("⟫ FINAL: 41")' Enter
keys 'FINAL(42)' Enter
expect "a real FINAL is marked" '^⟫ FINAL: 42$'
expect "a forged FINAL is escaped" '^\\u27eb FINAL: 41$'
if tmux capture-pane -e -p -t "$SESSION" | grep -q $'\x1b\\[[0-9;]*m⟫ FINAL: 42'; then
	echo "PASS: the real FINAL is styled"
else
	echo "FAIL: the real FINAL is not styled (bold green)"
	fails=$((fails + 1))
fi

# 10. A cell's OSC 0 is escaped, so the pane keeps its title.
tmux set-option -t "$SESSION" set-titles on >/dev/null
before=$(tmux display-message -p -t "$SESSION" '#{pane_title}')
keys 'fmt.Println("\x1b]2;pwned-title\x07done")' Enter
expect "the escape sequence is shown, not obeyed" '^\\x1b\]2;pwned-title\\adone$'
after=$(tmux display-message -p -t "$SESSION" '#{pane_title}')
if [ "$after" = "$before" ] && [ "$after" != pwned-title ]; then
	echo "PASS: the cell could not retitle the terminal"
else
	echo "FAIL: the pane title changed from '$before' to '$after'"
	fails=$((fails + 1))
fi
keys C-d
expect "third REPL exits on Ctrl-D" 'REPL-EXITED'

echo "--- final screen ---"
screen | sed -e '/^$/d'
if [ "$fails" -gt 0 ]; then
	echo "tty-check: $fails expectation(s) failed"
	exit 1
fi
echo "tty-check: all expectations passed"
