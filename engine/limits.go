package engine

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/fault"
	"github.com/rlm-sandbox/rlm/limits"
)

// Limits are the caps of the model-facing API, as the model is told them: limits.API, where
// their defaults are declared. The zero value of a field means its default, never unlimited.
type Limits = limits.API

// Describe is the function's doc line with the placeholders of Limits filled in from l (its
// effective values), numbers written with thousands separators: "at most 16,000 per call".
func (f Func) Describe(l Limits) string {
	l = l.Effective()
	v := reflect.ValueOf(l)
	var pairs []string
	for i := range v.NumField() {
		pairs = append(pairs, "{"+v.Type().Field(i).Name+"}", Thousands(v.Field(i).Int()))
	}
	return strings.NewReplacer(pairs...).Replace(f.Doc)
}

// Thousands writes n with commas between groups of three digits, as the prompt writes every
// number: 32000000 → "32,000,000" (limits.Thousands).
func Thousands(n int64) string { return limits.Thousands(n) }

// CheckFinal is the one check of an answer's size: FINAL and FINAL_VAR, in both languages, end
// here (the REPL's runner calls it for every answer a cell records). An answer over l's
// FinalChars characters is an error of kind limit that says what to do instead.
func CheckFinal(l Limits, answer string) error {
	if n := utf8.RuneCountInString(answer); n > l.Effective().FinalChars {
		return FinalTooLong(l, int64(n), false)
	}
	return nil
}

// FinalTooLong is CheckFinal's error for an answer of n characters, or of more than n when
// atLeast is set (a serialisation stopped early to bound its memory).
func FinalTooLong(l Limits, n int64, atLeast bool) error {
	l = l.Effective()
	size := Thousands(n) + " characters"
	if atLeast {
		size = "more than " + size
	}
	return fault.New(fault.Limit, "the answer (FINAL or FINAL_VAR) is %s, over the cap of %s; answer with a summary instead, "+
		"and write the full result with write_file (at most %s bytes per file) if it is needed, naming the files in the answer",
		size, Thousands(int64(l.FinalChars)), Thousands(int64(l.WriteBytes)))
}

// TimeLimit is the cause of a cell's context when its time limit d passes: the worker sets it,
// and Interrupted reports it.
func TimeLimit(d time.Duration) error {
	return fault.New(fault.Timeout, "the cell ran past its time limit (%v) and was stopped; make it do less work per cell", d)
}

// Interrupted is the error of a cell that its context stopped: the context's cause when that
// says what stopped it (TimeLimit), else a timeout that says the deadline passed or the cell
// was stopped.
func Interrupted(ctx context.Context) error {
	cause := context.Cause(ctx)
	if fault.KindOf(cause) != "" {
		return cause
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return fault.Wrap(fault.Timeout, cause, "the cell ran past its deadline and was stopped; make it do less work per cell")
	}
	return fault.Wrap(fault.Timeout, cause, "the cell was stopped before it ended")
}
