//go:build !race

package rff

const raceEnabled = false
