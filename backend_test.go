package rff

import (
	"fmt"
	"os"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
)

// TestMain enables the linear-algebra backend that RFF_BLAS asks for, as the rff command does at start-up, so that
// the tests run on OpenBLAS where it is installed and on pure Go with RFF_BLAS=go.
func TestMain(m *testing.M) {
	if err := UseOpenBLAS(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// pureGo reports whether the pure-Go linear algebra is in use (bit-exact comparisons with files written on it).
func pureGo() bool { return linalg.Info().Backend == linalg.PureGo }
