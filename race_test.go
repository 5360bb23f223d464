//go:build race

package rff

// raceEnabled: the race detector's runtime is in use (it drops a quarter of what is put into a sync.Pool).
const raceEnabled = true
