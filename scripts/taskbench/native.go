package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// The stand-ins of the model API (see standin/).
var (
	//go:embed standin/standin.go
	standinGo string
	//go:embed standin/standin.js
	standinJS string
)

// goMain is the native program's main: the cell, then its answer written out.
const goMain = "package main\n\nfunc main() {\n\t_cellMain()\n\t_emitFinal()\n}\n"

// standinAsMain is the Go stand-in as a file of package main.
func standinAsMain() string {
	return regexp.MustCompile(`(?m)^package standin$`).ReplaceAllString(standinGo, "package main")
}

// buildGo writes each Go cell as a program of its own, dir/go/NAME (the wrapped cell, the
// stand-in, a main), all in one module, and builds them with the toolchain into dir/bin. It
// returns the binaries by name, and the cells that do not build with the reason.
func buildGo(dir string, cells map[string]string) (bins, failed map[string]string, err error) {
	root := filepath.Join(dir, "go")
	bins, failed = map[string]string{}, map[string]string{}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module taskbench\n\ngo 1.26\n"), 0o644); err != nil {
		return nil, nil, err
	}
	for name, cell := range cells {
		if err := writeGoProgram(filepath.Join(root, name), cell); err != nil {
			failed[name] = oneLine(err.Error())
			os.RemoveAll(filepath.Join(root, name))
		}
	}
	for round := 0; ; round++ {
		out, err := goBuild(root, filepath.Join(dir, "bin"))
		if err == nil {
			break
		}
		if round == 5 {
			return nil, nil, fmt.Errorf("go build of the native programs in %s: %v\n%s", root, err, out)
		}
		if err := fixOrDrop(root, out, failed); err != nil {
			return nil, nil, err
		}
	}
	for name := range cells {
		if failed[name] == "" {
			bins[name] = filepath.Join(dir, "bin", name)
		}
	}
	return bins, failed, nil
}

func writeGoProgram(dir, cell string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "standin.go"), []byte(standinAsMain()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(goMain), 0o644); err != nil {
		return err
	}
	src, err := wrapCell(cell)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "cell.go"), src, 0o644)
}

func goBuild(root, bin string) (string, error) {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-gcflags=-e", "-o", bin+"/", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// buildError is a line of go build's errors: the program and the error at a file of it.
var buildError = regexp.MustCompile(`^(?:\./)?([^/\s]+)/(\w+\.go:\d+:\d+: .*)$`)

// fixOrDrop reads go build's errors per program: unused variables are used (useUnused), and a
// program with any other error is dropped, into failed with the first error.
func fixOrDrop(root, out string, failed map[string]string) error {
	errs := map[string][]string{} // program -> its error lines
	for _, line := range strings.Split(out, "\n") {
		if m := buildError.FindStringSubmatch(line); m != nil {
			errs[m[1]] = append(errs[m[1]], m[2])
		}
	}
	if len(errs) == 0 {
		return fmt.Errorf("go build of the native programs in %s failed:\n%s", root, out)
	}
	for name, lines := range errs {
		dir := filepath.Join(root, name)
		text := strings.Join(lines, "\n")
		src, err := os.ReadFile(filepath.Join(dir, "cell.go"))
		if err != nil {
			return err
		}
		var fixed int
		if len(unusedVar.FindAllString(text, -1)) == len(lines) {
			src, fixed, err = useUnused(src, text)
		}
		if err != nil || fixed < len(lines) {
			failed[name] = "native build: " + oneLine(text)
			os.RemoveAll(dir)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "cell.go"), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeJS writes a JS cell after the stand-in, as one script for node.
func writeJS(dir, name, cell string) (string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "js"), 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "js", name+".js")
	return path, os.WriteFile(path, []byte(standinJS+"\n;\n"+cell+"\n"), 0o644)
}

// oneLine is the first line of s, at most 200 characters, and how many lines follow.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	first, rest, more := strings.Cut(s, "\n")
	if r := []rune(first); len(r) > 200 {
		first = string(r[:200]) + "…"
	}
	if more {
		first += fmt.Sprintf(" [+%d lines]", strings.Count(rest, "\n")+1)
	}
	return first
}
