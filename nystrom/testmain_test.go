package nystrom

import (
	"testing"

	"github.com/rffkit/rff/internal/testmain"
)

// TestMain runs the tests on the linear-algebra backend RFF_BLAS asks for (OpenBLAS where installed).
func TestMain(m *testing.M) { testmain.Run(m) }
