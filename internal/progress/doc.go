// Package progress draws a one-line progress bar for long command-line jobs
// (fit, approx over many runs, repro), following the convention of the rff
// command: a bar on stderr when stderr is a terminal, and silence when it is
// not.
//
// A bar looks like
//
//	fit [=========>                    ]  33% 330/1000  12.3s  eta 25s
//
// and is redrawn in place with a carriage return at most about ten times per
// second, however often [Bar.Add] is called. Add is safe for concurrent use,
// so worker goroutines can report their own steps. [Bar.Done] draws the final
// state and ends the line.
//
// [New] returns a bar that is active only when its writer is an *os.File
// referring to a character device (a terminal); on any other writer every
// method is a cheap no-op, so callers never need to test for a terminal
// themselves and scripts reading stderr see nothing. [Force] returns a bar
// that is always active, for tests and for callers that have decided
// themselves. A nil *Bar is also a valid, inactive bar.
//
// This package implements no paper; it is plumbing for the rff tool.
package progress
