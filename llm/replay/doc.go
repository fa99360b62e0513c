// Package replay is the scripted model of rlm run --replay (rlm.Options.Replay): it reads a
// reply file and serves its replies on a loopback port as an OpenAI-compatible chat
// completions server, so that the model client, the monitor and the rest of a run work as they
// do against a real model, with no model and no network. The demo (examples/demo/model.json),
// the CLI's smoke tests and scripts/startup use it.
//
//	srv, err := replay.Open("examples/demo/model.json")
//	if err != nil {
//		return err // the file and the line, what is wrong and what to write instead
//	}
//	defer srv.Close()
//	cfg := llm.Config{BaseURL: srv.URL(), Models: []string{"replay"}}
//
// # Reply files
//
// A reply file is a JSON array of replies, or an object {"replies": [...]}, which may name the
// language of the replies' code, {"lang": "js", "replies": [...]}, so that rlm run --replay runs
// them in that language without --lang (Lang):
//
//	[
//	  {"when": "^In one sentence", "text": "Card payments were declined.", "times": -1},
//	  {"text": "```repl\nprint(search(context, \"ERROR\"))\n```", "thinking": "I look for errors first."},
//	  {"text": "```repl\nFINAL(\"3 errors\")\n```", "latency": "200ms", "chunk_delay": "5ms"}
//	]
//
// A request takes the first reply whose rule matches it, and a reply leaves after its uses.
// The fields of a reply:
//
//	text         the answer, streamed a token at a time ("OK." when empty or absent)
//	thinking     reasoning streamed before the answer (reasoning_content deltas)
//	when         a regular expression (RE2) that the last user message must match
//	model        the model name the request must ask for (a replay run asks for "replay")
//	times        the requests the reply answers: 1 (the default), N, or -1 for every one
//	latency      a Go duration ("250ms") before the answer starts
//	chunk_delay  a Go duration before every token
//
// A field this package does not know is refused, with the file, the line and the reply's
// number. The fake servers of llm/llmtest read the same files with more fields, which inject
// faults or imitate other servers (kind, status, drop_after, dialect, …); a replay refuses
// those as test-only fields rather than play a reply other than the one written.
//
// # The wire
//
// Server answers POST /v1/chat/completions with "stream": true as OpenAI does: a chunk with
// the assistant role, the thinking and the answer a token per chunk (Split), a chunk with
// finish_reason "stop", a usage chunk when stream_options.include_usage is asked (prompt tokens
// estimated at a token per four characters), and data: [DONE]. When the request asks for
// logprobs, every token carries synthetic ones shaped like a fluent model's (Fluent), drawn
// from a generator seeded by the last user message, so the monitor sees a healthy generation.
// A request that no reply matches, or one that is not a stream, is answered 400 with a message
// that says what to change.
//
// Stream, Tokens, Queue and Read are the parts llm/llmtest's fake servers build on: a test kit
// may use this package; production code must not use the test kit.
package replay
