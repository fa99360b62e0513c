package rlm

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/rlm-sandbox/rlm/controller"
	"github.com/rlm-sandbox/rlm/internal/convert"
	"github.com/rlm-sandbox/rlm/internal/convert/cache"
	"github.com/rlm-sandbox/rlm/internal/home"
)

// Converter turns input files of one type into text: a command of the user's, run by the parent
// as the user (never a shell, never the sandbox) before the run, with a reduced environment,
// stdin closed, and its output and time capped. Options.Convert keys converters by extension.
type Converter struct {
	// Exec is the program and its words; {path} (required) is replaced by the file's absolute
	// path: ["pdftotext", "-layout", "{path}", "-"]. The text is what it prints on stdout.
	Exec      []string
	Timeout   time.Duration // one conversion; 0 = 2 min (limits.ConvertTimeout)
	MaxOutput int64         // bytes of text; 0 = 64 MiB (limits.ConvertBytes)
}

func (c Converter) spec() convert.Spec {
	return convert.Spec{Exec: c.Exec, Timeout: c.Timeout, MaxBytes: c.MaxOutput}
}

// checkConverters checks Options.Convert: each key an extension, each command runnable as one.
func checkConverters(m map[string]Converter) error {
	for _, ext := range slices.Sorted(maps.Keys(m)) {
		if err := convert.CheckExt(ext); err != nil {
			return &OptionError{"Convert", err}
		}
		if err := convert.Check(m[ext].spec()); err != nil {
			return &OptionError{"Convert", fmt.Errorf("%s: %w", ext, err)}
		}
	}
	return nil
}

// Conversion says how one input became text (Options.Convert, SessionOptions.Convert).
type Conversion struct {
	Original  string        // the file converted, absolute
	Text      string        // the text file the code reads in its place
	Converter string        // the program, as configured (the command's first word)
	Cached    bool          // the text came from the index cache: the converter did not run
	Kept      bool          // the text is in the index cache for the next run or session
	Took      time.Duration // the conversion's time (0 when Cached)
	Bytes     int64         // the text's size
}

// String is the line rlm prints of it: "contract.pdf: converted to text by pdftotext in 41ms
// (5210 bytes), kept in the index cache", or "…: its text (5210 bytes, by pdftotext) from the
// index cache".
func (c Conversion) String() string {
	name, took := filepath.Base(c.Original), c.Took.Round(time.Millisecond)
	switch {
	case c.Cached:
		return fmt.Sprintf("%s: its text (%d bytes, by %s) from the index cache", name, c.Bytes, c.Converter)
	case c.Kept:
		return fmt.Sprintf("%s: converted to text by %s in %s (%d bytes), kept in the index cache", name, c.Converter, took, c.Bytes)
	}
	return fmt.Sprintf("%s: converted to text by %s in %s (%d bytes), not cached: it changed in the last few seconds", name, c.Converter, took, c.Bytes)
}

// conversionOf describes a converted text.
func conversionOf(t cache.Text) Conversion {
	return Conversion{Original: t.Original, Text: t.Path, Converter: t.Program, Cached: t.Cached, Kept: t.Kept, Took: t.Took, Bytes: t.Bytes}
}

// convertFiles puts in place of each file of abs that a converter of conv takes the text it
// gives, from the index cache under RLM_HOME dir when the file has not changed since: what runs
// and sessions do with their inputs. names are the files as given, for messages. On an error
// the texts made so far are removed; else the caller closes them (closeTexts) when done.
func convertFiles(ctx context.Context, dir string, conv map[string]Converter, names, abs []string) ([]cache.Text, error) {
	c := cache.Cache{Dir: home.Converted(dir)}
	var texts []cache.Text
	for i, p := range abs {
		spec, ok := conv[convert.Ext(p)]
		if !ok {
			continue
		}
		t, err := c.Convert(ctx, "file "+names[i], p, spec.spec())
		if err != nil {
			closeTexts(texts)
			return nil, err
		}
		texts = append(texts, t)
		abs[i] = t.Path
	}
	return texts, nil
}

// closeTexts removes the texts converted for one run or session only.
func closeTexts(texts []cache.Text) {
	for _, t := range texts {
		t.Close()
	}
}

// convertInputs puts the text of each context file a converter takes in its place
// (convertFiles), tells the controller which file and program each text came from, and says
// on the progress lines and in the log what it did and how long it took.
func (r *run) convertInputs(ctx context.Context) error {
	texts, err := convertFiles(ctx, r.Home, r.Convert, r.Files, r.files)
	if err != nil {
		return err
	}
	r.texts = texts
	for _, t := range texts {
		r.converted = append(r.converted, controller.Converted{Path: t.Path, Original: t.Original, Converter: t.Program})
		msg := conversionOf(t).String()
		r.rec.Log.Info(msg, "task", r.task)
		r.prog.line("%s", msg)
	}
	return nil
}

// closeTexts removes the texts converted for this run only.
func (r *run) closeTexts() { closeTexts(r.texts) }
