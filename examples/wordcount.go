// A typical model-written cell: count words per log level in the input.
import (
	"sort"
	"strings"
)

counts := map[string]int{}
for _, line := range strings.Split(peek(context, 0, min(length(context), 16000)), "\n") {
	if fields := strings.Fields(line); len(fields) > 1 {
		counts[fields[1]]++
	}
}
levels := make([]string, 0, len(counts))
for level := range counts {
	levels = append(levels, level)
}
sort.Strings(levels)
for _, level := range levels {
	fmt.Println(level, counts[level])
}
