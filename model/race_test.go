//go:build race

package model

// raceEnabled: the race detector's runtime is in use (allocations are not counted exactly).
const raceEnabled = true
