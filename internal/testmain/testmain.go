// Package testmain is the TestMain of the module's test packages: it enables the linear-algebra backend that RFF_BLAS
// asks for, as the rff command does at start-up, so that tests run on OpenBLAS where it is installed and on pure Go
// with RFF_BLAS=go.
package testmain

import (
	"fmt"
	"os"
	"testing"

	"github.com/rffkit/rff/internal/linalg"
)

// Run enables the backend and runs the tests; it does not return.
func Run(m *testing.M) {
	if err := linalg.UseEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
