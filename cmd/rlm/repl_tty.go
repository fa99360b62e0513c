package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/reeflective/readline"
	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/source"
)

// historyFile is where the TTY REPL keeps its history: $RLM_HOME/history, RLM_HOME defaulting
// to ~/.rlm. Go and JS cells share the file. An empty string means no file (history stays in
// memory), for instance when there is no home directory.
func historyFile() string {
	dir := rlmHome()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return ""
	}
	return home.History(dir)
}

// runTTY is the interactive loop: readline edits the cell, Enter inserts a newline until the
// language's lexer says the block is complete, and the terminal is back in cooked mode while a
// cell runs, so Ctrl-C then raises SIGINT and the handler in interrupts cancels the cell.
func (sh *shell) runTTY() error {
	rl := readline.NewShell()
	rl.Prompt.Primary(func() string { return fmt.Sprintf("%s> ", sh.lang) })
	// Readline marks a block's inner lines with its own column glyph; the line being typed
	// (the last one) carries the secondary prompt.
	_ = rl.Config.Set("multiline-column", true)
	rl.Prompt.Secondary(func() string { return "... " })
	if file := historyFile(); file != "" {
		rl.History.AddFromFile("history", file)
	} else {
		sh.say(sh.err, styleNote, "note: no RLM_HOME or home directory; history is not saved")
	}
	rl.AcceptMultiline = func(line []rune) bool {
		src := string(line)
		if strings.TrimSpace(src) == "" || strings.HasPrefix(strings.TrimSpace(src), ":") {
			return true
		}
		return !source.Incomplete(sh.lang, []byte(src+"\n"))
	}
	for {
		// Lines typed ahead (before the first prompt, or while a cell ran) are handed to readline
		// as keys: left on the terminal, they could be swallowed by readline's cursor-position
		// query, which reads the terminal to find its answer.
		if typed := typedAhead(int(os.Stdin.Fd())); len(typed) > 0 {
			rl.Keys.Feed(false, []rune(string(typed))...)
		}
		line, err := rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			continue // Ctrl-C while editing drops the line being edited
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		src := strings.TrimSpace(line)
		switch {
		case src == "":
		case strings.HasPrefix(src, ":"):
			if sh.meta(src) {
				return nil
			}
		default:
			sh.exec(line + "\n")
		}
	}
}

// typedAhead reads, without waiting, what was typed on the terminal fd while it was in cooked
// mode (before the first prompt, or while a cell ran): whole lines and a line still being typed
// alike, for a moment in non-canonical mode, where a partial line is readable too.
func typedAhead(fd int) []byte {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil
	}
	nb := *old
	nb.Lflag &^= unix.ICANON | unix.ECHO
	nb.Cc[unix.VMIN], nb.Cc[unix.VTIME] = 0, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &nb); err != nil {
		return nil
	}
	defer unix.IoctlSetTermios(fd, ioctlSetTermios, old)
	var out []byte
	buf := make([]byte, 4096)
	for len(out) < 1<<20 {
		n, err := unix.Read(fd, buf)
		if n <= 0 || err != nil {
			break
		}
		out = append(out, buf[:n]...)
	}
	return out
}
