// Package redact replaces secrets in text before it leaves the sandbox for a model, a trace,
// the audit DB or a log.
//
// A [Redactor] knows two kinds of secret: values it was given by value (New("sk-…"), e.g. the
// API key from the environment), and a curated set of patterns for well-known credential
// shapes (OpenAI, Anthropic, GitHub, AWS, Slack, Google, Stripe, Hugging Face, npm, SendGrid,
// PEM private keys, JWTs, URL passwords, Authorization headers and `password=`-style
// assignments); [Patterns] lists them. Only the secret part is replaced, by a marker that names
// what was removed:
//
//	Authorization: Bearer sk-proj-…        → Authorization: Bearer [REDACTED:openai]
//	AWS_SECRET_ACCESS_KEY=wJalr…            → AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret]
//	https://user:hunter22@db.example        → https://user:[REDACTED:url-password]@db.example
//	-----BEGIN RSA PRIVATE KEY-----…        → header and footer lines kept, body replaced
//
// # Semantics
//
// Every pattern is tried at every position of the input and every known value is looked for
// everywhere; the union of the secret parts they report is replaced, one marker per maximal
// overlapping run (its label is the one of the leftmost secret, ties going to the earlier entry
// of [Patterns], known values last). The generic patterns are conservative: a value must be at
// least 8 characters and look random (a digit and a letter, or three character classes), so
// `token=5`, `password: <redacted>` or the prose "the password is strong" are left alone.
//
// Redaction is idempotent (redacting twice gives the same text as once): no pattern reads
// through a marker's brackets, and no token or assignment may start right after a ']' or
// end right before a '['. Known values shorter than 8 bytes, containing '[' or ']', or occurring inside a
// marker are ignored, so that "a" does not redact every "a".
//
// # Speed
//
// The patterns are hand-written matchers, not regular expressions, and they run only where a
// one-pass prefilter found a trigger byte in a plausible spot ('-' after "sk", '_' after "ghp",
// ':' or '=' after an identifier, …); English prose without secrets is scanned at several
// hundred MB/s. Correctness does not depend on the prefilter: a differential test and the
// FuzzRedact target compare the result with a reference that tries every pattern at every
// position.
//
// # Streams
//
// [Redactor.Writer] redacts a stream. It holds back text that may still be part of a secret (the
// current line, an unterminated private-key block, a possible prefix of a known value), so a
// secret split across two Write calls is still found, and (barring Flush calls) its output is
// byte-for-byte the one of [Redactor.String] on the whole stream. String and Bytes hold the
// whole text in memory; use a Writer for large inputs. Call Close at the end of the stream; Flush forces
// out a partial line (see [Writer.Flush] for what that gives up).
//
// A Redactor is immutable and safe for concurrent use; the package does no I/O of its own.
package redact
