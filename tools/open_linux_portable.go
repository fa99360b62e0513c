//go:build linux && rlm_portable

package tools

import "golang.org/x/sys/unix"

// Built with -tags rlm_portable, Linux makes the choices macOS makes: no openat2 and no
// O_PATH, so the whole pipeline (the worker's file tools, the corpus's path-guard cases) can be
// tested in the portable mode here. .ci/run runs those tests so; a release never has the tag.

// pathFlags opens directories read-only, as macOS must.
const pathFlags = unix.O_RDONLY

// canOpenat2 is false: the portable mode, whatever the kernel offers.
func canOpenat2(int) bool { return false }
