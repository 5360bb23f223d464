package linalg

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// nativeLib is a loaded native BLAS/LAPACK (OpenBLAS). Matrices are row-major
// for the CBLAS routines; the LAPACK routines take Fortran's column-major
// layout and the callers translate. Implementations serialize their calls.
type nativeLib interface {
	name() string
	config() string
	corename() string
	threads() int
	setNumThreads(n int)

	gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	syrk(upper, trans bool, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int)
	syrk32(upper, trans bool, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int)
	gemm32(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	syr2k(upper, trans bool, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	trsm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int)
	trmm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int)
	symm(left, upper bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int)
	potrfColMajor(upper bool, n int, a []float64, lda int) int
	syevdWork(vectors, upper bool, n int) (lwork, liwork int)
	syevdColMajor(vectors, upper bool, n int, a []float64, lda int, w, work []float64) int
}

// Backend names, as BackendInfo.Backend reports them and Use accepts them.
const (
	OpenBLAS = "openblas"
	PureGo   = "go"
)

// BackendInfo describes the linear-algebra backend in use. `rff version` and
// `rff bench` print its String.
type BackendInfo struct {
	// Backend is OpenBLAS or PureGo.
	Backend string `json:"backend"`
	// Version is the OpenBLAS version ("0.3.21"); empty for PureGo.
	Version string `json:"version,omitempty"`
	// Library is the path that was opened.
	Library string `json:"library,omitempty"`
	// CoreType is the kernel family OpenBLAS runs ("SkylakeX", "Haswell",
	// "Zen", ...), as the library itself reports it.
	CoreType string `json:"core_type,omitempty"`
	// CoreTypeSource says where OPENBLAS_CORETYPE came from: "auto" (set by
	// this package from CPUID), "environment" (the user's value, kept),
	// "corrected" (the user's value needed instructions the CPU lacks and was
	// replaced), or "" (unset: OpenBLAS detected the CPU itself).
	CoreTypeSource string `json:"core_type_source,omitempty"`
	// Threads is the number of threads OpenBLAS uses per call (by default
	// DefaultThreads, whatever GOMAXPROCS is); for PureGo, the goroutines
	// SyrkBlocked uses (gonum's own Dgemm uses GOMAXPROCS).
	Threads int `json:"threads"`
	// ThreadTimeout is the OPENBLAS_THREAD_TIMEOUT the library loaded with:
	// the user's value, or this package's "4" when it was unset (see the
	// package documentation); empty for PureGo.
	ThreadTimeout string `json:"thread_timeout,omitempty"`
	// Config is openblas_get_config(), e.g. "OpenBLAS 0.3.21 NO_LAPACKE
	// DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64".
	Config string `json:"config,omitempty"`
	// Note explains a fallback or a corrected setting; informational.
	Note string `json:"note,omitempty"`
	// Err is set when the user asked for OpenBLAS (RFF_BLAS=openblas) and it
	// could not be loaded, or RFF_BLAS/RFF_THREADS had an invalid value. The
	// package then runs on PureGo; nothing panics.
	Err error `json:"-"`
}

// String is a one-line summary: "openblas 0.3.21 (SkylakeX, 2 threads)" or
// "pure Go (gonum)".
func (b BackendInfo) String() string {
	if b.Backend == OpenBLAS {
		core := b.CoreType
		if core == "" {
			core = "unknown core"
		}
		v := b.Version
		if v == "" {
			v = "(unknown version)"
		}
		s := fmt.Sprintf("openblas %s (%s, %s)", v, core, plural(b.Threads, "thread"))
		if b.Err != nil {
			s += "; " + b.Err.Error()
		}
		return s
	}
	s := "pure Go (gonum)"
	if b.Err != nil {
		s += "; " + b.Err.Error()
	}
	return s
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return strconv.Itoa(n) + " " + w + "s"
}

// backend is one configuration; the active one is swapped atomically, so
// calls in flight finish on the backend they started with.
type backend struct {
	lib  nativeLib // nil: pure Go
	info BackendInfo
}

var (
	active    atomic.Pointer[backend] // nil: defaultBackend
	goThreads atomic.Int64            // 0: GOMAXPROCS
	useMu     sync.Mutex              // serializes Use, UseEnv and SetThreads
	gonumOnce sync.Once               // installs Blas and Lapack into gonum
)

// defaultBackend is the backend in force until Use or UseEnv is called: pure
// Go, with OpenBLAS not even opened.
var defaultBackend = goBackend("OpenBLAS not enabled: pure Go is the default")

// current returns the active backend.
func current() *backend {
	if b := active.Load(); b != nil {
		return b
	}
	return defaultBackend
}

// native returns the loaded library, or nil on the pure-Go backend.
func native() nativeLib {
	return current().lib
}

// installGonum installs the dispatching BLAS and LAPACK into gonum, once, so
// that every gonum/mat call in the program (and gonum's LAPACK internals) goes
// through the backend chosen here. blas64.Use and lapack64.Use replace a
// global of gonum's without synchronization: a process-wide change, made only
// by the explicit calls Use and UseEnv, never by importing the package.
func installGonum() {
	gonumOnce.Do(func() {
		blas64.Use(Blas{})
		lapack64.Use(Lapack{})
	})
}

// UseEnv enables the backend the environment asks for and installs [Blas] and
// [Lapack] into gonum (blas64.Use, lapack64.Use). Importing the package does
// neither: until UseEnv or [Use] is called the backend is pure Go, OpenBLAS is
// not opened and gonum runs its own code.
//
// RFF_BLAS selects the backend: "auto" or unset, OpenBLAS if it loads and pure
// Go otherwise (the reason is in Info().Note); "go", pure Go, OpenBLAS is not
// even opened; "openblas", OpenBLAS or an error. RFF_THREADS=n sets the
// threads per OpenBLAS call (default [DefaultThreads], not GOMAXPROCS) and the
// goroutines of [SyrkBlocked]. An unknown
// RFF_BLAS, an OpenBLAS that cannot be loaded under RFF_BLAS=openblas (the
// error wraps [ErrUnavailable]), or an invalid RFF_THREADS is returned as an
// error, also kept in Info().Err; the package is then on pure Go.
//
// Call it at the start of main, before other goroutines run: the first load of
// OpenBLAS may set OPENBLAS_CORETYPE in the C environment (setenv is only safe
// while no other thread reads the environment), and gonum's BLAS and LAPACK
// are swapped without synchronization. Later calls re-read the variables; the
// library is opened at most once per process.
func UseEnv() error {
	useMu.Lock()
	defer useMu.Unlock()
	installGonum()
	b := configure(os.Getenv("RFF_BLAS"))
	active.Store(b)
	return b.info.Err
}

// configure builds the backend that mode (RFF_BLAS's value) asks for.
func configure(mode string) *backend {
	threads, terr := envThreads()
	if threads > 0 {
		goThreads.Store(int64(threads))
	}
	var b *backend
	switch m := strings.ToLower(strings.TrimSpace(mode)); m {
	case "go", "gonum", "pure", "purego":
		b = goBackend("RFF_BLAS=" + m)
	case "", "auto":
		lib, err := loadOpenBLAS()
		if err != nil {
			b = goBackend(err.Error())
		} else {
			b = nativeBackend(lib, threads)
		}
	case "openblas":
		lib, err := loadOpenBLAS()
		if err != nil {
			b = goBackend("")
			b.info.Err = fmt.Errorf("RFF_BLAS=openblas: %w", err)
		} else {
			b = nativeBackend(lib, threads)
		}
	default:
		b = goBackend("")
		b.info.Err = fmt.Errorf("RFF_BLAS=%q: want go, openblas or auto", mode)
	}
	if terr != nil && b.info.Err == nil {
		b.info.Err = terr
	}
	return b
}

// envThreads reads RFF_THREADS: 0 when unset.
func envThreads() (int, error) {
	s := strings.TrimSpace(os.Getenv("RFF_THREADS"))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("RFF_THREADS=%q: want a positive integer", s)
	}
	return n, nil
}

func goBackend(note string) *backend {
	return &backend{info: BackendInfo{Backend: PureGo, Note: note}}
}

// nativeBackend sets the thread count and records what the library reports.
// threads > 0 comes from RFF_THREADS or SetThreads; otherwise an
// OPENBLAS_NUM_THREADS (or GOTO_NUM_THREADS / OMP_NUM_THREADS) the user set
// is left alone (OpenBLAS read it when it loaded), and the default is
// DefaultThreads — never GOMAXPROCS, on which the results would then depend.
func nativeBackend(lib nativeLib, threads int) *backend {
	switch {
	case threads > 0:
		lib.setNumThreads(threads)
	case os.Getenv("OPENBLAS_NUM_THREADS") != "" || os.Getenv("GOTO_NUM_THREADS") != "" || os.Getenv("OMP_NUM_THREADS") != "":
	default:
		lib.setNumThreads(DefaultThreads())
	}
	ct, src, note := loadedCoreType()
	cfg := lib.config()
	info := BackendInfo{
		Backend:        OpenBLAS,
		ThreadTimeout:  loadedThreadTimeout(),
		Version:        configVersion(cfg),
		Library:        lib.name(),
		CoreType:       lib.corename(),
		CoreTypeSource: src,
		Config:         cfg,
		Note:           note,
	}
	if ct != "" && !strings.EqualFold(ct, info.CoreType) {
		msg := fmt.Sprintf("OPENBLAS_CORETYPE=%s but OpenBLAS runs %s kernels", ct, info.CoreType)
		if info.Note != "" {
			msg = info.Note + "; " + msg
		}
		info.Note = msg
	}
	return &backend{lib: lib, info: info}
}

// configVersion extracts "0.3.21" from "OpenBLAS 0.3.21 NO_LAPACKE ...".
func configVersion(cfg string) string {
	f := strings.Fields(cfg)
	if len(f) >= 2 && strings.EqualFold(f[0], "OpenBLAS") {
		return f[1]
	}
	return ""
}

// Info describes the backend in use, with the current thread count.
func Info() BackendInfo {
	b := current()
	info := b.info
	if b.lib != nil {
		info.Threads = b.lib.threads()
	} else {
		info.Threads = pureThreads()
	}
	return info
}

func pureThreads() int {
	if n := int(goThreads.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// ErrUnavailable is returned by Use when OpenBLAS cannot be loaded.
var ErrUnavailable = errors.New("linalg: OpenBLAS unavailable")

// Use switches the backend: PureGo ("go"), OpenBLAS ("openblas", an error
// wrapping ErrUnavailable if it cannot be loaded; the backend is then left
// unchanged), or "auto" (OpenBLAS when it loads). Unlike [UseEnv] it ignores
// RFF_BLAS and RFF_THREADS. Like UseEnv, its first call installs [Blas] and
// [Lapack] into gonum, and the first load of OpenBLAS may set
// OPENBLAS_CORETYPE (the library is loaded at most once per process), so the
// first call of either belongs at the start of main, before other goroutines
// run. After that, Use is safe to call while other goroutines compute: calls
// in flight finish on the old backend. `rff bench` uses it to measure both
// backends in one run.
func Use(name string) error {
	useMu.Lock()
	defer useMu.Unlock()
	installGonum()
	threads := int(goThreads.Load())
	switch strings.ToLower(strings.TrimSpace(name)) {
	case PureGo, "gonum", "pure", "purego":
		active.Store(goBackend("selected with linalg.Use"))
		return nil
	case OpenBLAS, "auto", "":
		lib, err := loadOpenBLAS()
		if err != nil {
			if strings.EqualFold(strings.TrimSpace(name), OpenBLAS) {
				return fmt.Errorf("%w: %v", ErrUnavailable, err)
			}
			active.Store(goBackend(err.Error()))
			return nil
		}
		if current().lib != nil {
			return nil
		}
		active.Store(nativeBackend(lib, threads))
		return nil
	}
	return fmt.Errorf("linalg.Use(%q): want %q, %q or \"auto\"", name, PureGo, OpenBLAS)
}

// SetThreads sets the number of threads each OpenBLAS call uses and the number
// of goroutines SyrkBlocked uses; n < 1 means [DefaultThreads] for OpenBLAS
// and GOMAXPROCS for the goroutines. It returns the count now in force.
// gonum's own parallel Dgemm always uses GOMAXPROCS. On OpenBLAS the count
// changes the rounding of most routines (see the package documentation,
// Determinism); the pure-Go results do not depend on it.
func SetThreads(n int) int {
	useMu.Lock()
	defer useMu.Unlock()
	if n < 1 {
		goThreads.Store(0)
		if lib := native(); lib != nil {
			lib.setNumThreads(DefaultThreads())
			return lib.threads()
		}
		return pureThreads()
	}
	goThreads.Store(int64(n))
	if lib := native(); lib != nil {
		lib.setNumThreads(n)
		return lib.threads()
	}
	return n
}
