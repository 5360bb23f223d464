package study

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rffkit/rff/internal/datadir"
)

// heapPeak runs f and returns the largest growth of the live heap over its value before f, sampled every 100 µs
// with the collector run at 10% growth (so that garbage adds little), and the bytes f allocated in all.
func heapPeak(f func()) (peak, total float64) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, total0 := ms.HeapAlloc, ms.TotalAlloc
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		var high uint64
		for {
			runtime.ReadMemStats(&m)
			high = max(high, m.HeapAlloc)
			select {
			case <-stop:
				done <- high
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	f()
	close(stop)
	high := <-done
	runtime.ReadMemStats(&ms)
	high = max(high, ms.HeapAlloc)
	return math.Max(float64(high)-float64(base), 0), float64(ms.TotalAlloc - total0)
}

// The estimates of the studies are within a small factor of the peak heap their Run reaches, on settings whose
// large arrays (pairs, Monte Carlo samples, frequencies, statistics, Gram matrices, data) are tens of MiB.
func TestMemoryEstimates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs studies of a few hundred MiB")
	}
	fig1a := NewORFFFig1A() // the pairs: 2·Pairs·d values
	fig1a.Kernels, fig1a.Pairs, fig1a.Ds, fig1a.Runs = []string{"curl-free"}, 400000, []int{8, 16}, 1
	div := NewORFFFig1A() // a div-free map: D·d·(d−1) factors
	div.Kernels, div.Dim, div.Points, div.Pairs, div.Ds, div.Runs = []string{"div-free"}, 60, 100, 64, []int{8, 2000}, 1
	lr := NewRatesLr() // the Monte Carlo differences
	lr.Samples, lr.Ms, lr.Runs, lr.Rs = 2000000, []int{16, 32}, 1, []float64{2}
	sup := NewRatesSup() // the frequencies materialized, and the projections of the candidates
	sup.Dims, sup.Ms, sup.Runs, sup.Search = []int{200}, []int{16, 20000}, 1, Search{Candidates: 2000, Starts: 2, Steps: 5}
	multi := NewORFFMultitask() // the data and the statistics of the map
	multi.Ns, multi.D, multi.Runs, multi.Test, multi.Validation = []int{20, 100000}, 300, 1, 500, 500
	fig3 := NewORFFFig3() // the exact curl-free OVK's block Gram matrix
	fig3.Train, fig3.Test, fig3.Ds, fig3.ExactN, fig3.TimeNs, fig3.TimeD, fig3.TimeExactMaxRows, fig3.Checks,
		fig3.Lambda, fig3.Runs = 1500, 200, []int{20, 40}, 900, []int{100}, 10, 200, 5, 1e-3, 1
	studies := []struct {
		name string
		s    Study
	}{{"orff-fig1a", fig1a}, {"orff-fig1a div-free", div}, {"rates-lr", lr}, {"rates-sup", sup},
		{"orff-multitask", multi}, {"orff-fig3", fig3}}
	if _, ok := datadir.Path("usps"); ok {
		q2 := NewQuadFig2() // USPS and the feature matrix of its training split
		q2.DataDir, q2.Datasets, q2.Kernels, q2.Rules, q2.Ns, q2.Runs = datadir.Dir(), []string{"usps"},
			[]string{"gaussian"}, []string{"g"}, []int{2}, 1
		studies = append(studies, struct {
			name string
			s    Study
		}{"quad-fig2", q2})
	}
	for _, c := range studies {
		if err := c.s.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var err error
		peak, total := heapPeak(func() { _, err = c.s.Run(context.Background()) })
		if err != nil && !strings.Contains(err.Error(), "need at least 2 points") {
			t.Fatalf("%s: %v", c.name, err)
		}
		est := c.s.Memory()
		t.Logf("%s: estimate %.1f MiB, peak heap %.1f MiB (%.2f×), %.1f MiB allocated", c.name, est/(1<<20),
			peak/(1<<20), est/peak, total/(1<<20))
		if peak < 16<<20 {
			t.Errorf("%s: peak %.1f MiB: too small a setting to test the estimate", c.name, peak/(1<<20))
		}
		if est < peak/2 || est > 3*peak {
			t.Errorf("%s: estimate %.1f MiB against a peak of %.1f MiB", c.name, est/(1<<20), peak/(1<<20))
		}
	}
}

// Validate refuses sizes that overflow or exceed one array without building anything of their size, and Memory
// grows with the settings that size the arrays, without overflowing.
func TestMemoryHostile(t *testing.T) {
	fig1a := NewORFFFig1A()
	fig1a.Dim = 1 << 40
	fig1b := NewORFFFig1B()
	fig1b.Dim = 1 << 40
	deriv := NewRatesDeriv()
	deriv.Dim, deriv.Ms = 1<<40, []int{1}
	multi := NewORFFMultitask()
	multi.Validation = math.MaxInt
	fig3 := NewORFFFig3()
	fig3.Train = math.MaxInt - 1
	for _, s := range []Study{fig1a, fig1b, deriv, multi, fig3} {
		var err error
		_, total := heapPeak(func() { err = s.Validate() })
		if err == nil || total > 1<<20 {
			t.Errorf("%T: Validate = %v after allocating %.0f bytes", s, err, total)
		}
	}
	s := NewORFFFig1A()
	small := s.Memory()
	s.Pairs *= 1000
	if grew := s.Memory() - small; math.Abs(grew-8*(2*4+1)*999*4096) > 1 {
		t.Errorf("1000× the pairs: the estimate grew by %g bytes", grew)
	}
	s.Pairs, s.Runs = math.MaxInt, math.MaxInt
	if m := s.Memory(); math.IsInf(m, 0) || math.IsNaN(m) || m < 1e19 {
		t.Errorf("absurd settings: estimate %g", m)
	}
}
