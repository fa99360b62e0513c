package files

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/internal/convert"
)

// Kind is what a context file the caller names is, for whether rlm can map it as it is.
type Kind int

const (
	// Mappable: a regular file whose size is its content, or anything Contexts refuses with a
	// message of its own (a missing file, a directory, a socket).
	Mappable Kind = iota
	// Pipe: a named pipe, or a pipe such as the /dev/fd/63 of <(cmd). What it holds is what a
	// writer sends, once; there is nothing to map.
	Pipe
	// Kernel: a file of /proc, /sys or another of the kernel's file systems. Its size says
	// nothing of what reading it gives (0 in /proc, a page in /sys), and it cannot be mapped.
	Kernel
	// Device: a character or block device. rlm does not open one (an open can act on the
	// device, and reading some never ends); tools.OpenRegular refuses it.
	Device
)

// KindOf says what the context file at path is (symbolic links followed).
func KindOf(path string) Kind {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Mappable
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return Pipe
	case unix.S_IFREG:
		if onKernelFS(path) {
			return Kernel
		}
	case unix.S_IFCHR, unix.S_IFBLK:
		return Device
	}
	return Mappable
}

// kernelFile is the message for a file of the kernel's file systems named where rlm maps files
// (the Go API, the MCP server): the command line saves such a file first instead.
func kernelFile(label, name string) error {
	return fmt.Errorf("%s %s is a file of the kernel's (/proc, /sys): its size says nothing of what it holds, so rlm cannot map it: save it to a file first (cat %s > FILE.txt) and pass that", label, name, name)
}

// OpenPipe opens the pipe or named pipe at path for reading, waiting at most wait for a process
// to open it for writing. open(2) of a named pipe blocks until a writer comes, for ever if none
// does, so it runs aside: when wait has passed, rlm opens the pipe for writing itself, which
// ends that open, closes both and returns an error that says no writer came and what to do. A
// pipe from <(cmd) has its writer already, and a writer that opened the pipe before rlm did is
// waiting for a reader. The descriptor is checked to be the pipe that was looked at.
func OpenPipe(label, path string, wait time.Duration) (*os.File, error) {
	var before unix.Stat_t
	if err := unix.Stat(path, &before); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if before.Mode&unix.S_IFMT != unix.S_IFIFO {
		return nil, fmt.Errorf("%s %s is not a pipe", label, path)
	}
	type opened struct {
		fd  int
		err error
	}
	done := make(chan opened, 1)
	go func() {
		var o opened
		o.err = retryEINTR(func() (err error) {
			o.fd, err = unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
			return err
		})
		done <- o
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case o := <-done:
		if o.err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: o.err}
		}
		return samePipe(label, path, o.fd, &before)
	case <-timer.C:
	}
	if w, err := unix.Open(path, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err == nil {
		unix.Close(w) // the open aside returns
	}
	select {
	case o := <-done:
		if o.err == nil {
			unix.Close(o.fd)
		}
	case <-time.After(time.Second): // the path was swapped: the open aside stays until rlm exits
	}
	return nil, fmt.Errorf("%s %s is a named pipe no process opened for writing within %s: start the writer first (such as cmd > %s &), or send the input on stdin: cmd | rlm run --ctx -", label, path, wait, path)
}

// samePipe wraps fd if it is the pipe looked at before it was opened.
func samePipe(label, path string, fd int, before *unix.Stat_t) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != before.Dev || st.Ino != before.Ino {
		unix.Close(fd)
		return nil, fmt.Errorf("%s %s was replaced while it was opened; pass it again", label, path)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// CheckText refuses the start of a context (its first 8 KiB) that is not text: a PDF (it starts
// with "%PDF-", and may hold no NUL byte that early), a NUL byte (the test git and grep use), or
// a UTF-16 byte-order mark. The model explores text; a binary file would reach it as noise. name
// is the file or stream as the user named it; file says whether it is a file, which the advice's
// commands then name, with the [convert] entry (rlm.toml) that would turn it into text.
func CheckText(label, name string, head []byte, file bool) error {
	src, out := name, name+".txt"
	if !file {
		src, out = "FILE", "FILE.txt"
	}
	if bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff}) {
		return fmt.Errorf("%s %s is UTF-16 text; rlm reads UTF-8: convert it first (iconv -f UTF-16 -t UTF-8 %s > %s)", label, name, src, out)
	}
	what := ""
	if bytes.HasPrefix(head, []byte("%PDF-")) {
		what = "a PDF"
	} else if i := bytes.IndexByte(head, 0); i >= 0 {
		what = fmt.Sprintf("a NUL byte at offset %d", i)
	} else {
		return nil
	}
	return fmt.Errorf("%s %s is a binary file (%s); rlm reads text: pass a text file, extract its text first (such as strings %s > %s), or %s", label, name, what, src, out, convertAdvice(name, file))
}

// convertAdvice says how to name a converter for a file like name: a [convert] entry for its
// extension, with a real command for the extensions converterExamples knows.
func convertAdvice(name string, file bool) string {
	ext := convert.Ext(name)
	if !file || convert.CheckExt(ext) != nil {
		return "save it to a file and name a converter for its extension in $RLM_HOME/config.toml ([convert], README: Your own tools)"
	}
	cmd, ok := converterExamples[ext]
	if !ok {
		cmd = `["PROGRAM", "{path}"]`
	}
	return fmt.Sprintf("name a converter for .%s files in $RLM_HOME/config.toml: [convert] %s = %s (README: Your own tools)", ext, ext, cmd)
}

// converterExamples are commands that print the text of files of a few common types, for the
// advice of a refused binary input.
var converterExamples = map[string]string{
	"pdf":  `["pdftotext", "-layout", "{path}", "-"]`,
	"docx": `["pandoc", "--to", "plain", "{path}"]`,
	"odt":  `["pandoc", "--to", "plain", "{path}"]`,
	"epub": `["pandoc", "--to", "plain", "{path}"]`,
}

// HeadBytes is how much of a context CheckText looks at.
const HeadBytes = 8 << 10

func retryEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
