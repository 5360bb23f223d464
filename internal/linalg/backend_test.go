package linalg

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestDecideCoreType(t *testing.T) {
	zen3 := cpuInfo{x86: true, avx: true, avx2: true, amd: true}
	intelAVX2 := cpuInfo{x86: true, avx: true, avx2: true}
	avx512 := cpuInfo{x86: true, avx: true, avx2: true, avx512: true}
	zen4 := cpuInfo{x86: true, avx: true, avx2: true, avx512: true, amd: true}
	old := cpuInfo{x86: true, avx: true}
	arm := cpuInfo{}
	cases := []struct {
		env       string
		set       bool
		cpu       cpuInfo
		value     string
		source    string
		wantsNote bool
	}{
		{"", false, avx512, "SkylakeX", coreAuto, false},
		{"", false, zen4, "SkylakeX", coreAuto, false},
		{"", false, zen3, "Zen", coreAuto, false},
		{"", false, intelAVX2, "Haswell", coreAuto, false},
		{"", false, old, "", coreNone, false},
		{"", false, arm, "", coreNone, false},
		{"Prescott", true, avx512, "Prescott", coreEnv, false}, // the user's choice is kept when it can run
		{"haswell", true, avx512, "haswell", coreEnv, false},
		{"SkylakeX", true, avx512, "SkylakeX", coreEnv, false},
		{"SkylakeX", true, zen3, "Zen", coreCorrected, true}, // would die with SIGILL
		{"cooperlake", true, intelAVX2, "Haswell", coreCorrected, true},
		{"Haswell", true, old, "", coreCorrected, true},
		{"", true, zen3, "Zen", coreAuto, false}, // set but empty counts as unset
		{" ", true, old, "", coreCorrected, true},
		{"NeoverseN1", true, arm, "NeoverseN1", coreEnv, false},
		{"SkylakeX", true, arm, "SkylakeX", coreEnv, false}, // not x86: nothing is checked
	}
	for _, c := range cases {
		v, src, note := decideCoreType(c.env, c.set, c.cpu)
		if v != c.value || src != c.source || (note != "") != c.wantsNote {
			t.Errorf("decideCoreType(%q, %v, %+v) = %q, %q, %q; want %q, %q, note %v",
				c.env, c.set, c.cpu, v, src, note, c.value, c.source, c.wantsNote)
		}
	}
}

func TestInfoString(t *testing.T) {
	cases := map[string]BackendInfo{
		"openblas 0.3.21 (SkylakeX, 2 threads)": {Backend: OpenBLAS, Version: "0.3.21", CoreType: "SkylakeX", Threads: 2},
		"openblas 0.3.21 (Zen, 1 thread)":       {Backend: OpenBLAS, Version: "0.3.21", CoreType: "Zen", Threads: 1},
		"pure Go (gonum)":                       {Backend: PureGo, Threads: 2},
		"pure Go (gonum); RFF_BLAS=openblas: x": {Backend: PureGo, Err: fmt.Errorf("RFF_BLAS=openblas: x")},
	}
	for want, info := range cases {
		if got := info.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
	if v := configVersion("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64"); v != "0.3.21" {
		t.Errorf("configVersion = %q", v)
	}
}

func TestUseAndInfo(t *testing.T) {
	restore := switchTo(t, PureGo)
	defer restore()
	if s := Info().String(); s != "pure Go (gonum)" {
		t.Errorf("pure Go Info = %q", s)
	}
	if err := Use("fortran"); err == nil {
		t.Error("Use accepted an unknown backend")
	}
	if err := Use(OpenBLAS); err != nil {
		t.Logf("OpenBLAS unavailable: %v", err)
		if Info().Backend != PureGo {
			t.Error("failed Use changed the backend")
		}
		return
	}
	info := Info()
	t.Logf("%s; %+v", info, info)
	if info.Backend != OpenBLAS || !strings.HasPrefix(info.String(), "openblas 0.") || info.Threads < 1 || info.CoreType == "" {
		t.Errorf("OpenBLAS Info = %q (%+v)", info, info)
	}
	// The core type this package set is in the C environment OpenBLAS read,
	// and OpenBLAS runs it.
	value, source, _ := loadedCoreType()
	if source == coreAuto || (source == coreCorrected && value != "") {
		if got, ok := cGetenv("OPENBLAS_CORETYPE"); !ok || got != value {
			t.Errorf("C environment OPENBLAS_CORETYPE = %q, %v; want %q", got, ok, value)
		}
		if !strings.EqualFold(info.CoreType, value) {
			t.Errorf("OpenBLAS runs %q, asked for %q", info.CoreType, value)
		}
	}
	// The thread time-out: this package's when the process started without one, the user's otherwise.
	want := threadTimeout
	if timeoutWasSet {
		want = timeoutAtStart
	}
	if got, ok := cGetenv("OPENBLAS_THREAD_TIMEOUT"); !ok || got != want || info.ThreadTimeout != want {
		t.Errorf("C environment OPENBLAS_THREAD_TIMEOUT = %q, %v, Info().ThreadTimeout = %q; want %q", got, ok, info.ThreadTimeout, want)
	}
	prev := info.Threads
	if n := SetThreads(1); n != 1 || Info().Threads != 1 {
		t.Errorf("SetThreads(1) = %d, Info().Threads = %d", n, Info().Threads)
	}
	// SetThreads(0) is the default count, whatever GOMAXPROCS is.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if n, want := SetThreads(0), defaultOpenBLASThreads(info); n != want || Info().Threads != want {
		t.Errorf("SetThreads(0) with GOMAXPROCS=1 = %d, Info().Threads = %d; want DefaultThreads = %d", n, Info().Threads, want)
	}
	SetThreads(prev)
	goThreads.Store(0)
}

// defaultOpenBLASThreads is DefaultThreads as OpenBLAS applies it: capped at
// the MAX_THREADS it was built with.
func defaultOpenBLASThreads(info BackendInfo) int {
	n := DefaultThreads()
	for _, f := range strings.Fields(info.Config) {
		if v, ok := strings.CutPrefix(f, "MAX_THREADS="); ok {
			if m, err := strconv.Atoi(v); err == nil && m > 0 {
				n = min(n, m)
			}
		}
	}
	return n
}

// TestConcurrentCalls runs products from many goroutines at once (the library
// is serialized inside; gonum-sized calls stay concurrent) and checks each.
func TestConcurrentCalls(t *testing.T) {
	withBackend(t, func(t *testing.T) {
		const n = 96
		rng := rand.New(rand.NewPCG(13, 13))
		a, b := randSlice(rng, n*n), randSlice(rng, n*n)
		want := make([]float64, n*n)
		goBlas.Dgemm('N', 'T', n, n, n, 1, a, n, b, n, 0, want, n)
		wantG := make([]float64, n*n)
		goBlas.Dsyrk('U', 'T', n, n, 1, a, n, 0, wantG, n)
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := make([]float64, n*n)
				for it := 0; it < 20; it++ {
					Gemm(false, true, n, n, n, 1, a, n, b, n, 0, c, n)
					for i := range c {
						if math.Abs(c[i]-want[i]) > 1e-12 {
							errs <- fmt.Sprintf("Gemm element %d = %v, want %v", i, c[i], want[i])
							return
						}
					}
					clear(c)
					Syrk(n, n, 1, a, n, 0, c, n)
					for i := 0; i < n; i++ {
						for j := i; j < n; j++ {
							if math.Abs(c[i*n+j]-wantG[i*n+j]) > 1e-12 {
								errs <- fmt.Sprintf("Syrk (%d,%d) = %v, want %v", i, j, c[i*n+j], wantG[i*n+j])
								return
							}
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
}

// helperEnv marks the test binary re-run by TestEnvironment.
const helperEnv = "RFF_LINALG_TEST_HELPER"

// TestHelperProcess is not a test: TestEnvironment runs the test binary with
// it and a chosen environment, which TestMain's UseEnv reads. It checks one
// product on the backend UseEnv chose and prints, as JSON, Info, UseEnv's
// error and the process state before UseEnv.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper for TestEnvironment")
	}
	const n = 200
	rng := rand.New(rand.NewPCG(14, 14))
	a, b := randSlice(rng, n*n), randSlice(rng, n*n)
	got, want := make([]float64, n*n), make([]float64, n*n)
	Gemm(false, false, n, n, n, 1, a, n, b, n, 0, got, n)
	goBlas.Dgemm('N', 'N', n, n, n, 1, a, n, b, n, 0, want, n)
	maxDiff(t, got, want, 1e-12, "Gemm in helper")
	info := Info()
	errText, useErr := "", ""
	if info.Err != nil {
		errText = info.Err.Error()
	}
	if envErr != nil {
		useErr = envErr.Error()
	}
	out, _ := json.Marshal(helperInfo{info.Backend, info.CoreType, info.CoreTypeSource, info.Threads, info.Note,
		errText, info.String(), useErr, atImport, observe().Mapped})
	fmt.Printf("INFO %s\n", out)
}

type helperInfo struct {
	Backend, CoreType, CoreTypeSource string
	Threads                           int
	Note, ErrText, Str                string
	UseEnvErr                         string       // what UseEnv returned
	AtImport                          processState // before UseEnv
	MappedAfter                       bool         // libopenblas mapped after UseEnv and a product
}

func runHelper(t *testing.T, env ...string) helperInfo {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	for _, k := range []string{"RFF_BLAS", "RFF_THREADS", "RFF_OPENBLAS_LIB", "OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS"} {
		cmd.Env = append(cmd.Env, k+"=") // reset, then override below
	}
	cmd.Env = append(cmd.Env, env...)
	var clean []string
	seen := map[string]int{}
	for _, kv := range cmd.Env {
		k := kv[:strings.IndexByte(kv, '=')]
		if i, ok := seen[k]; ok {
			clean[i] = kv
			continue
		}
		seen[k] = len(clean)
		clean = append(clean, kv)
	}
	// An empty value is not the same as unset for OPENBLAS_CORETYPE: drop resets.
	cmd.Env = cmd.Env[:0]
	for _, kv := range clean {
		if !strings.HasSuffix(kv, "=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper with %v: %v\n%s", env, err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "INFO "); ok {
			var h helperInfo
			if err := json.Unmarshal([]byte(rest), &h); err != nil {
				t.Fatal(err)
			}
			return h
		}
	}
	t.Fatalf("helper with %v printed no INFO:\n%s", env, out)
	return helperInfo{}
}

// TestEnvironment checks UseEnv's handling of RFF_BLAS, RFF_THREADS,
// RFF_OPENBLAS_LIB and OPENBLAS_CORETYPE, in child processes; and that before
// UseEnv, whatever the variables say, the child is on pure Go with gonum's own
// BLAS, no OpenBLAS mapped and no OPENBLAS_CORETYPE set (the children start
// without it).
func TestEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	run := func(env ...string) helperInfo {
		t.Helper()
		h := runHelper(t, env...)
		checkImportState(t, h.AtImport, fmt.Sprint("child with ", env))
		want := "-"
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "OPENBLAS_CORETYPE="); ok {
				want = v
			}
		}
		if h.AtImport.CoreType != want {
			t.Errorf("child with %v: OPENBLAS_CORETYPE in the C environment before UseEnv = %q, want %q", env, h.AtImport.CoreType, want)
		}
		if h.UseEnvErr != h.ErrText {
			t.Errorf("child with %v: UseEnv returned %q, Info().Err is %q", env, h.UseEnvErr, h.ErrText)
		}
		return h
	}
	h := run("RFF_BLAS=go")
	if h.Backend != PureGo || h.Str != "pure Go (gonum)" {
		t.Errorf("RFF_BLAS=go: %q", h.Str)
	}
	h = run("RFF_BLAS=openblas", "RFF_OPENBLAS_LIB=/nonexistent/libopenblas.so.0")
	if h.Backend != PureGo || !strings.Contains(h.UseEnvErr, "RFF_BLAS=openblas") {
		t.Errorf("RFF_BLAS=openblas with a missing library must be an error: %+v", h)
	}
	h = run("RFF_OPENBLAS_LIB=/nonexistent/libopenblas.so.0")
	if h.Backend != PureGo || h.UseEnvErr != "" || h.Note == "" {
		t.Errorf("auto with a missing library must fall back quietly: %+v", h)
	}
	h = run("RFF_BLAS=fortran")
	if h.Backend != PureGo || h.UseEnvErr == "" {
		t.Errorf("RFF_BLAS=fortran: %+v", h)
	}
	h = run("RFF_THREADS=zero")
	if h.UseEnvErr == "" {
		t.Errorf("RFF_THREADS=zero: no error: %+v", h)
	}

	auto := run()
	t.Logf("default: %s (core type source %q, note %q)", auto.Str, auto.CoreTypeSource, auto.Note)
	if auto.Backend != OpenBLAS {
		t.Skipf("OpenBLAS not available: %s", auto.Note)
	}
	if runtime.GOOS == "linux" && !auto.MappedAfter {
		t.Errorf("OpenBLAS in use but not mapped: %+v", auto)
	}
	h = run("RFF_THREADS=1")
	if h.Backend != OpenBLAS || h.Threads != 1 {
		t.Errorf("RFF_THREADS=1: %+v", h)
	}
	// By default OpenBLAS runs DefaultThreads threads, whatever GOMAXPROCS
	// is: its rounding depends on its thread count.
	if os.Getenv("GOTO_NUM_THREADS") == "" && os.Getenv("OMP_NUM_THREADS") == "" {
		for _, procs := range []string{"1", "3"} {
			h = run("GOMAXPROCS=" + procs)
			if want := defaultOpenBLASThreads(Info()); h.Threads != want {
				t.Errorf("GOMAXPROCS=%s: OpenBLAS runs %d threads, want DefaultThreads = %d", procs, h.Threads, want)
			}
		}
	}
	h = run("OPENBLAS_CORETYPE=Prescott")
	if !strings.EqualFold(h.CoreType, "Prescott") || h.CoreTypeSource != coreEnv {
		t.Errorf("OPENBLAS_CORETYPE=Prescott must be kept: %+v", h)
	}
	// SkylakeX kernels on a CPU without AVX-512 die with SIGILL; the package
	// must replace the value (and the helper's product must run).
	h = run("OPENBLAS_CORETYPE=SkylakeX")
	if cpuFeatures().avx512 {
		if !strings.EqualFold(h.CoreType, "SkylakeX") {
			t.Errorf("OPENBLAS_CORETYPE=SkylakeX on AVX-512: %+v", h)
		}
	} else if cpuFeatures().x86 && (h.CoreTypeSource != coreCorrected || strings.EqualFold(h.CoreType, "SkylakeX")) {
		t.Errorf("OPENBLAS_CORETYPE=SkylakeX without AVX-512 was not corrected: %+v", h)
	}
}
