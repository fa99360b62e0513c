package wire

import "unicode/utf8"

// Version is the protocol's version. Both sides send it in the handshake (Init, Ready), and a
// side that gets another version stops: a worker binary from another build is never used
// silently. Change it with any change to a message below; TestShapeIsVersioned holds the shape
// that goes with each version.
const Version = 6

// The operations, Message.Op.
//
// parent -> worker: init, exec, reply (the answer to a call), validate, shutdown.
// worker -> parent: ready (after init), call (a host call for the parent), result (of an exec or
// a validate).
const (
	OpInit     = "init"
	OpExec     = "exec"
	OpReply    = "reply"
	OpValidate = "validate"
	OpShutdown = "shutdown"
	OpReady    = "ready"
	OpCall     = "call"
	OpResult   = "result"
)

// LoggedChars is how many characters of a logged argument or result are kept (Cut).
const LoggedChars = 200

// Cut shortens s to LoggedChars characters, marking the cut with "…". It reads no further than
// the cut: s may be text(ctx)'s 32M characters.
func Cut(s string) string {
	i := 0
	for n := 0; n < LoggedChars; n++ {
		if i >= len(s) {
			return s
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}
