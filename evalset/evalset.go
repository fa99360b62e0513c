package evalset

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// The task kinds. KindNeedle is the needle-in-a-haystack family; the others are aggregations over
// a log of records.
const (
	KindNeedle       = "niah"        // find the magic number of one key
	KindCount        = "agg-count"   // how many records have category X
	KindMostFrequent = "agg-most"    // which category is the most frequent
	KindCompare      = "agg-compare" // which of two categories is more frequent, or "same"
)

// The filler styles of a needle task's haystack.
const (
	FillerProse = "prose" // paragraphs of generated sentences (the default)
	FillerLog   = "log"   // timestamped service log lines
)

// Size units, decimal (as disk sizes are usually quoted).
const (
	KB int64 = 1000
	MB int64 = 1000 * KB
	GB int64 = 1000 * MB
)

// MinSize is the smallest input Generate accepts.
const MinSize = 1 * KB

// MaxDistractors caps Spec.Distractors: every needle has its own key.
const MaxDistractors = 200

// DefaultSizes are the sizes Suite uses when given none: 1 GB runs only when asked for.
var DefaultSizes = []int64{10 * KB, 100 * KB, 1 * MB, 10 * MB}

// Spec describes one task to generate. The zero values of the optional fields are the defaults.
type Spec struct {
	Kind string // one of the Kind constants
	Size int64  // target size in bytes (= characters: the output is ASCII); the result is at most this
	Seed int64  // everything, bytes and answer, is a function of the Spec

	Depth       float64 // KindNeedle: where the needle sits, 0 (start) to 1 (end)
	Distractors int     // KindNeedle: further needles with other keys and numbers
	Filler      string  // KindNeedle: FillerProse (default) or FillerLog
}

// Task is a generated task: the question, the expected answer and what the scorer needs.
type Task struct {
	ID, Kind, Question, Answer string

	Size int64 // bytes written
	Seed int64
	Spec Spec // what generated it

	// Labels are the names the question is about: the needle's key (KindNeedle), the category
	// asked about (KindCount), the two compared (KindCompare), every category (KindMostFrequent).
	Labels []string
	// Accept holds further answers that also score 1 (the categories tied for most frequent).
	Accept []string
	// Offset is the character offset of the needle sentence (KindNeedle), else -1.
	Offset int64
}

// Generate streams the input of spec to w and returns its task. Memory use does not depend on
// spec.Size; the answer is computed while the input is written.
func Generate(w io.Writer, spec Spec) (Task, error) {
	spec, err := normalize(spec)
	if err != nil {
		return Task{}, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var t Task
	if spec.Kind == KindNeedle {
		t, err = generateNeedle(bw, spec)
	} else {
		t, err = generateRecords(bw, spec)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return Task{}, fmt.Errorf("evalset: generate %s: %w", taskID(spec), err)
	}
	return t, nil
}

// Score grades answer against task, in [0, 1], by the rules in the package documentation.
func Score(task Task, answer string) float64 {
	switch task.Kind {
	case KindNeedle:
		return scoreNeedle(task.Answer, answer)
	case KindCount:
		return scoreCount(task.Answer, answer)
	case KindMostFrequent, KindCompare:
		return scoreLabel(task, answer)
	}
	return 0
}

// Suite returns the standard specs for each size (DefaultSizes when sizes is empty): needles near
// the start, middle and end, a needle among distractors in log filler, and the three aggregations.
func Suite(sizes []int64) []Spec {
	if len(sizes) == 0 {
		sizes = DefaultSizes
	}
	var out []Spec
	for _, size := range sizes {
		out = append(out, suiteFor(size)...)
	}
	return out
}

// Solution returns a cell in lang ("go" or "js") that solves task with the model API and records
// the answer with FINAL: what a scripted fake root model sends, to test the plumbing end to end.
// It returns "" for an unknown kind or language.
func Solution(task Task, lang string) string {
	return solution(task, lang)
}

// Outcome is what a runner observed for one task. Tokens and Calls are the model cost.
type Outcome struct {
	Task   Task
	Answer string
	Err    error // the run failed: the outcome scores 0
	Tokens int
	Calls  int
	Wall   time.Duration
}

// Row aggregates the outcomes of one kind and size. Tokens, Calls and Wall are totals.
type Row struct {
	Kind     string
	Size     int64 // the target size (Spec.Size)
	N        int   // outcomes
	Errors   int   // outcomes with Err set
	Accuracy float64
	Tokens   int
	Calls    int
	Wall     time.Duration
}

// Report is the summary of an evaluation: one row per kind and size, in a stable order, and the
// total over all outcomes (its Kind is "total" and its Size 0).
type Report struct {
	Rows  []Row
	Total Row
}

// Summarize scores the outcomes and aggregates them per kind and size.
func Summarize(outcomes []Outcome) Report {
	return summarize(outcomes)
}

// Format writes r as an aligned table: accuracy, errors, and per-task means of tokens, calls and
// wall time.
func (r Report) Format(w io.Writer) error {
	return formatReport(w, r)
}

// ParseSize reads a size such as "10KB", "1.5MB", "1GB", "64MiB" or "4096".
func ParseSize(s string) (int64, error) {
	return parseSize(s)
}

// FormatSize writes n in the largest unit that keeps it short: "10KB", "64MiB", "1GB", "1234B".
func FormatSize(n int64) string {
	return formatSize(n)
}
