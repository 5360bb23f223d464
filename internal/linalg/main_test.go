package linalg

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// processState is what the package may change process-wide.
type processState struct {
	Backend     string // Info().Backend
	Err         string // Info().Err
	GonumIsOurs bool   // gonum's BLAS is this package's Blas
	Mapped      bool   // libopenblas is mapped into the process (Linux)
	CoreType    string // OPENBLAS_CORETYPE in the C environment ("-" when unset)
}

func observe() processState {
	s := processState{Backend: Info().Backend}
	if err := Info().Err; err != nil {
		s.Err = err.Error()
	}
	_, s.GonumIsOurs = blas64.Implementation().(Blas)
	if maps, err := os.ReadFile("/proc/self/maps"); err == nil {
		s.Mapped = strings.Contains(string(maps), "libopenblas")
	}
	s.CoreType = "-"
	if v, ok := cGetenv("OPENBLAS_CORETYPE"); ok {
		s.CoreType = v
	}
	return s
}

var (
	// atImport is the process state before TestMain's UseEnv: what importing
	// the package (and running every init) left behind.
	atImport processState
	// envErr is what TestMain's UseEnv returned.
	envErr error
	// timeoutAtStart is OPENBLAS_THREAD_TIMEOUT before TestMain's UseEnv (timeoutWasSet: whether it was set).
	timeoutAtStart string
	timeoutWasSet  bool
)

// TestMain enables the backend RFF_BLAS asks for, as the rff command does, so
// that the tests run on OpenBLAS where it is installed and on pure Go with
// RFF_BLAS=go. An error (an unknown RFF_BLAS, or RFF_BLAS=openblas without the
// library) stops the tests, except in the child processes of TestEnvironment,
// which report it.
func TestMain(m *testing.M) {
	atImport = observe()
	timeoutAtStart, timeoutWasSet = os.LookupEnv("OPENBLAS_THREAD_TIMEOUT")
	envErr = UseEnv()
	if envErr != nil && os.Getenv(helperEnv) == "" {
		fmt.Fprintln(os.Stderr, "linalg tests:", envErr)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// TestImportHasNoSideEffects checks the state before TestMain's UseEnv: pure
// Go, gonum's own BLAS, OpenBLAS not opened (TestEnvironment checks the C
// environment in child processes that start without OPENBLAS_CORETYPE); and
// that the observation sees UseEnv's changes.
func TestImportHasNoSideEffects(t *testing.T) {
	checkImportState(t, atImport, "this process")
	after := observe()
	if !after.GonumIsOurs {
		t.Error("UseEnv did not install Blas into gonum")
	}
	if Info().Backend == OpenBLAS && runtime.GOOS == "linux" && !after.Mapped {
		t.Errorf("OpenBLAS in use but not seen in /proc/self/maps: %+v", after)
	}
}

func checkImportState(t *testing.T, s processState, where string) {
	t.Helper()
	if s.Backend != PureGo || s.Err != "" || s.GonumIsOurs || s.Mapped {
		t.Errorf("%s, state after import: %+v; want pure Go, no error, gonum's own BLAS, no libopenblas mapped", where, s)
	}
}
