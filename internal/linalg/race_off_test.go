//go:build !race

package linalg

// raceEnabled shrinks the largest tests under the race detector.
const raceEnabled = false
