// Package files checks the files a run or a session reads and prepares the one it writes: the
// context files (each must exist and hold text: no NUL byte and no UTF-16 mark in its first
// 8 KiB; what cannot be mapped, a pipe or a file of /proc or /sys, is told apart by KindOf, for
// the command line to save it first with OpenPipe and CheckText, and refused here) and the
// workspace, either a directory the caller names (it must exist; rlm never
// changes it) or a new default one under RLM_HOME/work, handed to the worker's uid and removed
// at the end when nothing was written to it.
//
// Messages name the value with a label the caller chooses ("--ctx" on the command line, "file"
// in the Go API), so each is written once for both.
package files
