// Package evalset generates synthetic long-context tasks for the RLM runtime and scores the
// answers: needle-in-a-haystack retrieval in the style of S-NIAH, and aggregation over many
// records in the style of OOLONG. It is runner-agnostic: `rlm eval` (or any program) generates
// a task's input into a file with Generate, asks the question of its model with that file as
// the context, and hands what it observed back as Outcomes to Summarize.
//
// # Inputs
//
// Every input is a pure function of its Spec: the same kind, size and seed give the same bytes
// and the same answer on any machine (the random source is math/rand/v2's PCG, a fully specified
// generator; bounded draws and weights are integer arithmetic done here; a golden test pins the
// bytes). Generate streams the input through a 64 KiB buffer and computes the answer as it goes,
// so memory does not grow with the size: about 70 KB is allocated per task, 10 KB or 1 GB.
// Inputs are ASCII, so a byte offset is also a character offset; they are whole lines and never
// exceed Spec.Size (Task.Size is the exact size written). Generate is safe for concurrent use.
//
// A needle task (KindNeedle) is a haystack of filler with one sentence
// "The special magic number for <key> is <7 digits>." where <key> is a colour and an animal,
// e.g. "crimson-otter". Spec.Depth places it: 0 at the very start, 1 at the very end, 0.5 in
// the middle of the filler. Spec.Distractors adds further such sentences, at random depths, with
// other keys and other numbers. The filler is either prose (paragraphs of sentences built from a
// small grammar and word list) or a service log (timestamped lines whose message is such a
// sentence). No filler word is a key word, and prose holds no digits. The question asks for the
// target key's number.
//
// An aggregation task is a log of support tickets, one per line,
// "2025-03-14 08:15:02 | u04821 | billing | asked about the invoice because ...", after one
// header line. Each ticket's category is drawn from eight, with Zipf-like weights in an order
// that depends on the seed, so the counts differ markedly; the text also hints at the category
// through its vocabulary. The question asks how many tickets have one category (KindCount), which
// category is the most frequent (KindMostFrequent), or which of two categories is the more
// frequent, or "same" (KindCompare).
//
// # Scoring
//
// Score returns a number in [0, 1]. Answers are read tolerantly: case does not matter, the
// answer may be a whole sentence, and when it holds "Answer:" only the text after the last such
// marker counts. Digits grouped in thousands ("1,234,567") read as one number.
//   - Needle: 1 when the expected 7-digit number appears in the answer and no other number of
//     seven digits does (naming every candidate is not an answer), else 0.
//   - Count: partial credit that shrinks geometrically with the error. The answer's number is its
//     last number (or, with no digits, its last number word from "zero" to "twenty"); an exact
//     count scores 1 and each unit away multiplies the score by 0.75, so off by one scores 0.75,
//     off by two 0.5625 and off by ten about 0.056. No number scores 0. This follows the way
//     OOLONG grades numeric answers.
//   - Labels (most frequent, comparison): the first category the answer names is its choice
//     (a plural or singular "s" is forgiven); for a comparison the words "same", "equal",
//     "equally", "tie" and "tied" also name the answer "same". The choice scores 1 when it is
//     the expected label, or one of the labels tied for most frequent (Task.Accept), else 0.
//
// # Suites and reports
//
// Suite lists the standard specs per size: needles at depths 0.05, 0.5 and 0.95 in prose, a
// needle at 0.3 among eight distractors in log filler (fewer below 2.3 KB), and one task of each
// aggregation kind.
// Its default sizes are 10 KB, 100 KB, 1 MB and 10 MB; 1 GB runs only when asked for. Sizes are
// decimal (KB = 1000 bytes).
//
// Summarize scores each Outcome (an outcome with an error scores 0) and groups them by kind and
// target size: mean score as accuracy, error count, and the runner's token, call and wall-time
// totals. Report.Format prints them as an aligned table, with per-task means.
//
// # Fake-model solutions
//
// Solution returns a cell, in Go or JavaScript, that answers a task with the model API only
// (search and count over `context`, print, FINAL): the script a fake root model replays so
// that CI exercises the real validator and sandbox end to end without a real model.
package evalset
