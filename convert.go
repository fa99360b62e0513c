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

// converted reports whether a converter takes the file at path.
func (s *settings) converted(path string) bool {
	_, ok := s.Convert[convert.Ext(path)]
	return ok
}

// convertInputs puts in place of each context file a converter takes the text it gives (from
// the index cache when the file has not changed since), and tells the controller which file and
// program each text came from. It says on the progress lines what it did, and how long it took.
func (r *run) convertInputs(ctx context.Context) error {
	texts := cache.Cache{Dir: home.Converted(r.Home)}
	for i, p := range r.files {
		c, ok := r.Convert[convert.Ext(p)]
		if !ok {
			continue
		}
		t, err := texts.Convert(ctx, "file "+r.Files[i], p, c.spec())
		if err != nil {
			return err
		}
		r.texts = append(r.texts, t)
		r.files[i] = t.Path
		r.converted = append(r.converted, controller.Converted{Path: t.Path, Original: t.Original, Converter: t.Program})
		r.noteConversion(t)
	}
	return nil
}

// noteConversion says on the progress lines and in the log how an input became text.
func (r *run) noteConversion(t cache.Text) {
	name := filepath.Base(t.Original)
	var msg string
	switch {
	case t.Cached:
		msg = fmt.Sprintf("%s: its text (%d bytes, by %s) from the index cache", name, t.Bytes, t.Program)
	case t.Kept:
		msg = fmt.Sprintf("%s: converted to text by %s in %s (%d bytes), kept in the index cache", name, t.Program, t.Took.Round(time.Millisecond), t.Bytes)
	default:
		msg = fmt.Sprintf("%s: converted to text by %s in %s (%d bytes), not cached: it changed in the last few seconds", name, t.Program, t.Took.Round(time.Millisecond), t.Bytes)
	}
	r.rec.Log.Info(msg, "task", r.task)
	r.prog.line("%s", msg)
}

// closeTexts removes the texts converted for this run only.
func (r *run) closeTexts() {
	for _, t := range r.texts {
		t.Close()
	}
}
