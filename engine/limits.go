package engine

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rlm-sandbox/rlm/fault"
)

// Limits are the caps of the model-facing API, as the model is told them: per call, per cell
// and per run. The zero value of a field means its default (DefaultLimits); zero never means
// unlimited. The API's doc lines name these fields as placeholders ("at most {PeekChars} per
// call"), and Func.Describe fills them in from the limits a run actually enforces, so the
// system prompt cannot state a cap the sandbox does not apply.
//
// The packages that enforce a cap (tools for the context and file tools, the engines for output
// and answers, the controller for sub-calls) take their values from here; their own defaults
// equal these (tested in repl).
type Limits struct {
	PeekChars     int // characters one peek returns
	SearchResults int // matches one search returns
	MatchChars    int // characters of a match's text and line text
	Chunks        int // descriptors one chunk returns
	TextChars     int // characters text(ctx) returns; larger contexts need chunk/peek
	ReadChars     int // characters one read_file returns
	GrepResults   int // matches one grep returns
	WriteBytes    int // bytes one write_file writes
	FileCalls     int // file-tool calls (read_file, list_dir, file_info, grep) per session
	OutputChars   int // characters of printed output kept per cell
	FinalChars    int // characters of a FINAL or FINAL_VAR answer
	SubCalls      int // llm_query calls per run, batched slots included
	Batches       int // llm_query_batched calls per run
	BatchWidth    int // sub-calls of one batch run at a time
}

// DefaultLimits are the defaults of DESIGN's limits table (docs/design.md).
var DefaultLimits = Limits{
	PeekChars:     16_000,
	SearchResults: 200,
	MatchChars:    500,
	Chunks:        5_000,
	TextChars:     32_000_000,
	ReadChars:     50_000,
	GrepResults:   100,
	WriteBytes:    50_000,
	FileCalls:     50,
	OutputChars:   OutputCap,
	FinalChars:    1_000_000,
	SubCalls:      32,
	Batches:       8,
	BatchWidth:    4,
}

// Effective returns l with every zero or negative field replaced by its default.
func (l Limits) Effective() Limits {
	v := reflect.ValueOf(&l).Elem()
	def := reflect.ValueOf(DefaultLimits)
	for i := range v.NumField() {
		if v.Field(i).Int() <= 0 {
			v.Field(i).Set(def.Field(i))
		}
	}
	return l
}

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

// Thousands writes n with commas between groups of three digits: 32000000 → "32,000,000".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// CheckFinal is the one check of an answer's size: FINAL and FINAL_VAR, in both languages, end
// here (the REPL's runner calls it for every answer a cell records). An answer over FinalChars
// characters is an error of kind limit that says what to do instead.
func (l Limits) CheckFinal(answer string) error {
	if n := utf8.RuneCountInString(answer); n > l.Effective().FinalChars {
		return l.FinalTooLong(int64(n), false)
	}
	return nil
}

// FinalTooLong is CheckFinal's error for an answer of n characters, or of more than n when
// atLeast is set (a serialisation stopped early to bound its memory).
func (l Limits) FinalTooLong(n int64, atLeast bool) error {
	l = l.Effective()
	size := Thousands(n) + " characters"
	if atLeast {
		size = "more than " + size
	}
	return fault.New(fault.Limit, "the answer (FINAL or FINAL_VAR) is %s, over the cap of %s; answer with a summary instead, "+
		"and write the full result with write_file (at most %s bytes per file) if it is needed, naming the files in the answer",
		size, Thousands(int64(l.FinalChars)), Thousands(int64(l.WriteBytes)))
}
