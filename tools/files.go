package tools

// File tools and their path guard: read_file, list_dir, file_info, grep and write_file.
//
// Every path is resolved against the allowed roots (relative paths against the workspace) and
// the file is opened relative to a descriptor of its root. On Linux 5.6 and later, a path that
// stays in its root is opened with openat2 RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS, so the kernel
// itself refuses a path that leaves the root, even one swapped for a symlink between a check and
// the open. Any other path (a symlink to another root, "../docs/a.txt" from the workspace), and
// every path where openat2 does not exist (macOS, older kernels: the portable mode), is resolved
// by the guard's walk (guard.go), which follows symlinks inside the roots only and never looks
// at a name outside them: Landlock does not cover lstat or readlink, so resolving outside paths
// would tell a cell what exists there. Every path outside the roots gets one message, which
// names the path as the caller wrote it and the roots as the user named them, never a resolved
// target. A root is reached by its real path and by the paths the user named it by (roots.go).
// Hidden directories (RLM_HOME, hidden.go) count as outside the roots. Nothing but a regular
// file or a directory is ever opened, and no open blocks (openChecked). Files on procfs (devfs
// on macOS) are refused. Landlock in the worker enforces the same roots as a second layer where
// it exists. write_file also keeps the workspace within a quota of bytes and entries.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/rlm-sandbox/rlm/internal/home"
	"github.com/rlm-sandbox/rlm/limits"
)

// ErrDenied marks a path the guard refused: outside the allowed roots, or writing outside the
// workspace.
var ErrDenied = errors.New("denied")

func deniedf(format string, args ...any) error {
	return &toolError{kind: ErrDenied, msg: fmt.Sprintf(format, args...)}
}

// FileLimits are the caps of the file tools; zero means the default, negative is an error.
type FileLimits struct {
	ReadChars   int // characters read_file returns (50,000)
	GrepResults int // matches grep returns (100)
	WriteBytes  int // bytes write_file writes (50,000)
	ListEntries int // entries list_dir returns (1,000)
	GrepFiles   int // files one grep scans (10,000)

	// The workspace quota: what write_file may leave in the workspace, counting what was there
	// before. Bytes of regular files (256 MiB) and entries: files, directories, links (10,000).
	WorkspaceBytes   int
	WorkspaceEntries int
}

const grepFileBytes = 32 << 20 // files larger than this are skipped by a directory grep

func (l FileLimits) effective() (FileLimits, error) {
	out := l
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"ReadChars", &out.ReadChars, limits.ReadChars},
		{"GrepResults", &out.GrepResults, limits.GrepResults},
		{"WriteBytes", &out.WriteBytes, limits.WriteBytes},
		{"ListEntries", &out.ListEntries, limits.ListEntries},
		{"GrepFiles", &out.GrepFiles, limits.GrepFiles},
		{"WorkspaceBytes", &out.WorkspaceBytes, limits.WorkspaceBytes},
		{"WorkspaceEntries", &out.WorkspaceEntries, limits.WorkspaceEntries},
	} {
		if *f.v < 0 {
			return out, invalidf("file limit %s is %d; use 0 for the default or a positive cap", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	return out, nil
}

// Files serves the file tools over a set of allowed roots. Its methods are safe for concurrent
// use.
type Files struct {
	roots     []*root // longest path first
	workspace *root   // also in roots; nil if there is none
	lim       FileLimits
	openat2   bool  // paths below a root are opened with openat2 RESOLVE_BENEATH
	dirFlags  int   // how directories are opened for lookups: pathFlags, or O_RDONLY
	quota     quota // what the workspace holds, measured at the first write

	hidden []Hidden // directories never reached (RLM_HOME; see hidden.go)
}

// FileInfo describes a path: what file_info returns.
type FileInfo struct {
	Name    string
	Size    int64
	IsDir   bool
	ModTime time.Time
}

// FileMatch is one grep hit: the file, the 1-based line, the character offsets of the match in
// the file, and the line's text (clipped to limits.MatchChars).
type FileMatch struct {
	Path       string
	Line       int64
	Start, End int64
	Text       string
}

// GrepResult holds the first matches; Capped says there were more (or too many files).
type GrepResult struct {
	Matches []FileMatch
	Capped  bool
}

// Close releases the root descriptors.
func (f *Files) Close() error {
	for _, r := range f.roots {
		if r.fd >= 0 {
			unix.Close(r.fd)
			r.fd = -1
		}
	}
	return nil
}

// Mode names how paths are opened: "openat2" (RESOLVE_BENEATH, checked by the kernel) or
// "portable" (the guard's walk, then one component at a time with O_NOFOLLOW; see guard.go).
func (f *Files) Mode() string {
	if f.openat2 {
		return "openat2"
	}
	return "portable"
}

// absolute makes p absolute without cleaning it: ".." is left for the kernel (or realpath) to
// resolve, where symlinks are taken into account.
func (f *Files) absolute(tool, p string) (string, error) {
	if p == "" {
		return "", invalidf("%s: the path is empty; pass a file path", tool)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", invalidf("%s: the path contains a NUL byte", tool)
	}
	if filepath.IsAbs(p) {
		return p, nil
	}
	if f.workspace == nil {
		return "", invalidf("%s: relative path %s needs a workspace; pass an absolute path under %s", tool, p, f.rootList())
	}
	return strings.TrimSuffix(f.workspace.name(), "/") + "/" + p, nil
}

// open opens the path p (already absolute) with flags, inside an allowed root, never blocking
// and never opening anything but a regular file or a directory (openChecked). A path that stays
// in its root lexically is opened by the kernel with RESOLVE_BENEATH in one call, unless a
// hidden directory is in that root (hidden.go); any other path is resolved by the guard's walk
// (guard.go), which looks at nothing outside the roots, and every path outside them gets the
// one message of Files.outside.
func (f *Files) open(tool, p string, flags int) (*os.File, error) {
	if f.openat2 {
		if r, rel := f.rootOf(p); r != nil && !r.guarded {
			fd, err := openBeneathChecked(r.fd, rel, flags, false)
			if err == nil {
				return f.checked(tool, p, fd)
			}
			if !errors.Is(err, unix.EXDEV) && !errors.Is(err, unix.ELOOP) {
				return nil, osErr(tool, p, err)
			}
		}
	}
	r, rel, err := f.resolve(tool, p)
	if errors.Is(err, errOutside) {
		return nil, f.outside(p)
	}
	if err != nil {
		return nil, err
	}
	fd, err := f.openBelow(r.fd, rel, flags)
	if err != nil {
		return nil, f.openErr(tool, p, err)
	}
	return f.checked(tool, p, fd)
}

// openErr describes an error of openBelow.
func (f *Files) openErr(tool, p string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV):
		return f.changed(p)
	case errors.Is(err, errSpecialFS):
		return special(p)
	}
	return osErr(tool, p, err)
}

// changed is the message for a path that was swapped (for a symlink, say) while it was opened.
func (f *Files) changed(p string) error {
	return deniedf("path %s changed while it was opened; it must stay under the allowed roots (%s)", p, f.rootList())
}

// special is the message for a path on procfs (devfs on macOS).
func special(p string) error {
	return deniedf("path %s is on %s, which the file tools do not read", p, specialFSName)
}

// checked refuses descriptors on procfs or devfs (a root that contains /proc or /dev must not
// expose them) and wraps the descriptor.
func (f *Files) checked(tool, p string, fd int) (*os.File, error) {
	if specialFS(fd) {
		unix.Close(fd)
		return nil, special(p)
	}
	return os.NewFile(uintptr(fd), p), nil
}

func osErr(tool, p string, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT):
		return &toolError{kind: ErrInvalid, msg: fmt.Sprintf("%s: %s does not exist; check the path with list_dir", tool, p), cause: err}
	case errors.Is(err, unix.ENOTDIR):
		return invalidf("%s: a component of %s is not a directory", tool, p)
	case errors.Is(err, unix.EISDIR):
		return invalidf("%s: %s is a directory; use list_dir", tool, p)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return deniedf("%s: the system refused access to %s", tool, p)
	case errors.Is(err, errSpecialFile):
		return invalidf("%s: %s is not a regular file or directory", tool, p)
	}
	return invalidf("%s: %s: %v", tool, p, err)
}

// Read returns the file's text, at most ReadChars characters (invalid UTF-8 bytes read as
// U+FFFD, one character each). A longer file is cut, and a note at the end says so with its
// true size.
func (f *Files) Read(path string) (string, error) {
	p, err := f.absolute("read_file", path)
	if err != nil {
		return "", err
	}
	fl, err := f.open("read_file", p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return "", err
	}
	defer fl.Close()
	st, err := fl.Stat()
	if err != nil {
		return "", osErr("read_file", p, err)
	}
	if st.IsDir() {
		return "", invalidf("read_file: %s is a directory; use list_dir", path)
	}
	if !st.Mode().IsRegular() {
		return "", invalidf("read_file: %s is not a regular file", path)
	}
	max := f.lim.ReadChars
	data, err := io.ReadAll(io.LimitReader(fl, int64(max)*utf8.UTFMax+1))
	if err != nil {
		return "", osErr("read_file", p, err)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(data); n++ {
		if n == max {
			size := st.Size()
			if size < int64(len(data)) {
				size = int64(len(data))
			}
			fmt.Fprintf(&b, "\n[read_file: truncated after %d characters; the file has %d bytes. Use grep to find the part you need]", max, size)
			return b.String(), nil
		}
		r, w := utf8.DecodeRune(data[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String(), nil
}

// List returns the entries of a directory, sorted, directories with a trailing "/"; after
// ListEntries entries a last entry says how many were left off.
func (f *Files) List(path string) ([]string, error) {
	p, err := f.absolute("list_dir", path)
	if err != nil {
		return nil, err
	}
	fl, err := f.open("list_dir", p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer fl.Close()
	ents, err := fl.ReadDir(-1)
	if err != nil {
		return nil, osErr("list_dir", p, err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		switch {
		case e.IsDir() && f.hiddenEntry(int(fl.Fd()), e.Name()):
			continue // RLM_HOME: never shown (hidden.go)
		case e.IsDir():
			names = append(names, e.Name()+"/")
		default:
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(names) > f.lim.ListEntries {
		more := len(names) - f.lim.ListEntries
		names = append(names[:f.lim.ListEntries], fmt.Sprintf("… %d more entries; list a subdirectory or grep", more))
	}
	return names, nil
}

// Info describes a path (symlinks followed).
func (f *Files) Info(path string) (FileInfo, error) {
	p, err := f.absolute("file_info", path)
	if err != nil {
		return FileInfo{}, err
	}
	st, err := f.stat(p)
	if err != nil {
		return FileInfo{}, err
	}
	return FileInfo{
		Name:    filepath.Base(filepath.Clean(p)),
		Size:    st.Size,
		IsDir:   st.Mode&unix.S_IFMT == unix.S_IFDIR,
		ModTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec).UTC(),
	}, nil
}

// stat looks at the path p (absolute) without opening it for reading: through an O_PATH
// descriptor with openat2, or, in the portable mode, with lstat in the directory that holds it
// (the walk has followed every symlink, so the last component must not be one).
func (f *Files) stat(p string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if f.openat2 {
		fl, err := f.open("file_info", p, pathFlags)
		if err != nil {
			return st, err
		}
		defer fl.Close()
		if err := unix.Fstat(int(fl.Fd()), &st); err != nil {
			return st, osErr("file_info", p, err)
		}
		return st, nil
	}
	r, rel, err := f.resolve("file_info", p)
	if errors.Is(err, errOutside) {
		return st, f.outside(p)
	}
	if err != nil {
		return st, err
	}
	dir, base := filepath.Split(rel)
	if rel == "." {
		dir, base = ".", "."
	}
	fd, err := f.openBelow(r.fd, dir, f.dirFlags|unix.O_DIRECTORY)
	if err != nil {
		return st, f.openErr("file_info", p, err)
	}
	defer unix.Close(fd)
	if specialFS(fd) {
		return st, special(p)
	}
	if err := unix.Fstatat(fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return st, osErr("file_info", p, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return st, f.changed(p)
	}
	return st, nil
}

// Grep finds the RE2 pattern in a file, or in every regular file of a directory tree (in name
// order; symlinks are not followed; fifos, sockets, devices, binary files, files over 32 MB and
// RLM_HOME are skipped). Matches do not span lines. At most GrepResults matches are returned.
func (f *Files) Grep(pattern, path string) (GrepResult, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return GrepResult{}, invalidf("grep: bad pattern %q: %v; use RE2 syntax", pattern, err)
	}
	p, err := f.absolute("grep", path)
	if err != nil {
		return GrepResult{}, err
	}
	fl, err := f.open("grep", p, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return GrepResult{}, err
	}
	g := &grepper{re: re, lim: f.lim, f: f}
	err = g.walk(fl, filepath.Clean(p), true)
	return GrepResult{Matches: g.out, Capped: g.capped}, err
}

type grepper struct {
	re     *regexp.Regexp
	lim    FileLimits
	f      *Files // for the hidden directories, which a directory grep skips
	out    []FileMatch
	files  int
	capped bool
}

// walk greps fl (which it closes): a file, or a directory whose entries it opens one component
// at a time with O_NOFOLLOW, so nothing below the opened directory can lead out of it.
func (g *grepper) walk(fl *os.File, p string, top bool) error {
	defer fl.Close()
	st, err := fl.Stat()
	if err != nil {
		return osErr("grep", p, err)
	}
	if st.Mode().IsRegular() {
		if g.files++; g.files > g.lim.GrepFiles {
			g.capped = true
			return nil
		}
		if !top && st.Size() > grepFileBytes {
			return nil
		}
		return g.file(fl, p, !top)
	}
	if !st.IsDir() {
		if top {
			return invalidf("grep: %s is not a regular file or directory", p)
		}
		return nil
	}
	ents, err := fl.ReadDir(-1)
	if err != nil {
		return osErr("grep", p, err)
	}
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range ents {
		if g.capped {
			return nil
		}
		if e.Type()&(os.ModeDir) == 0 && !e.Type().IsRegular() {
			continue // symlinks, devices, sockets
		}
		fd, err := openChecked(int(fl.Fd()), e.Name(), unix.O_RDONLY|unix.O_NONBLOCK)
		if err != nil {
			continue // vanished, swapped for a symlink or a device, or unreadable
		}
		var st unix.Stat_t
		if specialFS(fd) || unix.Fstat(fd, &st) != nil || g.f.hiddenDir(&st) {
			unix.Close(fd)
			continue // procfs, or RLM_HOME (hidden.go)
		}
		if err := g.walk(os.NewFile(uintptr(fd), e.Name()), p+"/"+e.Name(), false); err != nil {
			return err
		}
	}
	return nil
}

func (g *grepper) file(fl *os.File, p string, skipBinary bool) error {
	br := bufio.NewReaderSize(fl, 64<<10)
	if skipBinary {
		head, _ := br.Peek(512)
		if slices.Contains(head, 0) {
			return nil
		}
	}
	var line, off int64
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it whole.
			buf := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				buf = append(buf, b...)
				if len(buf) > grepFileBytes {
					return invalidf("grep: %s has a line over %d bytes; grep a smaller file", p, grepFileBytes)
				}
			}
			b = buf
		}
		if len(b) == 0 && err != nil {
			break
		}
		line++
		text := b
		text = text[:len(text)-len(trailingEOL(text))]
		for _, m := range g.re.FindAllIndex(text, -1) {
			if len(g.out) == g.lim.GrepResults {
				g.capped = true
				return nil
			}
			start := off + int64(utf8.RuneCount(text[:m[0]]))
			g.out = append(g.out, FileMatch{
				Path: p, Line: line,
				Start: start, End: start + int64(utf8.RuneCount(text[m[0]:m[1]])),
				Text: clipLine(text),
			})
		}
		off += int64(utf8.RuneCount(b))
		if err != nil {
			break
		}
	}
	return nil
}

func trailingEOL(b []byte) []byte {
	switch {
	case len(b) >= 2 && b[len(b)-2] == '\r' && b[len(b)-1] == '\n':
		return b[len(b)-2:]
	case len(b) >= 1 && b[len(b)-1] == '\n':
		return b[len(b)-1:]
	}
	return nil
}

func clipLine(b []byte) string {
	if utf8.RuneCount(b) <= limits.MatchChars {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	n, i := 0, 0
	for i < len(b) && n < limits.MatchChars {
		_, w := utf8.DecodeRune(b[i:])
		i += w
		n++
	}
	return strings.ToValidUTF8(string(b[:i]), "\uFFFD") + "…"
}

// mkdirs opens the workspace directory below which the file p (as the caller named it: path) is
// written, one component at a time, creating missing ones (each counted against the quota) and
// following no symlink.
func (f *Files) mkdirs(path, p string, comps []string) (int, error) {
	ws := f.workspace
	dir, err := unix.Openat(ws.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, osErr("write_file", ws.path, err)
	}
	if err := f.writable(dir, path, nil); err != nil {
		unix.Close(dir)
		return -1, err
	}
	for i, c := range comps {
		next, err := unix.Openat(dir, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			if qerr := f.quota.fits(f, path, 1, 0); qerr != nil {
				unix.Close(dir)
				return -1, qerr
			}
			err = unix.Mkdirat(dir, c, 0o755)
			if err == nil {
				f.quota.add(1, 0)
			}
			if err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(dir)
				return -1, osErr("write_file", p, err)
			}
			next, err = unix.Openat(dir, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
		unix.Close(dir)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, deniedf("write_file: %s passes through %s, a symlink or not a directory; write_file follows no symlinks — write to a plain path under %s", path, c, ws.name())
		}
		if err != nil {
			return -1, osErr("write_file", p, err)
		}
		dir = next
		if err := f.writable(dir, path, comps[:i+1]); err != nil {
			unix.Close(dir)
			return -1, err
		}
	}
	return dir, nil
}

// Write writes content to a file inside the workspace, creating it (mode 0644) or replacing the
// content of a regular file. Directories on the way are created; no symlink is followed,
// neither on the way nor at the end. Content over WriteBytes is cut (at a character boundary)
// and the warning says so. The workspace stays within WorkspaceBytes and WorkspaceEntries: a
// write that would pass either fails and changes nothing.
func (f *Files) Write(path, content string) (warning string, err error) {
	if f.workspace == nil {
		return "", deniedf("write_file: this session has no workspace; start it with --out DIR")
	}
	p, err := f.absolute("write_file", path)
	if err != nil {
		return "", err
	}
	ws := f.workspace
	rel, ok := within(ws, filepath.Clean(p))
	if !ok {
		return "", deniedf("write_file: path %s is outside the workspace %s; write under it (a relative path is relative to it)", path, ws.path)
	}
	if rel == "." {
		return "", invalidf("write_file: %s is the workspace itself; name a file in it", path)
	}
	parts := strings.Split(rel, "/")
	if err := writableName(path, parts); err != nil {
		return "", err
	}
	if len(parts) > maxWriteDepth || len(rel) > maxWritePath {
		return "", invalidf("write_file: %s is %d directories and %d bytes deep in the workspace; use a path of at most %d directories and %d bytes", path, len(parts)-1, len(rel), maxWriteDepth-1, maxWritePath)
	}
	data, warning := f.capped(path, content)
	f.quota.mu.Lock()
	defer f.quota.mu.Unlock()
	dir, err := f.mkdirs(path, p, parts[:len(parts)-1])
	if err != nil {
		return "", err
	}
	defer unix.Close(dir)
	if err := f.writeAt(dir, parts[len(parts)-1], path, p, data); err != nil {
		return "", err
	}
	return warning, nil
}

// writableName refuses the names that rlm, and tools a user runs in a directory, read on their
// own: rlm.toml (rlm's project configuration), in any letter case (a case-insensitive file
// system opens it by any) and at any depth, and every component that begins with "." (.envrc,
// .git/hooks/…, .rlm/config.toml). A file there would decide what a later run started in the
// workspace does, with the user's keys. parts are the path's components below the workspace,
// with ".." already resolved, so a name reached through ".." or a directory created by the same
// call is the name checked; the refusal comes before anything is created.
func writableName(path string, parts []string) error {
	safe := slices.Clone(parts)
	bad := ""
	for i, c := range parts {
		switch {
		case strings.HasPrefix(c, "."):
			bad, safe[i] = c, strings.TrimLeft(c, ".")
			if safe[i] == "" {
				safe[i] = "dots"
			}
		case strings.EqualFold(c, home.ProjectFile):
			bad, safe[i] = c, c+".txt"
		}
	}
	switch {
	case bad == "":
		return nil
	case strings.HasPrefix(bad, "."):
		return deniedf("write_file: %s: names beginning with \".\" (here %s) are read by tools on their own (.envrc, .git/…, rlm's .rlm/), so write_file does not write them; write under a name without the leading dot instead, such as %s", path, bad, strings.Join(safe, "/"))
	}
	return deniedf("write_file: %s: %s is rlm's own configuration file, which a later run started in that directory would read, so write_file does not write it; write the content under another name, such as %s", path, bad, strings.Join(safe, "/"))
}

// Bounds of a path write_file creates below the workspace: the quota's measurement walks the
// workspace by path, one directory descriptor at a time.
const (
	maxWriteDepth = 32
	maxWritePath  = 1024
)

// writeAt writes data to the file base in the workspace directory dir, within the quota. The
// caller holds f.quota.mu.
func (f *Files) writeAt(dir int, base, path, p string, data string) error {
	var st unix.Stat_t
	exists := unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
	if !exists {
		if err := f.quota.fits(f, path, 1, int64(len(data))); err != nil {
			return err
		}
	}
	fd, err := unix.Openat(dir, base, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
	if errors.Is(err, unix.ELOOP) {
		return deniedf("write_file: %s is a symlink; write_file does not write through symlinks — remove it or choose another name", path)
	}
	if err != nil {
		return osErr("write_file", p, err)
	}
	fl := os.NewFile(uintptr(fd), p)
	defer fl.Close()
	fst, err := fl.Stat()
	if err != nil {
		return osErr("write_file", p, err)
	}
	if !fst.Mode().IsRegular() {
		return invalidf("write_file: %s is not a regular file", path)
	}
	var old int64
	if exists {
		old = fst.Size()
		if err := f.quota.fits(f, path, 0, int64(len(data))-old); err != nil {
			return err
		}
	} else {
		f.quota.add(1, 0)
	}
	f.quota.add(0, -old)
	if err := fl.Truncate(0); err != nil {
		f.quota.forget()
		return osErr("write_file", p, err)
	}
	n, err := fl.WriteString(data)
	f.quota.add(0, int64(n))
	if err != nil {
		f.quota.forget()
		return osErr("write_file", p, err)
	}
	return nil
}

// capped cuts content over WriteBytes at a character boundary, with the warning that says so.
func (f *Files) capped(path, content string) (data, warning string) {
	if len(content) <= f.lim.WriteBytes {
		return content, ""
	}
	cut := f.lim.WriteBytes
	for cut > 0 && !utf8.RuneStart(content[cut]) {
		cut--
	}
	return content[:cut], fmt.Sprintf("write_file: content was %d bytes, over the %d-byte cap; wrote only the first %d bytes to %s", len(content), f.lim.WriteBytes, cut, path)
}
