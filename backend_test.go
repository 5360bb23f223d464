package rff

import "github.com/rffkit/rff/internal/linalg"

// pureGo reports whether the pure-Go linear algebra is in use (bit-exact comparisons with files written on it).
func pureGo() bool { return linalg.Info().Backend == linalg.PureGo }
