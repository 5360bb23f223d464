package linalg

import (
	"math"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// DefaultThreads is the number of threads each OpenBLAS call uses unless
// RFF_THREADS, OPENBLAS_NUM_THREADS (GOTO_NUM_THREADS, OMP_NUM_THREADS) or
// [SetThreads] says otherwise: the CPUs the process may run on
// (runtime.NumCPU), lowered to the CPU bandwidth limit of its cgroup rounded
// up (at least 2) when there is one — the GOMAXPROCS the Go runtime chooses
// when the GOMAXPROCS variable is unset. It depends on the machine (and
// container) only, never on GOMAXPROCS or runtime.GOMAXPROCS calls:
// OpenBLAS's dgemm, dtrsm, dtrmm, dsymm, dpotrf and dsyevd split their sums
// differently for different thread counts, so a count that followed
// GOMAXPROCS would make results depend on it. It is computed once.
func DefaultThreads() int {
	defaultThreadsOnce.Do(func() {
		defaultThreadsN = threadsFor(runtime.NumCPU(), cgroupCPULimit(os.ReadFile))
	})
	return defaultThreadsN
}

var (
	defaultThreadsOnce sync.Once
	defaultThreadsN    int
)

// threadsFor is the rule of DefaultThreads: ncpu, or the cgroup limit rounded
// up to a whole number of at least 2 when that is smaller (limit ≤ 0: none).
func threadsFor(ncpu int, limit float64) int {
	n := max(ncpu, 1)
	if limit > 0 {
		n = min(n, max(2, int(math.Ceil(limit))))
	}
	return n
}

// cgroupRoot is where Linux mounts the cgroup file systems.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupCPULimit returns the CPU bandwidth limit (quota/period, in CPUs) of
// the process's cgroup, the smallest along its path to the root of the
// hierarchy, or 0 when there is none or it cannot be read. It reads
// /proc/self/cgroup and cgroup v2's cpu.max (a "0::/path" line) or v1's
// cpu.cfs_quota_us and cpu.cfs_period_us (a line whose controllers include
// cpu) under /sys/fs/cgroup, with read (os.ReadFile; tests pass a fake).
// Directories missing on the way up are skipped: inside a container the
// cgroup's path may name the host's hierarchy while its own cgroup is mounted
// at the root.
func cgroupCPULimit(read func(string) ([]byte, error)) float64 {
	b, err := read("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	limit := 0.0
	lower := func(l float64) {
		if l > 0 && (limit == 0 || l < limit) {
			limit = l
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			continue
		}
		if f[0] == "0" && f[1] == "" { // cgroup v2
			for _, dir := range ancestors(f[2]) {
				lower(cpuMaxV2(read, path.Join(cgroupRoot, dir, "cpu.max")))
				lower(cpuMaxV2(read, path.Join(cgroupRoot, "unified", dir, "cpu.max")))
			}
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c != "cpu" {
				continue
			}
			for _, mount := range []string{f[1], "cpu", "cpu,cpuacct", "cpuacct,cpu"} {
				for _, dir := range ancestors(f[2]) {
					lower(cpuQuotaV1(read, path.Join(cgroupRoot, mount, dir)))
				}
			}
		}
	}
	return limit
}

// ancestors returns p ("/a/b") and its parents up to the root: /a/b, /a, /.
func ancestors(p string) []string {
	p = path.Clean(p)
	out := []string{p}
	for p != "/" {
		p = path.Dir(p)
		out = append(out, p)
	}
	return out
}

// cpuMaxV2 parses cgroup v2's cpu.max ("quota period", or "max period"): the
// limit in CPUs, or 0.
func cpuMaxV2(read func(string) ([]byte, error), file string) float64 {
	b, err := read(file)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 || f[0] == "max" {
		return 0
	}
	return ratio(f[0], f[1])
}

// cpuQuotaV1 reads cgroup v1's cpu.cfs_quota_us (−1: no limit) and
// cpu.cfs_period_us in dir: the limit in CPUs, or 0.
func cpuQuotaV1(read func(string) ([]byte, error), dir string) float64 {
	q, err := read(path.Join(dir, "cpu.cfs_quota_us"))
	if err != nil {
		return 0
	}
	p, err := read(path.Join(dir, "cpu.cfs_period_us"))
	if err != nil {
		return 0
	}
	return ratio(strings.TrimSpace(string(q)), strings.TrimSpace(string(p)))
}

func ratio(quota, period string) float64 {
	q, err1 := strconv.ParseFloat(quota, 64)
	p, err2 := strconv.ParseFloat(period, 64)
	if err1 != nil || err2 != nil || !(q > 0) || !(p > 0) || math.IsInf(q, 0) || math.IsInf(p, 0) {
		return 0
	}
	return q / p
}

// threadTimeout is the OPENBLAS_THREAD_TIMEOUT set when the user has not set
// one: OpenBLAS's worker threads spin for 2^4 cycles after a call instead of
// the default 2^28 (about 0.1 s) before they sleep. This package's callers
// compute on all cores between BLAS calls — mapping blocks of rows, the tiles of
// the Gram update, FALKON's kernel blocks — and spinning workers took those
// cores: on two Zen 3 cores the fused map → Gram accumulation at F = 2048 ran
// at 50–66 GFLOP/s with the default and 59–70 with this, FALKON on LETTER
// (M = 1000, 20 iterations) in a median 1.88 s against 2.23 s, the Nyström
// ridge on LETTER (M = 500, 1000) in 0.26 and 0.63 s against 0.30 and 0.70 s
// (docs/performance.md).
const threadTimeout = "4"
