package evalset

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// countBase is the partial credit per unit of error of a numeric answer: 0.75^|got-want|.
const countBase = 0.75

// sameWords answer a comparison whose two categories are equally frequent.
var sameWords = []string{"same", "equal", "equally", "tie", "tied"}

// numberWords read small counts written out in words.
var numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}

// afterMarker returns the text after the last "answer:" (any case), or all of s.
func afterMarker(s string) string {
	low := strings.ToLower(s)
	if i := strings.LastIndex(low, "answer:"); i >= 0 {
		return s[i+len("answer:"):]
	}
	return s
}

// digitRuns returns the maximal runs of digits in s. A ',', '_' or '\” between digit groups
// in the usual thousands layout (1 to 3 digits, then groups of exactly 3) is dropped, so that
// "1,234,567" reads as one number while "12,5" and "1234,567" read as two.
func digitRuns(s string) []string {
	var runs []string
	var cur []byte
	group, grouped := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			cur = append(cur, c)
			group++
		case strings.IndexByte(",_'", c) >= 0 && group > 0 && group <= 3 && (!grouped || group == 3) && groupOfThree(s[i+1:]):
			group, grouped = 0, true
		default:
			if len(cur) > 0 {
				runs = append(runs, string(cur))
			}
			cur, group, grouped = cur[:0], 0, false
		}
	}
	if len(cur) > 0 {
		runs = append(runs, string(cur))
	}
	return runs
}

// groupOfThree reports whether s starts with exactly three digits.
func groupOfThree(s string) bool {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n == 3
}

// scoreNeedle: 1 when the expected number appears and no other number of its length does.
func scoreNeedle(want, answer string) float64 {
	hit := false
	for _, r := range digitRuns(afterMarker(answer)) {
		switch {
		case r == want:
			hit = true
		case len(r) == len(want):
			return 0
		}
	}
	if hit {
		return 1
	}
	return 0
}

// scoreCount: 0.75^|got-want| for the answer's number (the last one when it gives several),
// 0 when it gives none.
func scoreCount(want, answer string) float64 {
	w, err := strconv.ParseInt(want, 10, 64)
	if err != nil {
		return 0
	}
	got, ok := answerNumber(afterMarker(answer))
	if !ok {
		return 0
	}
	return math.Pow(countBase, math.Abs(float64(got-w)))
}

// answerNumber reads the number an answer gives: its last run of digits, else its last number
// word.
func answerNumber(s string) (int64, bool) {
	if runs := digitRuns(s); len(runs) > 0 {
		n, err := strconv.ParseInt(runs[len(runs)-1], 10, 64)
		return n, err == nil
	}
	words := wordsOf(s)
	for i := len(words) - 1; i >= 0; i-- {
		if n := slices.Index(numberWords, words[i]); n >= 0 {
			return int64(n), true
		}
	}
	return 0, false
}

// scoreLabel: 1 when the first category the answer names (or, for a comparison, the first word
// meaning "the same") is the expected one or one it accepts.
func scoreLabel(task Task, answer string) float64 {
	got := ""
	for _, w := range wordsOf(afterMarker(answer)) {
		if got = labelOf(w, task); got != "" {
			break
		}
	}
	if got == "" {
		return 0
	}
	if strings.EqualFold(got, task.Answer) || slices.ContainsFunc(task.Accept, func(a string) bool { return strings.EqualFold(a, got) }) {
		return 1
	}
	return 0
}

// labelOf returns the label word w names, allowing a plural or singular "s", or "".
func labelOf(w string, task Task) string {
	for _, l := range task.Labels {
		if l = strings.ToLower(l); w == l || w+"s" == l || w == l+"s" {
			return l
		}
	}
	if task.Kind == KindCompare && slices.Contains(sameWords, w) {
		return "same"
	}
	return ""
}

// wordsOf splits s, lower-cased, into words of letters, digits and '-'.
func wordsOf(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	})
}
