package study

import (
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
)

// The memory estimates of the studies ([Study.Memory]) add up, for the most demanding phase of Run, the arrays that
// grow with the settings: data rows, feature maps' points, feature and Gram matrices, ridge statistics, per-run
// results, and the scratch of every worker where work runs in parallel (runtime.GOMAXPROCS workers). They are
// computed in float64, so that absurd settings give an absurd number instead of an overflow, and they aim at the
// peak of the live heap within a small factor; allocations below a few MiB are left out. The helpers below are the
// costs of the library's building blocks, read from their code.

// f64 is the size in bytes of a float64 (and of an int or a uint64).
const f64 = 8

// floats returns the bytes of an array of float64 of the shape dims.
func floats(dims ...float64) float64 {
	b := float64(f64)
	for _, d := range dims {
		b *= d
	}
	return b
}

// workers is the number of goroutines a parallel loop of the library runs at once.
func workers() float64 { return float64(runtime.GOMAXPROCS(0)) }

// maxRuleCoords is the most point coordinates (D·d) a rule draws (rule.Rule.Draw refuses more).
const maxRuleCoords = 1 << 31

// drawnPoints is the number of points rule r draws when D are requested in dimension d: SR rules round up to whole
// rules of d+1 points (2(d+1) for the pointwise kernels, whose integrand is not even).
func drawnPoints(r rule.Rule, d, D int, even bool) float64 {
	if _, ok := r.(rule.SR); ok {
		per := float64(d) + 1
		if !even {
			per *= 2
		}
		return math.Ceil(float64(D)/per) * per
	}
	return float64(D)
}

// pointsBytes is the memory of the points of a map with D points of rule r in dimension d: the points themselves
// (dense D×d, or the factors of the structured rules sorf and sr-butterfly), their weights, scales and amplitudes,
// the d×d Haar matrices orf and sr-haar draw, the per-worker scratch of the structured projections, and with
// dense set the D×d frequencies materialized by rule.Dense (with its d×d identity and transposed copy), as
// feature.Map.Frequencies, approx.SupError and the non-decomposable ORFF maps do.
func pointsBytes(r rule.Rule, d, D int, even, dense bool) float64 {
	n, fd := drawnPoints(r, d, D, even), float64(d)
	v := 4 * n
	switch rr := r.(type) {
	case rule.SORF:
		pad := math.Exp2(math.Ceil(math.Log2(fd)))
		v += 3*(n+pad) + workers()*2*pad*64
	case rule.SR:
		if rr.Rotation == rule.Butterfly {
			v += 13*n + workers()*(4*fd+1)*64
		} else {
			v += n*fd + 4*fd*fd
		}
	case rule.ORF:
		v += n*fd + 4*fd*fd
	default:
		v += n * fd
	}
	if dense {
		v += fd*fd + 2*n*fd
	}
	return f64 * v
}

// accumulateBytes is the memory of learn.Accumulate (and vector.Accumulate) of n rows through a map with F features
// and pts points against p outputs: the per-shard statistics (S shards of ZᵀZ, F×F, S ≤ 8 and S·8F² ≤ 512 MiB
// when it can) and the feature and projection chunks of the shards mapped at once.
func accumulateBytes(F, pts, n, p float64) float64 {
	S := math.Max(1, math.Min(math.Floor((512<<20)/math.Max(f64*F*F, 1)), 8))
	chunk := math.Floor((16<<20)/(f64*math.Max(F, 1))/256) * 256
	chunk = math.Min(math.Min(math.Max(chunk, 256), 2048), math.Max(n, 1))
	S = math.Min(S, math.Ceil(math.Max(n, 1)/chunk)) // shards without rows allocate nothing
	return S*floats(F*F+F*p+F) + math.Min(S, workers())*floats(chunk, F+pts)
}

// blockBytes is the scratch of mapping rows in parallel blocks of rows rows through a map with pts points and F
// features (feature.Map.TransformRows, learn.Features, predictions): the projections and features of one block per
// worker.
func blockBytes(rows, pts, F float64) float64 { return workers() * floats(rows, pts+F) }

// guarded is the memory of an exact fit whose library guard refuses, before allocating, anything above limit: need
// when it is allowed, nothing when it is refused.
func guarded(need, limit float64) float64 {
	if need > limit {
		return 0
	}
	return need
}

// largest returns the largest of v (0 for none).
func largest(v ...float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// checkArray reports an array of the shape dims (the values of the flags named by what) that overflows int or
// exceeds the largest array the library allocates (size.MaxBytes, 1 TiB).
func checkArray(what string, dims ...int) error {
	p, ok := size.Mul(dims...)
	if !ok {
		return fmt.Errorf("%s: %s values overflow an int", what, shape(dims))
	}
	if p > size.MaxFloats {
		return fmt.Errorf("%s: %s values would need %.0f GiB, more than one array may hold (%d GiB)", what,
			shape(dims), float64(p)*f64/(1<<30), size.MaxBytes>>30)
	}
	return nil
}

// checkPoints reports D points in dimension d beyond what a rule draws (D·d ≤ 2^31 coordinates).
func checkPoints(what string, D, d int) error {
	if p, ok := size.Mul(D, d); !ok || p > maxRuleCoords {
		return fmt.Errorf("%s: %d points in dimension %d are more than a rule draws (2^31 coordinates)", what, D, d)
	}
	return nil
}

// checkWork reports a number of units of work (the product of dims) that overflows an int.
func checkWork(what string, dims ...int) error {
	if _, ok := size.Mul(dims...); !ok {
		return fmt.Errorf("%s: %s units of work overflow an int", what, shape(dims))
	}
	return nil
}

// addInts returns the sum of v and false if a value is negative or the sum overflows an int.
func addInts(v ...int) (int, bool) {
	s := 0
	for _, x := range v {
		if x < 0 || s > math.MaxInt-x {
			return 0, false
		}
		s += x
	}
	return s, true
}

// checkRows reports rows (the sum of the flags named by what) of width values each that overflow an int or
// exceed one array.
func checkRows(what string, width int, rows ...int) error {
	n, ok := addInts(rows...)
	if !ok {
		return fmt.Errorf("%s: %v rows overflow an int", what, rows)
	}
	return checkArray(what, n, width)
}

func shape(dims []int) string {
	s := ""
	for i, d := range dims {
		if i > 0 {
			s += "×"
		}
		s += fmt.Sprint(d)
	}
	return s
}

// maxORFFValues is the most values an ORFF map holds in its points and factors (ovk.New refuses more).
const maxORFFValues = 1 << 31

// checkORFF reports an ORFF map with D points in dimension d and factors of rank pr beyond what ovk.New builds
// (D·d·pr ≤ 2^31 values), naming the flag of D.
func checkORFF(what string, D, d, pr int) error {
	if v, ok := size.Mul(D, d, pr); !ok || v > maxORFFValues {
		return fmt.Errorf("%s: %d points in dimension %d (rank %d) are more than an ORFF map holds (2^31 values)",
			what, D, d, pr)
	}
	return checkPoints(what, D, d)
}

// orffMapBytes is the memory of an ORFF map (ovk.New) of a kernel of kind with D points of rule r on inputs of
// dimension d, p outputs and factors B(ω) of rank pr: the points (materialized as the frequencies ω_j, D×d, for all
// but decomposable kernels), and the factors B(ω_j), D×p×p' (a decomposable kernel shares one B and keeps A, its
// copy and BBᵀ, p×p each).
func orffMapBytes(kind ovk.Kind, r rule.Rule, d, D, p, pr int) float64 {
	fp, fr := float64(p), float64(pr)
	if kind == ovk.Decomposable {
		return pointsBytes(r, d, D, true, false) + floats(3*fp*fp+fp*fr)
	}
	return pointsBytes(r, d, D, true, true) + floats(drawnPoints(r, d, D, true), fp, fr)
}

// orffRank is p', the rank of the factors B(ω) of a kernel of kind in dimension d (decomposable: the rank of A, here
// a), and the number of outputs p.
func orffRank(kind ovk.Kind, d, a int) (p, pr int) {
	switch kind {
	case ovk.CurlFree:
		return d, 1
	case ovk.DivFree:
		return d, d - 1
	case ovk.Helmholtz:
		return d, d
	}
	return a, a
}

// ridgeBytes is the memory of a ridge fit of n rows through a map with pts points and F2 scalar features (2·pts
// for cos/sin) against p outputs: the accumulation of the statistics (accumulateBytes), or the solve if it needs
// more: solve copies of the F2×F2 matrix (learn.Ridge's in-place Cholesky: 1; vector.Ridge's closed form: 2, and
// 4 for a λ path; its Cholesky: 2) and, for the Cholesky solver of vector.Ridge, the F×F normal equations
// (F = F2·p'), the (F/2)² products of the factors B(ω) and the p×F values of Φ̃(0) (F = 0 otherwise).
func ridgeBytes(n, pts, F2, p, solve, F float64) float64 {
	return largest(accumulateBytes(F2, pts, n, p), floats(solve*F2*F2+F*F*5/4+p*F+F2*p))
}
