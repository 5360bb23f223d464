package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/internal/datadir"
	"github.com/rffkit/rff/internal/study"
)

// reproHostile are, for every study, settings that must be refused before anything is allocated: sizes that overflow
// an int or exceed one array, needs above any memory budget, values that mean nothing (negative, zero, NaN). Each
// case is the arguments, separated by spaces, and a part of the one line of the refusal that says why. The cases
// that need less than a machine may have (runs, arrays of a few GiB) give their budget with --max-memory, so that
// they are refused on any machine.
var reproHostile = map[string][][2]string{
	"orff-fig1a": {
		{"--pairs 10000000000", "memory budget"},
		{"-d 1000000000", "--points × --d"},
		{"--points 100000000000", "--points × --d"},
		{"--D 10000000000", "--D × --d"},
		{"-d 100000", "--D × --d"}, // decomposable: D·d·d values
		{"--kernels curl-free -d 100000", "memory budget"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--runs 1000000000000", "--runs"},
		{"--runs -1", "runs"},
		{"--pairs -5", "pairs"},
		{"--points 0", "points"},
		{"--sigma nan", "σ"},
		{"--D 8,-1", "D must be at least 1"},
		{"--max-memory lots", "max-memory"},
		{"--D 8", "--D needs at least 2 distinct values"},
		{"--D 8,8", "--D needs at least 2 distinct values"},
		{"--points 1", "points at least 2"},
		{"--sigma 1e-200", "over- or underflows"},
	},
	"orff-fig1b": {
		{"--seeds 2000000000", "memory budget"},
		{"-d 1000000000", "--seeds × --d × --d"},
		{"--D 10000000000", "--D × --d"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--seeds -3", "seeds"},
		{"--sigma nan", "σ"},
		{"--D 8", "--D needs at least 2 distinct values"},
	},
	"orff-fig2": {
		{"--N 10000000000", "--N × d"},
		{"--N 100000000", "memory budget"},
		{"--n-error 100000000", "memory budget"},
		{"--D 1000000000", "--D"},
		{"--time-D 100000000", "--time-D"},
		{"--test 100000000000", "--test × d"},
		{"--test -1", "test rows"},
		{"--runs 2000000000000", "--runs"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--lambda nan", "λ"},
		{"--lambda-grid 1e-3,nan", "λ grid"},
		{"--exact-max-gib 1e300", "exact-max-gib"},
		{"--exact-max-gib nan", "exact-max-gib"},
	},
	"orff-fig3": {
		{"--train 10000000000000", "--train + --test"},
		{"--train 9223372036854775807", "--train + --test"},
		{"--train 1000000000", "memory budget"},
		{"--time-N 100000000000", "--time-N"},
		{"--time-N 1000000000", "memory budget"},
		{"--D 10000000000", "--D"},
		{"--time-D 10000000000", "--time-D"},
		{"--exact-n 20000 --train 20000 --exact-max-gib 100", "memory budget"},
		{"--exact-max-gib 1e300", "exact-max-gib"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--noise nan", "noise"},
		{"--checks -1", "checks"},
		{"--lambda nan", "λ"},
	},
	"orff-multitask": {
		{"--N 100000000000", "largest --N"},
		{"--validation 9223372036854775807", "largest --N"},
		{"--N 100,200000000", "memory budget"},
		{"--D 1000000000", "--D"},
		{"--D 100000", "memory budget"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--test -1", "test"},
		{"--noise nan", "noise"},
		{"--lambda-grid nan", "λ grid"},
	},
	"quad-fig2": {
		{"--n 100000", "--n"},
		{"--n 1000000000000000000", "--n"},
		{"--n 3000 --datasets powerplant", "memory budget"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--runs 1000000000000", "--runs"},
		{"--runs -1", "runs"},
		{"--n -1", "n must be at least 1"},
	},
	"quad-fig3": {
		{"--rows 100000000000", "--rows"},
		{"--rows 100000000", "--rows ×"},
		{"--rows 100000000 --datasets letter", "memory budget"},
		{"--n 1000000", "--n"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--runs 1000000000000", "--runs"},
		{"--rows -1", "rows"},
	},
	"rates-sup": {
		{"--m 32", "--m needs at least 2 distinct values"},
		{"--sigma 1e300", "over- or underflows"},
		{"--m 10000000000", "--m × --d"},
		{"--d 1000000000", "× --d"},
		{"--d 100000", "memory budget"},
		{"--candidates 100000000000", "--candidates × --d"},
		{"--candidates 5000000000 --d 1", "memory budget"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--delta nan", "δ"},
		{"--sigma nan", "σ"},
		{"--d 1,-2", "dimension"},
	},
	"rates-diameter": {
		{"--m 10000000000", "--m × --d"},
		{"--density 1e300 --max-candidates 100000000000", "memory budget"},
		{"--candidates 200000000000", "--candidates"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--density nan", "density"},
		{"--diameters 1,nan", "diameter"},
		{"--m -1", "m must be at least 1"},
	},
	"rates-lr": {
		{"--samples 100000000000", "memory budget"},
		{"--samples 1000000000000", "--samples"},
		{"--m 10000000000", "--m × --d"},
		{"--d 1000000000", "× --d"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--r nan", "L^r"},
		{"--samples -1", "samples"},
	},
	"rates-deriv": {
		{"--d 1000000000", "× --d"},
		{"--m 10000000000", "--m × --d"},
		{"--cases 99999e1:0", "order"},
		{"--cases 9223372036854775807e1:e1", "order"},
		{"--runs 2000000000 --max-memory 8GiB", "memory budget"},
		{"--delta nan", "δ"},
	},
}

// TestReproHostile runs the hostile settings of every study in-process: each exits 2 with one line on stderr that
// says why (naming the flag, or the memory budget) and nothing on stdout, without a panic, within 2 s and without
// allocating more than 100 MiB.
func TestReproHostile(t *testing.T) {
	t.Setenv(datadir.Env, t.TempDir()) // a data directory without datasets: the data studies get past its check
	for _, e := range study.All() {
		cases := reproHostile[e.Name]
		if len(cases) == 0 {
			t.Errorf("%s: no hostile settings", e.Name)
		}
		for _, c := range cases {
			args := append([]string{"repro", e.Name, "--out", t.TempDir()}, strings.Fields(c[0])...)
			t.Run(e.Name+" "+c[0], func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				start := time.Now()
				code, stdout, stderr := reproRecover(args)
				took := time.Since(start)
				runtime.ReadMemStats(&after)
				if code != 2 || strings.Count(stderr, "\n") != 1 || stdout != "" || !strings.Contains(stderr, c[1]) {
					t.Errorf("exit %d, stdout %q, stderr %q (want a line with %q)", code, stdout, stderr, c[1])
				}
				if took > 2*time.Second {
					t.Errorf("took %v", took)
				}
				if grew := after.TotalAlloc - before.TotalAlloc; grew > 100<<20 {
					t.Errorf("allocated %d MiB", grew>>20)
				}
			})
		}
	}
}

// reproRecover runs the command line like reproCLI and turns a panic on the calling goroutine into exit code -1
// with the panic on stderr, so that one bad case fails its test instead of ending the test binary.
func reproRecover(args []string) (code int, stdout, stderr string) {
	defer func() {
		if v := recover(); v != nil {
			code, stderr = -1, fmt.Sprintf("panic: %v\n", v)
		}
	}()
	return reproCLI(args...)
}

// Every study's memory estimate is a positive number at its defaults, and --max-memory refuses a study whose
// estimate exceeds it, in one line with the bytes and the flags that lower the need, before any work.
func TestReproMaxMemory(t *testing.T) {
	t.Setenv(datadir.Env, t.TempDir())
	for _, e := range study.All() {
		s := e.New()
		if need := s.Memory(); !(need > 0) || need > 1<<40 {
			t.Errorf("%s: default estimate %g bytes", e.Name, need)
		}
		code, stdout, stderr := reproCLI("repro", e.Name, "--out", t.TempDir(), "--max-memory", "1KiB")
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, e.Name+" needs about ") ||
			!strings.Contains(stderr, "memory budget of 1 KiB") || !strings.Contains(stderr, "lower "+s.MemoryFlags()+" or raise --max-memory") {
			t.Errorf("%s --max-memory 1KiB: exit %d, stdout %q, stderr %q", e.Name, code, stdout, stderr)
		}
	}
}

// TestReproEmptyOut: an empty --out is refused by name, not as "mkdir : no such file or directory".
func TestReproEmptyOut(t *testing.T) {
	code, stdout, stderr := runCLI("repro", "rates-sup", "--out", "")
	if code != 2 || stdout != "" || stderr != "rff repro: --out must name a directory for the figures\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
