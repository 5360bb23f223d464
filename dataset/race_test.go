//go:build race

package dataset

// raceEnabled: the race detector's runtime is in use (its allocations and collections differ from the plain runtime's).
const raceEnabled = true
