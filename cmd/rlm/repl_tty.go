package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reeflective/readline"

	"github.com/rlm-sandbox/rlm/validator"
)

// historyFile is where the TTY REPL keeps its history: $RLM_HOME/history, RLM_HOME defaulting
// to ~/.rlm. Go and JS cells share the file. An empty string means no file (history stays in
// memory), for instance when there is no home directory.
func historyFile() string {
	home := rlmHome()
	if err := os.MkdirAll(home, 0o700); err != nil {
		return ""
	}
	return filepath.Join(home, "history")
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
	// No cursor-position query (ESC[6n): keys typed before its answer arrives (at start, or
	// while a cell runs) were lost with it. rlm starts every prompt at column 0 (exec ends a
	// partial last line), where readline's fallback, the prompt's width, is exact.
	_ = rl.Config.Set("cursor-position-probe", false)
	rl.Prompt.Secondary(func() string { return "... " })
	if file := historyFile(); file != "" {
		rl.History.AddFromFile("history", file)
	} else {
		fmt.Fprintln(sh.err, "note: no RLM_HOME or home directory; history is not saved")
	}
	rl.AcceptMultiline = func(line []rune) bool {
		src := string(line)
		if strings.TrimSpace(src) == "" || strings.HasPrefix(strings.TrimSpace(src), ":") {
			return true
		}
		return !validator.Incomplete(sh.lang, []byte(src+"\n"))
	}
	for {
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
