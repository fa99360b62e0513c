package replay

import (
	"fmt"
	"regexp"
)

// Rule selects and repeats a reply: When is a regular expression (RE2) on the last user
// message, Model the exact model name asked for ("" = any), Times the requests it answers (0 or
// 1 = one, -1 = every one).
type Rule struct {
	When  string
	Model string
	Times int
}

// compile checks the rule and compiles When (nil when empty).
func (r Rule) compile() (*regexp.Regexp, error) {
	if r.Times < -1 {
		return nil, fmt.Errorf("times: %d is not a count; write 1 (once), N (N times) or -1 (every request)", r.Times)
	}
	if r.When == "" {
		return nil, nil
	}
	re, err := regexp.Compile(r.When)
	if err != nil {
		return nil, fmt.Errorf(`when: %q is not a regular expression (%v); write one in RE2 syntax (in JSON a character meant literally takes two backslashes, as in "\\(" or "\\.")`, r.When, err)
	}
	return re, nil
}

// Queue holds scripted values (replies) in the order they answer: a request takes the first
// whose rule matches it, and a value leaves the queue after its Times uses. The zero Queue is
// empty and ready. It is not safe for concurrent use: its owner locks.
type Queue[T any] struct {
	items []*queued[T]
}

type queued[T any] struct {
	v     T
	model string
	when  *regexp.Regexp
	left  int // -1 = unlimited
}

// Push appends v with its rule; the error says what is wrong with the rule.
func (q *Queue[T]) Push(rule Rule, v T) error {
	when, err := rule.compile()
	if err != nil {
		return err
	}
	left := rule.Times
	if left == 0 {
		left = 1
	}
	q.items = append(q.items, &queued[T]{v: v, model: rule.Model, when: when, left: left})
	return nil
}

// Take returns the first value whose rule matches the model and the last user message, and
// counts the use, unless keep (nil = never) says that this answer does not use the value up.
func (q *Queue[T]) Take(model, lastUser string, keep func(T) bool) (T, bool) {
	for i, it := range q.items {
		if it.model != "" && it.model != model || it.when != nil && !it.when.MatchString(lastUser) {
			continue
		}
		if keep != nil && keep(it.v) || it.left < 0 {
			return it.v, true
		}
		if it.left--; it.left == 0 {
			q.items = append(q.items[:i:i], q.items[i+1:]...)
		}
		return it.v, true
	}
	var zero T
	return zero, false
}

// Len is the number of values not used up.
func (q *Queue[T]) Len() int { return len(q.items) }
