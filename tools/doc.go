// Package tools holds the trusted host side of the tools that model code uses
// to explore its input: the context store behind length, peek, search, count,
// chunk, text and plan_slices, and the caps that bound what one call returns.
//
// # Store and documents
//
// Open maps each --ctx file read-only (mmap, never read into the heap) and
// builds a sparse index: for every 32 KiB block, the character and line
// counts before it (25 bytes per block in memory, 0.08% of the file). A Store
// holds the documents in order, named ctx0, ctx1, …; every operation is a
// method of one Doc. The REPL binds `context` to ctx0 and offers the others by
// name; there is no concatenated view, so an offset always belongs to one file.
//
// # Indexes: built once per input
//
// Exact counts need one scan of the whole file: in parallel over GOMAXPROCS
// goroutines, through ASCII 32 bytes at a time, '\n' by bytes.Count, the pages
// of each scanned 2 MiB unmapped again so the scan does not stay in the
// process's RSS. Indexes keeps what one scan found, so that no input is
// scanned twice: in memory, for the run's parent (the first message and the
// session share it), and in a cache directory (rlm uses RLM_HOME/index), for
// the next run. The confined worker receives each index from its parent as a
// sealed descriptor and reads it with OpenIndexed instead of scanning.
//   - A cache file is named by the file's device and inode, and is used only
//     if the size, modification and change times it records still match, its
//     CRC-32C holds, and the file's first and last 4 KiB still match theirs.
//     Anything else is rebuilt and replaced (write to a temporary file, then
//     rename, so concurrent runs never see half an index). A file changed in
//     the last few seconds is not cached: within one timestamp tick a second
//     change would go unseen. StaleIndexes lists files to delete (rlm clean).
//   - A directory that cannot be written (read-only, full) leaves the indexes
//     in memory, with one warning.
//   - The encoding (indexfile.go) takes 10 bytes per block (320 KB per GB).
//     Decoding checks every field against what a block can hold, so a corrupt
//     or hostile index can make counts wrong but never a read out of bounds;
//     OpenIndexed also checks that it describes the file it is given.
//   - Why not index lazily, so the first cell need not wait: length(context),
//     the first message's counts, and every peek near the end need the counts
//     of everything before, so a lazy index would only move the wait to the
//     first cell; exact counts are cheaper to get fast than to approximate.
//
// # Characters
//
// Offsets and lengths count characters: Unicode code points as UTF-8 decodes
// them, where each byte that is not part of a valid sequence counts as one
// character and reads back as U+FFFD. Hence a Slice's Text always holds
// exactly End-Start characters, and peeking is near constant time: a binary
// search in the index and a scan of at most one block.
//   - NUL bytes are ordinary characters (U+0000), returned verbatim.
//   - CRLF is kept verbatim: '\r' is a character and counts in offsets. Lines
//     end at '\n' only. A Match's Text drops its line's "\n" or "\r\n". In
//     RE2, (?m)$ matches before '\n' only: write \r?$ for CRLF files.
//   - An empty file has length 0 and one (empty) line; Peek(0, n) returns an
//     empty slice, Chunk and PlanSlices return no slices.
//   - A single 100 MB line needs nothing special: the index is by bytes, not
//     lines. A Match's Text is a window of the line (see LineChars); the one
//     cost is that a candidate line is verified by package regexp in full.
//
// # Operations and caps
//
// Limits sets the caps; the zero value of a field means its default (declared in package
// limits) and zero never means unlimited. Errors wrap ErrLimit, ErrInvalid, ErrChanged,
// ErrClosed or ErrInternal and say how to fix the call, e.g. "peek length
// 50000 exceeds 16000; peek smaller slices or search first".
//   - Length, Lines, Size: free metadata.
//   - Peek(off, n): at most PeekChars (16,000) characters; a slice past the
//     end is cut short; an offset past the end reads as "" (so "peek until empty"
//     loops end), and a negative offset is an error.
//   - Text(): the whole document as one string, if it has at most TextChars
//     (32,000,000) characters; else an ErrLimit error that names peek and
//     chunk. The string is a copy (the mapping may change under it); invalid
//     bytes read as U+FFFD, as in Peek.
//   - Search(re, from): RE2 syntax (package regexp, linear time). Matches are
//     the leftmost-first, non-overlapping matches that regexp.FindAllIndex
//     would report over the whole document, empty matches included, numbered
//     from 0. It returns a page of at most SearchResults (200) of them,
//     starting with match number from, as {Start, End, Line, Text, LineText,
//     Ref}: Line is the 1-based line of Start, Text the matched text and
//     LineText the line holding Start, each cut to LineChars (500)
//     characters with "…" marking a cut; a long line's window starts at the
//     line start (if Start is within its first 4/5) or LineChars/5 before
//     Start. Total is always the exact number of matches (the whole document
//     is scanned) and Capped says matches follow the page. A page after the
//     first counts the matches of every search part, then scans again only
//     the parts that hold the page.
//   - Count(re): the same matches, counted, uncapped.
//   - Tally(re): the same matches (or the text of the regex's first capture
//     group), each distinct text with its count, most frequent first (ties by
//     text), at most TallyResults (1,000), with Distinct and Total for the
//     whole document. (?i) counts texts that differ only in case as one, in
//     lower case. One scan, counted per task and merged; more than
//     limits.TallyDistinct distinct texts (or limits.TallyBytes of them) is an
//     ErrLimit error.
//   - Chunk(size, overlap): descriptors [i*(size-overlap), +size) cut at the
//     end, at most Chunks (5,000); too many is an error naming the smallest
//     size that fits. Text comes from Peek.
//   - PlanSlices(keywords, max): finds the keywords (literal text, case
//     insensitive), puts about PeekChars/16 characters of context around each
//     occurrence, merges neighbours while a slice stays within PeekChars (so
//     one Peek reads it), and keeps the max slices with the most hits, in
//     document order. With no occurrence at all it falls back to max uniform
//     slices covering the document (Uniform is set; such slices may exceed
//     PeekChars and need several peeks).
//
// # References
//
// Every Slice, Match and Span carries a Ref, "ctx0[1200:1800]": document
// name, then start (inclusive) and end (exclusive) in characters. A final
// answer cites these; ParseRef reads them back.
//
// # No call budget
//
// The caps bound what one call returns, never how many calls a session makes:
// data that flows through code is not the model's context (only what code
// prints is), and a loop that reads a 1 GB context in 16,000-character pieces
// is normal. The cell timeout and the worker's memory bound such loops.
// Counter is a budget of uses for callers that need one (the REPL counts the
// file-tool calls of a session with it); an exhausted Counter fails with
// ErrLimit and says what to do.
//
// # Search engine
//
// Searches run in parallel (GOMAXPROCS workers) over parts of 64 KiB to 8 MiB
// that end at a '\n'. An engine (the engine interface) is picked per pattern
// and document:
//   - a pattern that is one literal: bytes.Index / bytes.Count per part;
//   - a pattern whose matches are runs of one character class (\w+, \S+,
//     [a-z]+, \b\w+\b, possibly captured whole: runClass): a loop over a byte
//     table per part, no regexp (in the \b form, a run with a character that
//     is not an ASCII word character goes to regexp with its context);
//   - a pattern no match of which contains '\n' (known from the program, or
//     checked over the document by a DFA, skipping between occurrences of a
//     literal prefix when there is one): line by line. Candidate lines come
//     from a set of literals one of which every match contains (taken from
//     the syntax tree; bytes.Index) and/or a lazy DFA of the pattern with
//     ^ $ \b and the like relaxed to "true", a filter with no false
//     negatives. The DFA scans four parts interleaved in one loop, which hides
//     the latency of its table loads. Package regexp then runs on candidate
//     lines only, seeing one byte of context each side, so that anchors and
//     word boundaries behave as in the whole text;
//   - otherwise (a match does span lines) one sequential regexp pass, about
//     40 MB/s: write [ \t] rather than \s, or [^"\n] rather than [^"], when a
//     match should not span lines.
//
// All four report exactly regexp.FindAllIndex's matches over the whole
// document; a differential test on random patterns and texts and the fuzz
// target FuzzSearch check this. A search that would return more matches than
// a regexp call can hold in bounded memory resumes through a second pattern,
// \A(?s:.)(?s:.)*?(P)|(?:P), which restarts the search one character after
// the previous match with that character as left context.
//
// # Files that change
//
// A mapped file that is truncated makes reads past its new end raise SIGBUS.
// Every access runs with debug.SetPanicOnFault and a recover, so the call
// fails with ErrChanged instead of killing the process. Content that changes
// in place without shrinking is read as it is now; the index may then be off.
//
// The rest of this package's brief (path guard, file tools, redaction) is
// separate from the context store and shares none of its code.
package tools
