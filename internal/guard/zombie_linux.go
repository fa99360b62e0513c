package guard

import (
	"fmt"
	"os"
	"strings"
)

// zombie reports whether pid is a zombie: the state after the command name in /proc/PID/stat
// is Z. A process whose stat cannot be read is not known to be one.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}
