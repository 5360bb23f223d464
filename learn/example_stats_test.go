package learn_test

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/rule"
)

// maxAbsDiff returns the largest |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// ExampleAccumulate maps a data set held in memory through a feature map in one call and returns the sufficient
// statistics of ridge regression: ZᵀZ, ZᵀY, Σz, Σy, Σy² and N. The N×F feature matrix is never formed.
func ExampleAccumulate() {
	X, Y := data(300)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1) // 50 points → 100 columns
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 300, Y, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("N = %d rows, F = %d features, P = %d output; ZᵀZ has %d entries\n", s.N, s.F, s.P, len(s.ZtZ))
	fmt.Printf("mean target Σy/N = %.3f\n", s.SumY[0]/float64(s.N))
	// The same statistics serve every λ: solve twice without another pass over the data (the true f(0.3) is 2.78;
	// the larger λ smooths more).
	for _, lambda := range []float64{1e-6, 1e-2} {
		fit, err := learn.Ridge{Lambda: lambda, Intercept: true}.Solve(s)
		if err != nil {
			panic(err)
		}
		pred := make([]float64, 1)
		if err := fit.PredictMap(pred, m, []float64{0.3}, 1); err != nil {
			panic(err)
		}
		fmt.Printf("λ = %g: f(0.3) = %.2f\n", lambda, pred[0])
	}
	// Output:
	// N = 300 rows, F = 100 features, P = 1 output; ZᵀZ has 10000 entries
	// mean target Σy/N = 2.000
	// λ = 1e-06: f(0.3) = 2.78
	// λ = 0.01: f(0.3) = 2.75
}

// ExampleNewAccumulator streams rows in batches (as they would be read from a file) into one set of statistics,
// following the progress through the Progress field.
func ExampleNewAccumulator() {
	X, Y := data(1000)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	acc, err := learn.NewAccumulator(m, 1)
	if err != nil {
		panic(err)
	}
	var mapped atomic.Int64 // Progress may be called from several goroutines at once
	acc.Progress = func(rows int) { mapped.Add(int64(rows)) }
	const batch = 300
	for i := 0; i < 1000; i += batch {
		j := min(i+batch, 1000)
		if err := acc.Add(X[i:j], j-i, Y[i:j]); err != nil {
			panic(err)
		}
	}
	s, err := acc.Stats()
	if err != nil {
		panic(err)
	}
	fmt.Println("rows mapped:", mapped.Load(), "rows in the statistics:", s.N)
	// Output: rows mapped: 1000 rows in the statistics: 1000
}

// ExampleAccumulator_Add shows that a batch with a bad value is refused whole, naming the row, and that the
// accumulator stays usable: the next batches are added as if the bad one had never been offered.
func ExampleAccumulator_Add() {
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 20, 1)
	if err != nil {
		panic(err)
	}
	acc, err := learn.NewAccumulator(m, 1)
	if err != nil {
		panic(err)
	}
	X := []float64{-0.5, 0, 0.5}
	Y := []float64{1, math.NaN(), 3}
	fmt.Println(acc.Add(X, 3, Y))
	Y[1] = 2
	if err := acc.Add(X, 3, Y); err != nil {
		panic(err)
	}
	s, err := acc.Stats()
	if err != nil {
		panic(err)
	}
	fmt.Println("rows:", s.N, "Σy:", s.SumY[0])
	// Output:
	// learn.Accumulator.Add: Y row 2, output 1 is NaN
	// rows: 3 Σy: 6
}

// ExampleAccumulator_Stats finishes the accumulation; the accumulator cannot take more rows afterwards.
func ExampleAccumulator_Stats() {
	X, Y := data(100)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 20, 1)
	if err != nil {
		panic(err)
	}
	acc, err := learn.NewAccumulator(m, 1)
	if err != nil {
		panic(err)
	}
	if err := acc.Add(X, 100, Y); err != nil {
		panic(err)
	}
	s, err := acc.Stats()
	if err != nil {
		panic(err)
	}
	fmt.Println("rows:", s.N, "valid:", s.Validate() == nil)
	fmt.Println(acc.Add(X, 100, Y))
	// Output:
	// rows: 100 valid: true
	// learn.Accumulator.Add: the accumulator's statistics were already taken
}

// ExampleStats_Merge accumulates two shards of a data set separately — on two machines, say — and merges them:
// the fit is that of the statistics of all rows at once, up to rounding.
func ExampleStats_Merge() {
	X, Y := data(400)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 50, 1)
	if err != nil {
		panic(err)
	}
	shard1, err := learn.Accumulate(m, X[:150], 150, Y[:150], 1)
	if err != nil {
		panic(err)
	}
	shard2, err := learn.Accumulate(m, X[150:], 250, Y[150:], 1)
	if err != nil {
		panic(err)
	}
	if err := shard1.Merge(shard2); err != nil {
		panic(err)
	}
	whole, err := learn.Accumulate(m, X, 400, Y, 1)
	if err != nil {
		panic(err)
	}
	r := learn.Ridge{Lambda: 1e-4, Intercept: true}
	merged, err := r.Solve(shard1)
	if err != nil {
		panic(err)
	}
	direct, err := r.Solve(whole)
	if err != nil {
		panic(err)
	}
	at := []float64{-0.7, 0, 0.3, 0.9}
	p1, p2 := make([]float64, 4), make([]float64, 4)
	if err := merged.PredictMap(p1, m, at, 4); err != nil {
		panic(err)
	}
	if err := direct.PredictMap(p2, m, at, 4); err != nil {
		panic(err)
	}
	fmt.Println("rows:", shard1.N)
	fmt.Println("same predictions within 1e-9:", maxAbsDiff(p1, p2) < 1e-9)
	// Output:
	// rows: 400
	// same predictions within 1e-9: true
}

// ExampleNewStats builds statistics from a feature matrix held in memory, block by block with Stats.Add, the low-level
// path under Accumulate (which maps the rows itself). Add fills the upper triangle of ZᵀZ; Finish mirrors it.
func ExampleNewStats() {
	X, Y := data(200)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 30, 1)
	if err != nil {
		panic(err)
	}
	F := m.Features()
	Z, err := learn.Features(m, X, 200, 0) // 200×F
	if err != nil {
		panic(err)
	}
	s, err := learn.NewStats(F, 1)
	if err != nil {
		panic(err)
	}
	for i := 0; i < 200; i += 64 {
		rows := min(64, 200-i)
		s.Add(Z[i*F:], Y[i:], rows)
	}
	s.Finish()
	ref, err := learn.Accumulate(m, X, 200, Y, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("rows:", s.N, "features:", s.F)
	fmt.Println("ZᵀZ as Accumulate's within 1e-9:", maxAbsDiff(s.ZtZ, ref.ZtZ) < 1e-9)
	fmt.Println("ZᵀY as Accumulate's within 1e-9:", maxAbsDiff(s.ZtY, ref.ZtY) < 1e-9)
	// Output:
	// rows: 200 features: 60
	// ZᵀZ as Accumulate's within 1e-9: true
	// ZᵀY as Accumulate's within 1e-9: true
}

// ExampleStats_Add adds the rows of a small feature matrix one block at a time.
func ExampleStats_Add() {
	s, err := learn.NewStats(2, 1) // 2 features, 1 output
	if err != nil {
		panic(err)
	}
	Z := []float64{ // 3 rows × 2 features
		1, 0,
		1, 1,
		1, 2,
	}
	Y := []float64{1, 3, 5}
	s.Add(Z[:2], Y[:1], 1) // the first row
	s.Add(Z[2:], Y[1:], 2) // the other two
	fmt.Println("N:", s.N, "ZᵀY:", s.ZtY, "Σz:", s.SumZ, "Σy:", s.SumY, "Σy²:", s.SumYY)
	fmt.Println("upper triangle of ZᵀZ:", s.ZtZ[0], s.ZtZ[1], s.ZtZ[3])
	// Output:
	// N: 3 ZᵀY: [9 13] Σz: [3 3] Σy: [9] Σy²: [35]
	// upper triangle of ZᵀZ: 3 3 5
}

// ExampleStats_Finish mirrors the upper triangle of ZᵀZ, the only one Add updates, into the lower one. Solvers read
// the upper triangle only; Finish is for code that needs the full matrix.
func ExampleStats_Finish() {
	s, err := learn.NewStats(2, 1)
	if err != nil {
		panic(err)
	}
	s.Add([]float64{1, 2, 3, 4}, []float64{0, 1}, 2)
	fmt.Println("after Add:   ", s.ZtZ)
	s.Finish()
	fmt.Println("after Finish:", s.ZtZ)
	// Output:
	// after Add:    [10 14 0 20]
	// after Finish: [10 14 14 20]
}

// ExampleStats_NormalEquations returns the centred normal equations A θ = B of a fit with intercept; adding NλI to A
// gives the system Ridge solves, which its solution satisfies.
func ExampleStats_NormalEquations() {
	X, Y := data(200)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 20, 1)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 200, Y, 1)
	if err != nil {
		panic(err)
	}
	const lambda = 1e-3
	fit, err := learn.Ridge{Lambda: lambda, Intercept: true}.Solve(s)
	if err != nil {
		panic(err)
	}
	A, B := s.NormalEquations(true)
	F := s.F
	// The relative residual ‖(A + NλI)θ − B‖/‖B‖.
	var res, norm float64
	for i := range F {
		r := float64(s.N) * lambda * fit.Theta[i]
		for j := range F {
			r += A[i*F+j] * fit.Theta[j]
		}
		res += (r - B[i]) * (r - B[i])
		norm += B[i] * B[i]
	}
	fmt.Printf("A is %d×%d, B is %d×1\n", F, F, len(B))
	fmt.Println("relative residual below 1e-10:", math.Sqrt(res/norm) < 1e-10)
	// Output:
	// A is 40×40, B is 40×1
	// relative residual below 1e-10: true
}

// ExampleStats_Clone keeps a copy of the statistics before Ridge.SolveInPlace consumes them, here to score a λ
// grid afterwards.
func ExampleStats_Clone() {
	X, Y := data(300)
	m, err := feature.New(kernel.Gaussian{S: 0.5}, rule.G{}, 1, 30, 1)
	if err != nil {
		panic(err)
	}
	s, err := learn.Accumulate(m, X, 300, Y, 1)
	if err != nil {
		panic(err)
	}
	kept := s.Clone()
	if _, err := (learn.Ridge{Lambda: 1e-6, Intercept: true}).SolveInPlace(s); err != nil {
		panic(err)
	}
	fmt.Println("original:", s.Validate())
	sel, err := learn.SelectLambda(kept, learn.LogGrid(1e-8, 1, 9), true)
	if err != nil {
		panic(err)
	}
	fmt.Println("clone: λ scored:", len(sel.GCV))
	// Output:
	// original: the statistics were consumed by Ridge.SolveInPlace
	// clone: λ scored: 9
}

// ExampleStats_Validate checks statistics rebuilt from their exported fields, for example after they travelled
// between machines, before solving them.
func ExampleStats_Validate() {
	s, err := learn.NewStats(2, 1)
	if err != nil {
		panic(err)
	}
	s.Add([]float64{1, 0, 0, 1}, []float64{1, 2}, 2)
	fmt.Println(s.Validate())
	s.ZtY[1] = math.Inf(1) // a corrupted value
	fmt.Println(s.Validate())
	s.ZtY = s.ZtY[:1] // a truncated one
	fmt.Println(s.Validate())
	// Output:
	// <nil>
	// statistics contain NaN or Inf
	// slice lengths do not match F=2, P=1
}

// GramShards and GramChunk give the shape of an Accumulator's work for F features: how many partial ZᵀZ matrices it
// fills side by side, and how many rows each rank-k update adds. Both depend on F alone.
func ExampleGramShards() {
	for _, F := range []int{100, 1023, 1024, 8192} {
		fmt.Printf("F = %d: %d partial matrices, chunks of %d rows\n", F, learn.GramShards(F), learn.GramChunk(F))
	}
	// Output:
	// F = 100: 8 partial matrices, chunks of 2048 rows
	// F = 1023: 8 partial matrices, chunks of 2048 rows
	// F = 1024: 1 partial matrices, chunks of 2048 rows
	// F = 8192: 1 partial matrices, chunks of 256 rows
}
