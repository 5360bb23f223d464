package study

import (
	"fmt"
	"os"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
)

// TestMain enables the linear-algebra backend that RFF_BLAS asks for, as the
// rff command does at start-up, so that the tests run on OpenBLAS where it is
// installed and on pure Go with RFF_BLAS=go.
func TestMain(m *testing.M) {
	if err := linalg.UseEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
