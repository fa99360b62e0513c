package source

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Lang is a source language.
type Lang string

// The languages.
const (
	Go Lang = "go" // Go, run by yaegi
	JS Lang = "js" // JavaScript, run by goja
)

// ParseLang turns "go", "js" or "javascript" into a Lang.
func ParseLang(s string) (Lang, error) {
	switch strings.ToLower(s) {
	case "go":
		return Go, nil
	case "js", "javascript":
		return JS, nil
	}
	return "", fmt.Errorf("unknown language %q: use go or js", s)
}

// LangOf returns the language a file name's extension implies. A trailing .txt is ignored, so
// cells kept out of the Go toolchain's way (cell.go.txt) are still recognised.
func LangOf(filename string) (Lang, bool) {
	name := strings.TrimSuffix(strings.ToLower(filename), ".txt")
	switch filepath.Ext(name) {
	case ".go":
		return Go, true
	case ".js", ".mjs", ".cjs":
		return JS, true
	}
	return "", false
}
