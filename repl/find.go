package repl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/rlm-sandbox/rlm/wire"
)

// WorkerName is the worker binary's file name. `go build ./cmd/...` and `go install ./cmd/...`
// put it beside rlm; a session with the default WorkerCommand runs it when it is there and
// trustworthy, and this executable with the hidden argument __worker otherwise.
const WorkerName = "rlm-worker"

// WorkerBinary says which program sessions with the default WorkerCommand run as their worker.
type WorkerBinary struct {
	Path     string // the program's resolved path
	Fallback bool   // the path is this executable's, run with the hidden argument __worker
	Why      string // with Fallback, why rlm-worker beside it is not used
}

// DefaultWorker reports which program sessions with the default WorkerCommand run as their
// worker. Until a session has started one, it checks rlm-worker with a handshake of its own (an
// unconfined worker with no engine, stopped at once), so that the answer is the one sessions
// get.
func DefaultWorker(ctx context.Context) WorkerBinary {
	if _, _, ok := sibling.candidate(); ok && sibling.report().Fallback { // not yet through a handshake
		o := Options{Unconfined: true, validateOnly: true}.WithDefaults()
		if w, _, err := startWorker(ctx, o, &inherited{}); err == nil {
			w.shutdown()
		}
	}
	return sibling.report()
}

// sibling is rlm-worker beside this executable, as this process found it: looked for once,
// held open from its check on (so that what runs is the file that was checked), and used once a
// worker started from it has answered the handshake with this build's protocol version and
// BuildID. A worker binary that does not is never tried again in this process.
var sibling = &siblingWorker{}

type siblingWorker struct {
	mu       sync.Mutex
	looked   bool
	file     *os.File // open while it may be used
	path     string   // its resolved path
	accepted bool     // a worker started from it passed the handshake
	why      string   // why it is not used
}

// candidate returns rlm-worker when it passed the checks and no handshake refused it.
func (s *siblingWorker) candidate() (*os.File, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.looked {
		s.looked = true
		s.file, s.path, s.why = lookSibling()
	}
	return s.file, s.path, s.file != nil
}

// accept records that a worker started from rlm-worker passed the handshake.
func (s *siblingWorker) accept() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.accepted = true
}

// refuse records that rlm-worker may not be used, and why; later sessions run this executable.
func (s *siblingWorker) refuse(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	s.accepted, s.why = false, why
}

func (s *siblingWorker) report() WorkerBinary {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil && s.accepted {
		return WorkerBinary{Path: s.path}
	}
	why := s.why
	if s.file != nil {
		why = "it has not answered a handshake yet"
	}
	exe, err := executable()
	if err != nil {
		exe = selfExe()
	}
	return WorkerBinary{Path: exe, Fallback: true, Why: why}
}

// executable is this process's executable, every symbolic link resolved.
func executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(exe)
}

// lookSibling opens rlm-worker beside this executable, or says why not. This build must be
// stamped (wire.BuildID): otherwise a worker from an older build of the same module could not
// be told apart from a current one.
func lookSibling() (*os.File, string, string) {
	if _, stamped := wire.BuildID(); !stamped {
		return nil, "", "this build has no module version, clean VCS revision or stamp (wire.BuildID), so an older " + WorkerName + " could not be told apart from a current one"
	}
	exe, err := executable()
	if err != nil {
		return nil, "", fmt.Sprintf("this executable cannot be found (%v)", err)
	}
	f, path, err := openSibling(exe)
	if err != nil {
		return nil, "", err.Error()
	}
	return f, path, ""
}

// openSibling opens WorkerName in the directory of exe (an absolute path, links resolved), and
// only there: never on $PATH, never in the working directory. It must be a regular file, not a
// symbolic link, owned by exe's owner or root, and writable by its owner only, in a directory
// of the same owners that no one else may write in. The file stays open, so a later swap of the
// name changes nothing.
func openSibling(exe string) (*os.File, string, error) {
	if !filepath.IsAbs(exe) {
		return nil, "", fmt.Errorf("this executable's path %q is not absolute", exe)
	}
	dir := filepath.Dir(exe)
	path := filepath.Join(dir, WorkerName)
	owner, err := ownerOf(exe)
	if err != nil {
		return nil, "", err
	}
	if err := trusted(dir, owner, true); err != nil {
		return nil, "", err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("there is no %s beside %s", WorkerName, exe)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w (a symbolic link is not followed)", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil {
		err = trustedInfo(path, fi, owner, false)
	}
	if err != nil {
		f.Close()
		return nil, "", err
	}
	return f, path, nil
}

// ownerOf is the uid that owns the file at path.
func ownerOf(path string) (uint32, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("%s: no owner on this system", path)
	}
	return st.Uid, nil
}

// trusted checks path (trustedInfo) by its name.
func trusted(path string, owner uint32, dir bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return trustedInfo(path, fi, owner, dir)
}

// trustedInfo checks that nobody but owner and root could have written what fi describes: root
// or owner owns it, and neither its group nor others may write it (a directory with the sticky
// bit may be: there nobody replaces or renames what they do not own, and a file they add is
// refused for its owner).
func trustedInfo(path string, fi fs.FileInfo, owner uint32, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner on this system", path)
	}
	if st.Uid != owner && st.Uid != 0 {
		return fmt.Errorf("%s is owned by uid %d, neither root nor the owner of this executable (uid %d)", path, st.Uid, owner)
	}
	perm := fi.Mode().Perm()
	if dir && fi.Mode()&fs.ModeSticky != 0 {
		perm &^= 0o022
	}
	if perm&0o022 != 0 {
		return fmt.Errorf("%s may be written by its group or by others (mode %v)", path, fi.Mode())
	}
	return nil
}
