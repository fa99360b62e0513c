package evalset

import (
	"math"
	"testing"
)

var (
	needleTask  = Task{Kind: KindNeedle, Answer: "4821937", Labels: []string{"crimson-otter"}}
	countTask   = Task{Kind: KindCount, Answer: "42", Labels: []string{"billing"}}
	mostTask    = Task{Kind: KindMostFrequent, Answer: "refunds", Labels: categories}
	tiedTask    = Task{Kind: KindMostFrequent, Answer: "billing", Accept: []string{"billing", "login"}, Labels: categories}
	compareTask = Task{Kind: KindCompare, Answer: "shipping", Labels: []string{"login", "shipping"}}
	sameTask    = Task{Kind: KindCompare, Answer: "same", Labels: []string{"login", "shipping"}}
)

var scoreTests = []struct {
	task   Task
	answer string
	want   float64
}{
	{needleTask, "4821937", 1},
	{needleTask, "The special magic number for crimson-otter is 4821937.", 1},
	{needleTask, "4,821,937", 1},
	{needleTask, "Answer: 4821937", 1},
	{needleTask, "48219370", 0},
	{needleTask, "482193", 0},
	{needleTask, "1234567", 0},
	{needleTask, "either 1234567 or 4821937", 0},
	{needleTask, "4821937 (found on line 12)", 1},
	{needleTask, "", 0},
	{needleTask, "not found", 0},
	{countTask, "42", 1},
	{countTask, "There are 42 tickets with the category billing.", 1},
	{countTask, "43", 0.75},
	{countTask, "40", 0.5625},
	{countTask, "Out of 1,500 tickets, 42", 1},
	{countTask, "I counted 41. Answer: 42", 1},
	{countTask, "forty-two", 0},
	{countTask, "none", 0},
	{countTask, "", 0},
	{Task{Kind: KindCount, Answer: "3"}, "three", 1},
	{Task{Kind: KindCount, Answer: "0"}, "zero tickets", 1},
	{mostTask, "refunds", 1},
	{mostTask, "REFUNDS", 1},
	{mostTask, "\"refunds\"", 1},
	{mostTask, "refund", 1},
	{mostTask, "The most frequent category is refunds.", 1},
	{mostTask, "refunds, followed by billing", 1},
	{mostTask, "billing, then refunds", 0},
	{mostTask, "the most frequent is unknown", 0},
	{tiedTask, "login", 1},
	{tiedTask, "Billing", 1},
	{tiedTask, "shipping", 0},
	{compareTask, "shipping", 1},
	{compareTask, "Shipping occurs more often than login.", 1},
	{compareTask, "login", 0},
	{compareTask, "same", 0},
	{sameTask, "same", 1},
	{sameTask, "They occur equally often.", 1},
	{sameTask, "shipping", 0},
	{Task{Kind: "other", Answer: "x"}, "x", 0},
}

func TestScore(t *testing.T) {
	for _, tt := range scoreTests {
		if got := Score(tt.task, tt.answer); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Score(%s %q, %q) = %v, want %v", tt.task.Kind, tt.task.Answer, tt.answer, got, tt.want)
		}
	}
}

func TestDigitRuns(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"1,234,567", []string{"1234567"}},
		{"1_234_567", []string{"1234567"}},
		{"12,5", []string{"12", "5"}},
		{"1234,567", []string{"1234", "567"}},
		{"1,2345", []string{"1", "2345"}},
		{"1,234,5678", []string{"1234", "5678"}},
		{"a 12 b 345", []string{"12", "345"}},
		{"1234567.", []string{"1234567"}},
		{"", nil},
	}
	for _, tt := range tests {
		got := digitRuns(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("digitRuns(%q) = %q, want %q", tt.in, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("digitRuns(%q) = %q, want %q", tt.in, got, tt.want)
			}
		}
	}
}

// Generated tasks score 1 for their own answer, and for the answer in a sentence.
func TestScoreOwnAnswers(t *testing.T) {
	for _, spec := range Suite([]int64{10 * KB, 30 * KB}) {
		task, _ := generate(t, spec)
		for _, a := range []string{task.Answer, "The answer is " + task.Answer + "."} {
			if got := Score(task, a); got != 1 {
				t.Errorf("%s: Score(%q) = %v, want 1", task.ID, a, got)
			}
		}
	}
}
