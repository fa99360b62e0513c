package engine

import (
	"fmt"
	"regexp"
	"strconv"
)

// Truncated is a cell's output cut at its cap: the kept part, then a line that states the true
// length. Both engines end a capped output with it; SplitTruncated reads it back.
func Truncated(kept string, total, shown int) string {
	return fmt.Sprintf("%s\n[output truncated: %d characters in total, the first %d shown]\n", kept, total, shown)
}

var truncatedRE = regexp.MustCompile(`\n\[output truncated: (\d+) characters in total, the first \d+ shown\]\n$`)

// SplitTruncated returns the kept part and the true length of an output Truncated wrote; ok is
// false for any other output.
func SplitTruncated(out string) (kept string, total int, ok bool) {
	m := truncatedRE.FindStringSubmatchIndex(out)
	if m == nil {
		return out, 0, false
	}
	total, err := strconv.Atoi(out[m[2]:m[3]])
	if err != nil {
		return out, 0, false
	}
	return out[:m[0]], total, true
}
