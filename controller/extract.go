package controller

import "strings"

// Extract returns the code blocks of a model reply that run in a session of lang, in order:
// fences tagged repl, and fences tagged with the language's own names (go, golang; js,
// javascript). A fence must be closed to count; other fences (text, python, ...) are ignored.
func Extract(reply, lang string) []string {
	var blocks []string
	lines := strings.Split(reply, "\n")
	for i := 0; i < len(lines); i++ {
		ticks, tag, ok := openFence(lines[i])
		if !ok {
			continue
		}
		end := closeFence(lines, i+1, ticks)
		if end < 0 {
			break // unclosed: the reply was cut off; run nothing from it
		}
		if runs(tag, lang) {
			blocks = append(blocks, strings.Join(lines[i+1:end], "\n"))
		}
		i = end
	}
	return blocks
}

// openFence reports whether line opens a backtick fence, with its length and lowercase tag.
func openFence(line string) (ticks int, tag string, ok bool) {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return 0, "", false
	}
	for ticks < len(s) && s[ticks] == '`' {
		ticks++
	}
	if ticks < 3 {
		return 0, "", false
	}
	info := strings.TrimSpace(s[ticks:])
	if strings.Contains(info, "`") {
		return 0, "", false
	}
	if f := strings.Fields(info); len(f) > 0 {
		tag = strings.ToLower(f[0])
	}
	return ticks, tag, true
}

// closeFence finds the line that closes a fence of the given length, or -1.
func closeFence(lines []string, from, ticks int) int {
	for j := from; j < len(lines); j++ {
		s := strings.TrimSpace(lines[j])
		if len(s) >= ticks && strings.Trim(s, "`") == "" {
			return j
		}
	}
	return -1
}

// runs reports whether a fence tag is code for lang.
func runs(tag, lang string) bool {
	switch tag {
	case "repl":
		return true
	case "go", "golang":
		return lang == "go"
	case "js", "javascript":
		return lang == "js"
	}
	return false
}
