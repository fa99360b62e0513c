package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rlm-sandbox/rlm/limits"
	"github.com/rlm-sandbox/rlm/source"
	"github.com/rlm-sandbox/rlm/termsafe"
	"github.com/rlm-sandbox/rlm/tools"
	"github.com/rlm-sandbox/rlm/validator"
)

func newValidateCmd() *cobra.Command {
	var lang string
	var asJSON, policy bool
	cmd := &cobra.Command{
		Use:         "validate [--lang go|js] [--json] FILE...",
		Annotations: map[string]string{noHome: ""},
		Short:       "Check source files against the sandbox policy without running them",
		Example: `  rlm validate examples/escape.js          # exit 1: each finding as FILE:LINE:COL: RULE: message
  rlm validate --lang go --json cell.txt   # a Go cell in a .txt file, findings as JSON
  rlm validate --policy                    # the effective policy`,
		Long: `Validate parses each FILE once and checks it against the sandbox policy.

The language comes from --lang, or else from each file's extension (.go, .js, .mjs, .cjs,
optionally followed by .txt).
Findings are printed as FILE:LINE:COL: RULE: message, one per line.
--json prints one object instead:
  {"files": [{"file": F, "lang": "go"|"js", "findings": [
      {"pos": {"file", "offset", "line", "col"}, "rule", "class", "message"}]}],
   "findings": N}
--policy prints the effective policy as JSON and exits.

Exit status: 0 no findings, 1 findings, 2 usage or I/O error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if policy {
				return printJSON(cmd.OutOrStdout(), validator.Policy{}.Effective())
			}
			if len(args) == 0 {
				return usagef("validate needs at least one FILE (or --policy)")
			}
			return validateFiles(cmd.OutOrStdout(), cmd.ErrOrStderr(), lang, args, asJSON)
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "", "language of every FILE: go or js (default: from the extension)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the findings as one JSON object")
	cmd.Flags().BoolVar(&policy, "policy", false, "print the effective policy as JSON and exit")
	return cmd
}

type fileReport struct {
	File     string           `json:"file"`
	Lang     source.Lang      `json:"lang"`
	Findings []source.Finding `json:"findings"`
}

func validateFiles(stdout, stderr io.Writer, langFlag string, files []string, asJSON bool) error {
	var forced source.Lang
	if langFlag != "" {
		l, err := source.ParseLang(langFlag)
		if err != nil {
			return usageError{err}
		}
		forced = l
	}
	reports := []fileReport{}
	total, ioErrors := 0, 0
	for _, name := range files {
		rep, err := validateFile(name, forced)
		if err != nil {
			fmt.Fprintf(stderr, "rlm: %v\n", err)
			ioErrors++
			continue
		}
		total += len(rep.Findings)
		reports = append(reports, rep)
		if !asJSON {
			for _, f := range rep.Findings {
				fmt.Fprintln(stdout, f.Error())
			}
		}
	}
	if asJSON {
		if err := printJSON(stdout, map[string]any{"files": reports, "findings": total}); err != nil {
			return err
		}
	}
	switch {
	case ioErrors > 0:
		return silent{exitUsage}
	case total > 0:
		return silent{exitFailed}
	}
	return nil
}

func validateFile(name string, forced source.Lang) (fileReport, error) {
	lang := forced
	if lang == "" {
		l, ok := source.LangOf(name)
		if !ok {
			return fileReport{}, fmt.Errorf("%s: cannot tell the language from the extension; use --lang go or --lang js", name)
		}
		lang = l
	}
	src, err := readLimited(name, limits.SourceBytes)
	if err != nil {
		return fileReport{}, err
	}
	res, err := validator.Validate(lang, name, src, validator.Policy{})
	if err != nil {
		return fileReport{}, err
	}
	findings := []source.Finding(res.Findings)
	if findings == nil {
		findings = []source.Finding{}
	}
	return fileReport{File: name, Lang: lang, Findings: findings}, nil
}

// readLimited reads a source file the user names (rlm validate FILE, rlm run --script, the
// REPL's :load): at most limit+1 bytes, enough for the validator to see that a file is over the
// size cap without reading a huge file into memory. It opens only a regular file, and never
// waits on a fifo (tools.OpenRegular).
func readLimited(name string, limit int) ([]byte, error) {
	f, err := tools.OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(limit)+1))
}

// printJSON writes v as indented JSON. Its strings are escaped for a terminal too (termsafe.JSON):
// the output stays valid JSON that decodes to the same values. &, < and > stay as they are (it is
// not HTML, and an answer "A & B" reads as written).
func printJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := termsafe.Raw(w).Write(termsafe.JSON(b.Bytes()))
	return err
}

// isArgsError reports cobra's own argument errors (unknown command, wrong argument count).
func isArgsError(err error) bool {
	var ue usageError
	if errors.As(err, &ue) {
		return true
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
		strings.Contains(msg, "arg(s)")
}
