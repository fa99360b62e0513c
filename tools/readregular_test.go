package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRegular: a regular file is read whole up to the limit; a larger one is refused with
// ErrLimit; a fifo (directly or through a link) and a socket are refused at once.
func TestReadRegular(t *testing.T) {
	root := specialTree(t)
	for _, tc := range []struct {
		name  string
		limit int64
		want  string // the text read, or a part of the error
		kind  error
	}{
		{"a.txt", 100, "plain text\n", nil},
		{"a.txt", 11, "plain text\n", nil},
		{"a.txt", 10, "larger than 10 bytes", ErrLimit},
		{"fifo", 100, "a named pipe (fifo)", ErrInvalid},
		{"fifo-link", 100, "a named pipe (fifo)", ErrInvalid},
		{"sock", 100, "a socket", ErrInvalid},
		{"missing", 100, "no such file", os.ErrNotExist},
	} {
		promptly(t, "ReadRegular "+tc.name, func() {
			got, err := ReadRegular(filepath.Join(root, tc.name), tc.limit)
			switch {
			case tc.kind == nil && (err != nil || string(got) != tc.want):
				t.Errorf("ReadRegular(%s, %d) = %q, %v; want %q", tc.name, tc.limit, got, err, tc.want)
			case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("ReadRegular(%s, %d) = %q, %v; want %v: %s", tc.name, tc.limit, got, err, tc.kind, tc.want)
			}
		})
	}
}
