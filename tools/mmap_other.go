//go:build !unix

package tools

import (
	"errors"
	"os"
)

func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	return nil, errors.New("memory-mapped context files need a Unix system")
}

func unmapFile(b []byte) error { return nil }
