//go:build race

package serve

// raceEnabled: the race detector's runtime is in use (it allocates besides what the code does).
const raceEnabled = true
