// Package linalg is the one place where rff's linear-algebra backend is chosen:
// gonum's pure Go, or OpenBLAS (with its LAPACK) when it is enabled and the
// shared library is present. Every heavy BLAS-3 / LAPACK call in the module
// goes through it, either directly (Gemm, Syrk, SyrkBlocked, Cholesky,
// SolveCholesky, EigenSym) or through gonum once [UseEnv] or [Use] has
// installed [Blas] with blas64.Use and [Lapack] with lapack64.Use, so that
// gonum/mat's Mul, Cholesky, EigenSym, … and gonum's own LAPACK internals use
// the fast backend too.
//
// # Enabling OpenBLAS
//
// Importing the package has no process-wide side effect: the backend is pure
// Go, OpenBLAS is not opened, the environment is not touched, and gonum keeps
// its own BLAS and LAPACK (so gonum's LAPACK routines, such as the Dpotrf
// behind pure-Go Cholesky, call gonum's BLAS rather than the packed kernel
// below). One explicit call enables the fast backend:
//
//	func main() {
//		if err := linalg.UseEnv(); err != nil { // RFF_BLAS, RFF_THREADS
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(2)
//		}
//		...
//	}
//
// The rff command makes this call first thing in main, and the root package's
// UseOpenBLAS makes it for library users, who should call that at the start of
// their main: before other goroutines run, because loading OpenBLAS may set
// OPENBLAS_CORETYPE with setenv (see the core type, below) and gonum's
// implementations are swapped without synchronization. The test packages that
// reach this package call it in TestMain, so that `go test` exercises OpenBLAS
// where it is installed and `RFF_BLAS=go go test` the pure-Go path.
//
// # Selection at run time
//
// No build tag. On Linux with cgo (the default wherever a C compiler is
// installed), UseEnv dlopens libopenblas.so.0 (then libopenblas.so and Debian's
// openblas-pthread/-openmp/-serial directories) and resolves cblas_dgemm,
// cblas_dsyrk, cblas_dsyr2k, cblas_dtrsm, cblas_dtrmm, cblas_dsymm, dpotrf_,
// dsyevd_ and openblas_* with dlsym. The prototypes are declared in the cgo
// preamble and only -ldl is linked, so building needs neither OpenBLAS headers
// nor the library, and a binary built here runs (in pure Go) on a machine
// without it. CGO_ENABLED=0 builds, and other systems, compile a stub and
// always run pure Go. Loading without cgo (a hand-written dynamic loader) was
// rejected as not robust. ILP64 builds (libopenblas64) are refused. LAPACKE is
// not used: libopenblas exports the Fortran LAPACK symbols, called with
// gfortran's ABI (pointers, hidden string lengths).
//
// Environment:
//
//	RFF_BLAS=auto|go|openblas  auto (default): OpenBLAS if it loads, else pure Go.
//	                           go: pure Go, OpenBLAS is not even opened.
//	                           openblas: as auto, but a load failure is an error
//	                           returned by UseEnv and kept in Info().Err (nothing
//	                           panics; the package stays on pure Go).
//	RFF_THREADS=n              threads per OpenBLAS call (and SyrkBlocked's
//	                           goroutines). Default: an OPENBLAS_NUM_THREADS the
//	                           user set, else DefaultThreads — the CPUs, lowered
//	                           to a cgroup CPU limit, never GOMAXPROCS (see
//	                           Determinism, below).
//	RFF_OPENBLAS_LIB=path      open this file instead of searching.
//	OPENBLAS_CORETYPE=name     see below.
//	OPENBLAS_THREAD_TIMEOUT=n  OpenBLAS's own: its worker threads spin 2^n
//	                           cycles after a call before they sleep. Set to 4
//	                           (the least) when unset, before loading: the
//	                           callers compute on all cores between calls, and
//	                           spinning workers (2^28 cycles by default) took
//	                           those cores.
//
// UseEnv reads RFF_BLAS and RFF_THREADS at each call; RFF_OPENBLAS_LIB,
// OPENBLAS_CORETYPE and OPENBLAS_THREAD_TIMEOUT are read once, when the library
// is loaded. go test caches
// results without noticing them: use -count=1 when changing them. [Use]
// switches backends by name, ignoring RFF_BLAS, and after the first call
// safely while other goroutines compute; [SetThreads] changes the thread
// count; [Info] reports the backend, version, core type and threads, and its
// String is what `rff version` prints: "openblas 0.3.21 (SkylakeX, 2
// threads)" or "pure Go (gonum)".
//
// # Determinism
//
// On one machine and one backend, every function of this package returns the
// same bits for the same inputs whatever GOMAXPROCS is, so a model fitted from
// the same data and seed is the same bytes. Precisely:
//
//   - Pure Go: the results depend neither on GOMAXPROCS nor on SetThreads.
//     Work is split over goroutines by elements of the output (the packed
//     kernel, SyrkBlocked's portable path, gonum's parallel Dgemm, dsteqrRows),
//     never by terms of a sum, so each element goes through the same
//     operations in the same order on any number of goroutines.
//   - OpenBLAS: its dgemm, dtrsm, dtrmm, dsymm, dpotrf and dsyevd cut their
//     sums differently for different thread counts (measured on 0.3.21: with 1,
//     2, 3 or 4 threads many elements of a 300×300 product or a 500×500
//     Cholesky factor differ in the last bits; of the routines used here only
//     dsyrk and dsyr2k gave the same bits for every shape tried), while a
//     fixed count gives the same bits on every run. So the thread count never follows GOMAXPROCS: it is
//     RFF_THREADS, SetThreads, or OPENBLAS_NUM_THREADS when set, else
//     [DefaultThreads] — runtime.NumCPU lowered to the cgroup's CPU limit,
//     which is what GOMAXPROCS defaults to, computed without it. The thread
//     count is part of the backend: results with RFF_THREADS=1 and =4 differ
//     in the last bits. To limit the CPU time OpenBLAS takes, set RFF_THREADS;
//     lowering GOMAXPROCS does not.
//   - Across backends, OpenBLAS versions and core types, CPUs, and thread
//     counts, results agree only to rounding (the usual bounds of each
//     algorithm), not bit for bit.
//
// The callers keep their side of it: learners in package learn and vector
// split their sums into shards that depend on the data's size only, and add
// them in a fixed order.
//
// # The core type
//
// OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels from CPUID in a
// constructor that runs inside dlopen. 0.3.21 predates some CPUs and on those
// can fall back to Prescott (SSE3) kernels, 4–5× slower (docs/performance.md);
// OPENBLAS_CORETYPE overrides the choice but must be in the C environment
// before the library loads. So the first load, before dlopen, reads the
// CPU with CPUID and XGETBV (the OS must save the wider registers) and, when
// OPENBLAS_CORETYPE is unset, sets it (os.Setenv, which reaches C's setenv
// under cgo, checked with getenv): SkylakeX when AVX-512 F/CD/DQ/BW/VL are
// usable, Zen (AMD) or Haswell (others) with AVX2+FMA, nothing otherwise. A
// value the user set is kept, unless it names kernels this CPU cannot execute:
// OPENBLAS_CORETYPE=SkylakeX on a CPU without AVX-512 kills the process with
// SIGILL at the first product (verified on an AMD Zen 3 CPU), so it
// is replaced and Info().Note says so. setenv is only safe while no other
// thread reads the environment, which is why UseEnv belongs at the start of
// main. The variable stays set, so child processes inherit the same choice.
//
// # Routing and concurrency
//
// Problems smaller than about 24³ multiply-adds stay in gonum (a cgo call
// costs a fraction of a microsecond, and small products stay concurrent
// across goroutines);
// anything gonum would panic on is handed to gonum, so panics keep gonum's
// messages. All calls into OpenBLAS are serialized by one mutex: each call
// already uses every thread, concurrent calls would only oversubscribe the
// cores, and it sidesteps OpenBLAS's limits on simultaneous callers (its
// fixed table of memory buffers, documented as "too many memory regions" when
// many threads call at once). So callers may call everything here from any
// number of goroutines; large calls queue. OpenBLAS's worker threads spin for
// a while after each call before sleeping.
//
// # Row-major and column-major
//
// CBLAS routines take row-major arrays directly. Fortran LAPACK reads
// gonum's row-major array as its transpose; for a symmetric matrix that is the
// same matrix, so Dpotrf passes the opposite triangle (gonum Upper, A = UᵀU, is
// Fortran Lower, A = LLᵀ with L = Uᵀ: identical numbers), and Dsyev transposes
// dsyevd's eigenvectors (rows of gonum's array) into columns. Dsyev keeps
// gonum's workspace contract: a query (lwork = −1) answers dsyevd's optimal
// size (1+6n+2n² with vectors), and any lwork ≥ 3n−1 works, the rest being
// allocated internally. Dpotrs is two triangular solves.
//
// # Pure Go
//
// gonum's Dsyrk runs on one core and its Dgemm with a transposed operand is
// slow (axpys of 64 elements). On x86-64 CPUs with AVX2 and FMA3 (CPUID and
// XGETBV, checked once at start-up; package avx2) the pure-Go [Blas.Dsyrk],
// [SyrkBlocked] and [Blas.Dgemm] run a packed driver (pack.go) around an
// assembly micro-kernel, in the GotoBLAS/BLIS structure: k is cut into equal
// blocks of at most kc = 256 terms; for each block, the columns of op(B) are
// packed into kc×12 panels (one 24 KiB panel stays in the 32 KiB L1 while it
// is used; up to 4096 columns, ≤ 8 MiB, shared by all goroutines, in L3), and
// each task of ≤ 96 rows of C packs its rows of op(A), times alpha, into 4×kc
// panels (192 KiB, in the 512 KiB L2). The kernel loads a 4×12 tile of C
// into twelve YMM registers, and per term does three loads of B, four
// broadcasts of A and twelve VFMADD231PD, then stores the tile back. For a
// Gram matrix only tiles on or above the diagonal are computed; those
// crossing it, and edge tiles, go through a 4×12 buffer and only their wanted
// elements are written back. Tasks go to SetThreads goroutines, longest
// first. Each element of C goes through the same operations in the same order
// (after beta, one FMA per term in increasing l) on any number of goroutines
// and whatever the blocking, so results are reproducible bit for bit, and a
// Gram matrix accumulated over blocks of rows with beta = 1 is bit for bit
// the one-call result (a streamed fit sees the in-memory fit's matrix); they
// may differ from gonum's in the last bits (FMA rounding). Products below
// about 32³ multiply-adds stay in gonum, and below 96³ the driver runs on the
// calling goroutine. On other CPUs and architectures (and with the purego
// build tag) [SyrkBlocked] runs gonum's own Dsyrk loop — one assembly axpy of
// a row of A into a row of C per row of A — tiled for the cache (tasks of 16
// rows of C, column chunks of 1024) and spread over SetThreads goroutines;
// the pure-Go [Blas.Dsyrk] uses it from n = 256, and Dgemm is gonum's.
//
// The packed kernel runs at about the rate of OpenBLAS's dsyrk and dgemm on an
// AVX2 CPU, five times the portable path and ten or more times gonum's Dsyrk;
// docs/performance.md has the figures for a named CPU. To measure:
//
//	RFF_BLAS=go go test -run '^$' -bench 'GramGo|GemmGo|SyrkSmallGo' ./internal/linalg/
//	go test -run '^$' -bench Kern4x12 ./internal/linalg/avx2/
//
// EigenSym in pure Go is gonum's Dsyev (tridiagonal reduction, QL/QR) with
// one change: 88% of its time went to Dlasr applying the QL/QR rotations
// column by column to the row-major eigenvector matrix; dsteqrRows applies
// them row by row (in parallel), which gives gonum's results bit for bit
// about 5× faster — built with GOAMD64 below v3 (the default); with v3 the
// compiler fuses gonum's multiply-adds, not these, and the last bits differ,
// while the results still do not depend on the thread count. There is no
// pure-Go divide and conquer.
//
// # Measuring
//
// The benchmarks of this package compare the backends (GFLOP/s count 2mnk for
// Gemm, n²k for a Gram matrix, n³/3 for Cholesky; EigenSym in seconds), the
// OpenBLAS core types, the crossover below which calls stay in Go
// (BenchmarkCrossover: OpenBLAS is faster than gonum even for tiny products, so
// the 24³ threshold is about concurrency, not speed) and whether OpenBLAS's
// spinning worker threads slow the Go code run right after a call
// (BenchmarkGoAfterBLAS: they did not). Calling OpenBLAS from Go costs nothing
// measurable at these sizes. Results for a named CPU are in
// docs/performance.md. To measure:
//
//	go test -run '^$' -bench . -benchtime 1x ./internal/linalg/
//	OPENBLAS_CORETYPE=Prescott go test -count=1 -run '^$' -bench openblas -benchtime 1x ./internal/linalg/
//	RFF_BENCH_LARGE=1 go test -run '^$' -bench 4096 -benchtime 1x ./internal/linalg/
//
// Two fixes over gonum v0.17 found by the tests: its Dsyrk (Lower, Trans,
// beta = 0) scales a NaN in C by 0 instead of overwriting it (the wrapper
// zeroes first), and OpenBLAS's dpotrf accepts NaN (ajj ≤ 0 is false for NaN;
// the wrapper checks the factor's diagonal, as gonum reports NaN as failure).
package linalg
