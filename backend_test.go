package rff

import (
	"testing"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/testmain"
)

// TestMain runs the tests on the linear-algebra backend RFF_BLAS asks for (OpenBLAS where installed).
func TestMain(m *testing.M) { testmain.Run(m) }

// pureGo reports whether the pure-Go linear algebra is in use (bit-exact comparisons with files written on it).
func pureGo() bool { return linalg.Info().Backend == linalg.PureGo }
