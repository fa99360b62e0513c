//go:build !linux

package repl

import "os"

// sealedFile returns an unlinked temporary file holding b (this system has no memfd).
func sealedFile(name string, b []byte) (*os.File, error) {
	f, err := os.CreateTemp("", name+"-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
