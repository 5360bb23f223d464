//go:build cgo && linux

package linalg

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

// The library is opened with dlopen and every routine is reached through a
// function pointer, so neither OpenBLAS headers nor its libraries are needed to
// build: the prototypes below are the LP64 CBLAS / gfortran ABI that Debian's
// libopenblas0 exports (blasint = int, hidden character lengths last).

enum { RowMajor = 101 };

typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
typedef void (*dsyrk_fn)(int, int, int, int, int, double, const double*, int, double, double*, int);
typedef void (*ssyrk_fn)(int, int, int, int, int, float, const float*, int, float, float*, int);
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
typedef void (*dsyr2k_fn)(int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
typedef void (*dtrxm_fn)(int, int, int, int, int, int, int, double, const double*, int, double*, int);
typedef void (*dsymm_fn)(int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
typedef void (*dpotrf_fn)(const char*, const int*, double*, const int*, int*, size_t);
typedef void (*dsyevd_fn)(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, const int*, int*, size_t, size_t);
typedef char* (*str_fn)(void);
typedef int (*int_fn)(void);
typedef void (*setint_fn)(int);

static void *rff_lib;

static const char *rff_open(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		const char *e = dlerror();
		return e ? e : "dlopen failed";
	}
	rff_lib = h;
	return NULL;
}

static void *rff_sym(const char *name) { return rff_lib ? dlsym(rff_lib, name) : NULL; }

static void rff_dgemm(void *f, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
		const double *b, int ldb, double beta, double *c, int ldc) {
	((dgemm_fn)f)(RowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void rff_dsyrk(void *f, int ul, int t, int n, int k, double alpha, const double *a, int lda, double beta,
		double *c, int ldc) {
	((dsyrk_fn)f)(RowMajor, ul, t, n, k, alpha, a, lda, beta, c, ldc);
}

static void rff_ssyrk(void *f, int ul, int t, int n, int k, float alpha, const float *a, int lda, float beta,
		float *c, int ldc) {
	((ssyrk_fn)f)(RowMajor, ul, t, n, k, alpha, a, lda, beta, c, ldc);
}

static void rff_sgemm(void *f, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
		const float *b, int ldb, float beta, float *c, int ldc) {
	((sgemm_fn)f)(RowMajor, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void rff_dsyr2k(void *f, int ul, int t, int n, int k, double alpha, const double *a, int lda,
		const double *b, int ldb, double beta, double *c, int ldc) {
	((dsyr2k_fn)f)(RowMajor, ul, t, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void rff_dtrxm(void *f, int side, int ul, int t, int diag, int m, int n, double alpha, const double *a,
		int lda, double *b, int ldb) {
	((dtrxm_fn)f)(RowMajor, side, ul, t, diag, m, n, alpha, a, lda, b, ldb);
}

static void rff_dsymm(void *f, int side, int ul, int m, int n, double alpha, const double *a, int lda,
		const double *b, int ldb, double beta, double *c, int ldc) {
	((dsymm_fn)f)(RowMajor, side, ul, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}

static int rff_dpotrf(void *f, char ul, int n, double *a, int lda) {
	int info = 0;
	((dpotrf_fn)f)(&ul, &n, a, &lda, &info, 1);
	return info;
}

// rff_dsyevd_query returns dsyevd's optimal workspace sizes through lwork and liwork.
static int rff_dsyevd_query(void *f, char jobz, char ul, int n, int *lwork, int *liwork) {
	int info = 0, lw = -1, liw = -1, lda = n > 1 ? n : 1;
	double wq = 0, dummy = 0;
	int iwq = 0;
	((dsyevd_fn)f)(&jobz, &ul, &n, &dummy, &lda, &dummy, &wq, &lw, &iwq, &liw, &info, 1, 1);
	*lwork = (int)wq;
	*liwork = iwq;
	return info;
}

static int rff_dsyevd(void *f, char jobz, char ul, int n, double *a, int lda, double *w, double *work, int lwork,
		int *iwork, int liwork) {
	int info = 0;
	((dsyevd_fn)f)(&jobz, &ul, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1);
	return info;
}

static const char *rff_str(void *f) { return f ? ((str_fn)f)() : NULL; }
static int rff_int(void *f) { return f ? ((int_fn)f)() : -1; }
static void rff_setint(void *f, int v) { if (f) ((setint_fn)f)(v); }

static const char *rff_getenv(const char *k) { return getenv(k); }
static int rff_setenv(const char *k, const char *v) { return setenv(k, v, 1); }
static int rff_unsetenv(const char *k) { return unsetenv(k); }

// rff_cpu reports x86-64 vector support as OpenBLAS's kernels need it: the
// instruction set bits from CPUID and the register state enabled by the OS
// (XGETBV), so that a core type is never chosen whose kernels would raise
// SIGILL. Bits: 1 = x86, 2 = AVX, 4 = AVX2+FMA, 8 = AVX-512 F/CD/DQ/BW/VL,
// 16 = AMD or Hygon.
#if defined(__x86_64__)
#include <cpuid.h>
static int rff_cpu(void) {
	unsigned a = 0, b = 0, c = 0, d = 0, max = 0;
	int r = 1;
	max = __get_cpuid_max(0, NULL);
	if (max == 0) return r;
	__cpuid(0, a, b, c, d);
	// "AuthenticAMD" / "HygonGenuine": EBX holds the first four characters.
	if (b == 0x68747541u || b == 0x6f677948u) r |= 16;
	__cpuid(1, a, b, c, d);
	int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
	if (!osxsave || !avx) return r;
	unsigned xlo = 0, xhi = 0;
	__asm__ volatile("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
	if ((xlo & 6) != 6) return r; // XMM and YMM state
	r |= 2;
	if (max < 7) return r;
	__cpuid_count(7, 0, a, b, c, d);
	if (((b >> 5) & 1) && fma) r |= 4;
	unsigned need = (1u << 16) | (1u << 17) | (1u << 28) | (1u << 30) | (1u << 31);
	if ((r & 4) && (b & need) == need && (xlo & 0xe6) == 0xe6) r |= 8; // opmask, ZMM_Hi256, Hi16_ZMM
	return r;
}
#else
static int rff_cpu(void) { return 0; }
#endif
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// CBLAS enumerations.
const (
	cNoTrans = 111
	cTrans   = 112
	cUpper   = 121
	cLower   = 122
	cNonUnit = 131
	cUnit    = 132
	cLeft    = 141
	cRight   = 142
)

// libraryPaths are tried in order by dlopen. The generic names follow the
// system's choice (Debian's alternatives); the explicit directories find the
// pthread build when the alternatives point elsewhere or the generic link is
// missing.
var libraryPaths = []string{
	"libopenblas.so.0",
	"libopenblas.so",
	"/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
	"/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
	"/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0",
	"/usr/lib/aarch64-linux-gnu/openblas-openmp/libopenblas.so.0",
	"/usr/lib/x86_64-linux-gnu/openblas-serial/libopenblas.so.0",
	"/usr/lib/aarch64-linux-gnu/openblas-serial/libopenblas.so.0",
	"/usr/lib64/libopenblas.so.0",
	"/usr/lib/libopenblas.so.0",
}

// cpuFeatures reads the CPU's vector support (see rff_cpu).
func cpuFeatures() cpuInfo {
	r := int(C.rff_cpu())
	return cpuInfo{
		x86:    r&1 != 0,
		avx:    r&2 != 0,
		avx2:   r&4 != 0,
		avx512: r&8 != 0,
		amd:    r&16 != 0,
	}
}

// openblas is a loaded OpenBLAS library. All calls into it are serialized by
// mu: see the package documentation for why.
type openblas struct {
	mu sync.Mutex

	dgemm, dsyrk, dsyr2k, dtrsm, dtrmm, dsymm unsafe.Pointer
	ssyrk, sgemm                              unsafe.Pointer
	dpotrf, dsyevd                            unsafe.Pointer
	getConfig, getCorename                    unsafe.Pointer
	getThreads, setThreads                    unsafe.Pointer
	tiles                                     bool // the tiled Gram update may run (see resolve)

	path string
}

var (
	loadOnce    sync.Once
	loaded      *openblas
	loadErr     error
	loadNote    string
	loadCore    string // the OPENBLAS_CORETYPE value in force when the library initialized
	loadTimeout string // the OPENBLAS_THREAD_TIMEOUT value in force when the library initialized
	loadSrc     string
)

// loadOpenBLAS opens the library once per process. The core type and the
// thread time-out are placed in the environment first, because OpenBLAS reads
// OPENBLAS_CORETYPE and OPENBLAS_THREAD_TIMEOUT in its constructor, which runs
// inside dlopen.
func loadOpenBLAS() (nativeLib, error) {
	loadOnce.Do(func() {
		v, set := os.LookupEnv("OPENBLAS_CORETYPE")
		ct, src, note := decideCoreType(v, set, cpuFeatures())
		loadNote = note
		switch {
		case src == coreAuto || (src == coreCorrected && ct != ""):
			setenvC("OPENBLAS_CORETYPE", ct)
		case src == coreCorrected:
			unsetenvC("OPENBLAS_CORETYPE")
		}
		loadCore, loadSrc = ct, src
		var userTimeout bool
		if loadTimeout, userTimeout = os.LookupEnv("OPENBLAS_THREAD_TIMEOUT"); !userTimeout {
			setenvC("OPENBLAS_THREAD_TIMEOUT", threadTimeout)
			loadTimeout = threadTimeout
		}
		loaded, loadErr = openLibrary()
	})
	if loadErr != nil {
		return nil, loadErr
	}
	return loaded, nil
}

// setenvC sets a variable in both Go's and the C library's environment.
// os.Setenv already forwards to C setenv when cgo is linked in; the explicit
// check keeps that true whatever the runtime does.
func setenvC(k, v string) {
	os.Setenv(k, v)
	ck, cv := C.CString(k), C.CString(v)
	defer C.free(unsafe.Pointer(ck))
	defer C.free(unsafe.Pointer(cv))
	if p := C.rff_getenv(ck); p == nil || C.GoString(p) != v {
		C.rff_setenv(ck, cv)
	}
}

// loadedThreadTimeout reports the OPENBLAS_THREAD_TIMEOUT in force when the library loaded.
func loadedThreadTimeout() string { return loadTimeout }

// loadedCoreType reports the OPENBLAS_CORETYPE decision made before loading.
func loadedCoreType() (value, source, note string) { return loadCore, loadSrc, loadNote }

func unsetenvC(k string) {
	os.Unsetenv(k)
	ck := C.CString(k)
	defer C.free(unsafe.Pointer(ck))
	C.rff_unsetenv(ck)
}

// cGetenv reads the C library's environment (tests use it to check setenvC).
func cGetenv(k string) (string, bool) {
	ck := C.CString(k)
	defer C.free(unsafe.Pointer(ck))
	p := C.rff_getenv(ck)
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

func openLibrary() (*openblas, error) {
	paths := libraryPaths
	if p := os.Getenv("RFF_OPENBLAS_LIB"); p != "" {
		paths = []string{p}
	}
	var errs []string
	for _, p := range paths {
		cp := C.CString(p)
		e := C.rff_open(cp)
		C.free(unsafe.Pointer(cp))
		if e != nil {
			errs = append(errs, C.GoString(e))
			continue
		}
		lib, err := resolve(p)
		if err != nil {
			// A library without what we need (an ILP64 build, a BLAS without
			// LAPACK): try the next one. The handle stays open; dlclose of a
			// library that started threads is not safe.
			errs = append(errs, err.Error())
			continue
		}
		return lib, nil
	}
	if len(errs) == 0 {
		return nil, errors.New("openblas: no library path to try")
	}
	// "No such file" for every path is the common case: say it in one line.
	var other []string
	for _, e := range errs {
		if !strings.Contains(e, "No such file") {
			other = append(other, e)
		}
	}
	if len(other) == 0 {
		return nil, fmt.Errorf("openblas: %s not found (%s tried; Debian: apt-get install libopenblas0-pthread)",
			paths[0], plural(len(paths), "path"))
	}
	return nil, fmt.Errorf("openblas: cannot load: %s", strings.Join(other, "; "))
}

func resolve(path string) (*openblas, error) {
	sym := func(name string) unsafe.Pointer {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		return C.rff_sym(cn)
	}
	l := &openblas{
		path:        path,
		dgemm:       sym("cblas_dgemm"),
		dsyrk:       sym("cblas_dsyrk"),
		ssyrk:       sym("cblas_ssyrk"),
		sgemm:       sym("cblas_sgemm"),
		dsyr2k:      sym("cblas_dsyr2k"),
		dtrsm:       sym("cblas_dtrsm"),
		dtrmm:       sym("cblas_dtrmm"),
		dsymm:       sym("cblas_dsymm"),
		dpotrf:      sym("dpotrf_"),
		dsyevd:      sym("dsyevd_"),
		getConfig:   sym("openblas_get_config"),
		getCorename: sym("openblas_get_corename"),
		getThreads:  sym("openblas_get_num_threads"),
		setThreads:  sym("openblas_set_num_threads"),
	}
	var missing []string
	for name, p := range map[string]unsafe.Pointer{
		"cblas_dgemm": l.dgemm, "cblas_dsyrk": l.dsyrk, "cblas_dsyr2k": l.dsyr2k, "cblas_dtrsm": l.dtrsm,
		"cblas_dtrmm": l.dtrmm, "cblas_dsymm": l.dsymm, "cblas_ssyrk": l.ssyrk, "cblas_sgemm": l.sgemm, "dpotrf_": l.dpotrf, "dsyevd_": l.dsyevd,
		"openblas_get_config": l.getConfig,
	} {
		if p == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing symbols %s", path, strings.Join(missing, ", "))
	}
	cfg := l.config()
	if strings.Contains(cfg, "USE64BITINT") {
		return nil, fmt.Errorf("%s: 64-bit integer (ILP64) build %q is not supported", path, cfg)
	}
	// Concurrent single-threaded calls (the tiled Gram update) only on the pthreads build, whose memory
	// allocator locks for simultaneous callers; the OpenMP build keeps dsyrk (a serial build reports one thread).
	l.tiles = !strings.Contains(cfg, "USE_OPENMP")
	return l, nil
}

func (l *openblas) name() string { return l.path }

func (l *openblas) config() string { return goString(C.rff_str(l.getConfig)) }

func (l *openblas) corename() string { return goString(C.rff_str(l.getCorename)) }

func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(C.GoString(p))
}

func (l *openblas) threads() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(C.rff_int(l.getThreads))
}

func (l *openblas) setNumThreads(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_setint(l.setThreads, C.int(n))
}

func cTr(t bool) C.int {
	if t {
		return cTrans
	}
	return cNoTrans
}

func cUplo(upper bool) C.int {
	if upper {
		return cUpper
	}
	return cLower
}

func cSide(left bool) C.int {
	if left {
		return cLeft
	}
	return cRight
}

func cDiag(unit bool) C.int {
	if unit {
		return cUnit
	}
	return cNonUnit
}

// ptr returns a pointer to the first element; callers never pass empty slices.
func ptr(s []float64) *C.double { return (*C.double)(unsafe.Pointer(&s[0])) }

func (l *openblas) gemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_dgemm(l.dgemm, cTr(tA), cTr(tB), C.int(m), C.int(n), C.int(k), C.double(alpha), ptr(a), C.int(lda),
		ptr(b), C.int(ldb), C.double(beta), ptr(c), C.int(ldc))
}

func (l *openblas) syrk(upper, trans bool, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := int(C.rff_int(l.getThreads)); upper && trans && l.tiles && l.setThreads != nil && useTiledGram(n, k, p) {
		l.syrkTiles(p, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	C.rff_dsyrk(l.dsyrk, cUplo(upper), cTr(trans), C.int(n), C.int(k), C.double(alpha), ptr(a), C.int(lda),
		C.double(beta), ptr(c), C.int(ldc))
}

// syrkTiles is the upper-triangle Gram update C = alpha·AᵀA + beta·C (A k×n) cut into the tiles of
// gramTiles(n, p) and run by p goroutines, each taking the next tile of the list when it finishes one and calling
// single-threaded dsyrk (diagonal tiles) or dgemm (the others) on it, with OpenBLAS's thread count set to 1 meanwhile
// (tiles.go says why). The caller holds l.mu, so no other call runs with the changed count; the p concurrent calls
// stay within OpenBLAS's limits on simultaneous callers (p is the thread count it was configured with). Each tile is
// one call with the same arguments whichever goroutine makes it, so the result does not depend on the timing.
func (l *openblas) syrkTiles(p, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	tiledGramCalls.Add(1)
	C.rff_setint(l.setThreads, 1)
	defer C.rff_setint(l.setThreads, C.int(p))
	tiles := gramTiles(n, p)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(tiles); i = int(next.Add(1) - 1) {
				t := tiles[i]
				cij := c[t.r0*ldc+t.c0:]
				if t.diagonal() {
					C.rff_dsyrk(l.dsyrk, cUpper, cTrans, C.int(t.r1-t.r0), C.int(k), C.double(alpha), ptr(a[t.r0:]),
						C.int(lda), C.double(beta), ptr(cij), C.int(ldc))
					continue
				}
				C.rff_dgemm(l.dgemm, cTrans, cNoTrans, C.int(t.r1-t.r0), C.int(t.c1-t.c0), C.int(k), C.double(alpha),
					ptr(a[t.r0:]), C.int(lda), ptr(a[t.c0:]), C.int(lda), C.double(beta), ptr(cij), C.int(ldc))
			}
		}()
	}
	wg.Wait()
}

func (l *openblas) syrk32(upper, trans bool, n, k int, alpha float32, a []float32, lda int, beta float32, c []float32, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_ssyrk(l.ssyrk, cUplo(upper), cTr(trans), C.int(n), C.int(k), C.float(alpha),
		(*C.float)(unsafe.Pointer(&a[0])), C.int(lda), C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func (l *openblas) gemm32(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_sgemm(l.sgemm, cTr(tA), cTr(tB), C.int(m), C.int(n), C.int(k), C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])),
		C.int(lda), (*C.float)(unsafe.Pointer(&b[0])), C.int(ldb), C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func (l *openblas) syr2k(upper, trans bool, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_dsyr2k(l.dsyr2k, cUplo(upper), cTr(trans), C.int(n), C.int(k), C.double(alpha), ptr(a), C.int(lda),
		ptr(b), C.int(ldb), C.double(beta), ptr(c), C.int(ldc))
}

func (l *openblas) trsm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_dtrxm(l.dtrsm, cSide(left), cUplo(upper), cTr(trans), cDiag(unit), C.int(m), C.int(n), C.double(alpha),
		ptr(a), C.int(lda), ptr(b), C.int(ldb))
}

func (l *openblas) trmm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_dtrxm(l.dtrmm, cSide(left), cUplo(upper), cTr(trans), cDiag(unit), C.int(m), C.int(n), C.double(alpha),
		ptr(a), C.int(lda), ptr(b), C.int(ldb))
}

func (l *openblas) symm(left, upper bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	C.rff_dsymm(l.dsymm, cSide(left), cUplo(upper), C.int(m), C.int(n), C.double(alpha), ptr(a), C.int(lda),
		ptr(b), C.int(ldb), C.double(beta), ptr(c), C.int(ldc))
}

// potrfColMajor runs Fortran dpotrf on a column-major matrix and returns its info.
func (l *openblas) potrfColMajor(upper bool, n int, a []float64, lda int) int {
	ul := C.char('L')
	if upper {
		ul = 'U'
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(C.rff_dpotrf(l.dpotrf, ul, C.int(n), ptr(a), C.int(lda)))
}

func jobUplo(vectors, upper bool) (C.char, C.char) {
	jobz, ul := C.char('N'), C.char('L')
	if vectors {
		jobz = 'V'
	}
	if upper {
		ul = 'U'
	}
	return jobz, ul
}

// syevdWork returns dsyevd's optimal workspace lengths.
func (l *openblas) syevdWork(vectors, upper bool, n int) (lwork, liwork int) {
	jobz, ul := jobUplo(vectors, upper)
	var lw, liw C.int
	l.mu.Lock()
	info := C.rff_dsyevd_query(l.dsyevd, jobz, ul, C.int(n), &lw, &liw)
	l.mu.Unlock()
	lwork, liwork = int(lw), int(liw)
	// The documented minimums, in case a build answers the query badly.
	minW, minI := 2*n+1, 1
	if vectors {
		minW, minI = 1+6*n+2*n*n, 3+5*n
	}
	if info != 0 || lwork < minW {
		lwork = minW
	}
	if info != 0 || liwork < minI {
		liwork = minI
	}
	return lwork, liwork
}

// syevdColMajor runs Fortran dsyevd on a column-major matrix. work must hold at
// least the lwork that syevdWork reports.
func (l *openblas) syevdColMajor(vectors, upper bool, n int, a []float64, lda int, w, work []float64) int {
	_, liwork := l.syevdWork(vectors, upper, n)
	iwork := make([]C.int, liwork)
	jobz, ul := jobUplo(vectors, upper)
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(C.rff_dsyevd(l.dsyevd, jobz, ul, C.int(n), ptr(a), C.int(lda), ptr(w), ptr(work), C.int(len(work)),
		&iwork[0], C.int(liwork)))
}
