package approx

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/structured"
	"github.com/rffkit/rff/kernel"
)

// MaxGQDegree is the largest Gauss–Hermite degree GQKernel and GQFloor accept, the same bound as the gq:M rule
// names of package rule.
const MaxGQDegree = 64

// ErrNoFloor is returned (wrapped, with the kernel's name) by [GQKernel] and [GQFloor] for a kernel whose
// tensor-grid quadrature has no closed form here: a spectral law with a per-point scale mixture (Matérn, whose
// frequencies are not independent across coordinates) or a kernel that is not shift-invariant (arc-cosine).
var ErrNoFloor = errors.New("no closed-form gq bias floor")

// gridKernel is the kernel that the gq rule of degree m estimates without bias (see GQKernel).
type gridKernel struct {
	name    string
	freq    []float64 // Scale·T(z_k) for the nodes z_k with a positive weight
	weights []float64 // their weights w_k (summing to 1)
}

// Name returns "gq-grid:M(KERNEL)", M the degree and KERNEL the name of the kernel the grid approximates.
func (g gridKernel) Name() string { return g.name }

// Eval returns Π_i Σ_k w_k cos(c_k (x_i − y_i)); like every kernel's Eval it is unchecked (y at least as long as x).
func (g gridKernel) Eval(x, y []float64) float64 {
	p := 1.0
	y = y[:len(x)]
	for i, xi := range x {
		t := xi - y[i]
		var s float64
		for k, c := range g.freq {
			s += g.weights[k] * math.Cos(c*t)
		}
		p *= s
		if p == 0 {
			break
		}
	}
	return p
}

// GQKernel returns the kernel that the gq rule of degree m (rule.GQ{Degree: m}; 0 means the default 2) converges
// to as D → ∞: the full tensor grid of the m-node Gauss–Hermite rule for N(0, 1) in every coordinate applied to the
// kernel's integrand (Dao, De Sa & Ré 2017; docs/conventions.md §3.5),
//
//	K_grid(x, y) = E_grid[cos(ωᵀ(x − y))] = Π_i Σ_k w_k cos(Scale·T(z_k)·(x_i − y_i)),
//
// with (z_k, w_k) the nodes and weights of structured.GaussHermite(m) and ω = Scale·T(z) the kernel's spectral law
// (kernel.Law). The product form holds because the grid, like the law, draws the coordinates independently, and the
// imaginary parts vanish because the nodes are symmetric and T is odd. The gq rule's estimate is unbiased for
// K_grid, not for the kernel: K − K_grid is its bias.
//
// It needs a kernel.Spectral kernel whose law has no per-point mixing (Gaussian, Laplacian, Cauchy); for the others
// it returns an error wrapping [ErrNoFloor]. It returns an error for a degree outside 0..[MaxGQDegree] and for a law
// whose scale 1/σ is not positive and finite.
func GQKernel(k kernel.Kernel, degree int) (kernel.Kernel, error) {
	if degree < 0 || degree > MaxGQDegree {
		return nil, fmt.Errorf("approx.GQKernel: Gauss–Hermite degree must be in 1..%d (0 = the default 2), got %d", MaxGQDegree, degree)
	}
	if degree == 0 {
		degree = 2
	}
	if k == nil {
		return nil, errors.New("approx.GQKernel: nil kernel")
	}
	sk, ok := k.(kernel.Spectral)
	if !ok {
		return nil, fmt.Errorf("approx.GQKernel: %w for kernel %s: it is not shift-invariant, so the grid's estimate is not a product over coordinates", ErrNoFloor, k.Name())
	}
	law := sk.Law()
	if law.Mixing != nil {
		return nil, fmt.Errorf("approx.GQKernel: %w for kernel %s: its spectral law mixes a per-point scale into every coordinate, so the grid's estimate is not a product over coordinates", ErrNoFloor, k.Name())
	}
	if !(law.Scale > 0) || math.IsInf(law.Scale, 0) {
		return nil, fmt.Errorf("approx.GQKernel: kernel %s: the spectral law's scale 1/σ is %v (the bandwidth σ must be positive and finite)", k.Name(), law.Scale)
	}
	nodes, weights := structured.GaussHermite(degree)
	g := gridKernel{name: fmt.Sprintf("gq-grid:%d(%s)", degree, k.Name())}
	freq := make([]float64, degree)
	for i, z := range nodes {
		if law.Coord != nil {
			z = law.Coord(z)
		}
		freq[i] = law.Scale * z
		if weights[i] > 0 && (math.IsNaN(freq[i]) || math.IsInf(freq[i], 0)) {
			return nil, fmt.Errorf("approx.GQKernel: kernel %s: the grid node %v of degree %d maps to the frequency %v", k.Name(), nodes[i], degree, freq[i])
		}
	}
	// cos is even: the mirror nodes z_k = −z_{m−1−k} (T odd) give one term with the sum of their weights.
	for i := 0; i < degree; i++ {
		j := degree - 1 - i
		c, w := freq[i], weights[i]
		if j > i && freq[j] == -c {
			w += weights[j]
		} else if j < i && freq[i] == -freq[j] {
			continue // merged into node j
		}
		if w == 0 {
			continue // never drawn by the rule either
		}
		g.freq = append(g.freq, math.Abs(c))
		g.weights = append(g.weights, w)
	}
	return g, nil
}

// GQFloor returns the bias floor of the gq rule of degree m (0 means the default 2) on the sample: the relative
// Frobenius error ‖K − K_grid‖_F / ‖K‖_F of the full tensor-grid quadrature [GQKernel] against the exact kernel,
// on the rows of X (nx×d) and Y (ny×d), row-major — the measure of [Study]. The gq rule's mean error over runs
// converges to it from above as D → ∞ and never falls below it in expectation (‖·‖_F is convex and E K̂ = K_grid),
// so points beyond the range where the Monte Carlo error dominates cannot help. The floor shrinks as the degree
// grows (the m-node rule is exact for polynomials of degree ≤ 2m − 1 in each coordinate).
//
// It returns an error wrapping [ErrNoFloor] for kernels whose floor is not available (Matérn, arc-cosine), the
// errors of GQKernel, and an error for shapes that do not match. A zero exact Gram matrix gives +Inf, as in
// [Compare]. Neither Gram matrix is stored: cos(c(x_i − y_i)) is expanded as cos(cx_i)cos(cy_i) + sin(cx_i)sin(cy_i)
// from tables of the rows of Y, built a block of at most 32 MiB at a time. Rows are evaluated in parallel; the
// result does not depend on the number of cores.
func GQFloor(k kernel.Kernel, degree int, X []float64, nx int, Y []float64, ny int, d int) (float64, error) {
	kg, err := GQKernel(k, degree)
	if err != nil {
		return 0, err
	}
	if nx < 1 || ny < 1 || d < 1 || !size.Is(len(X), nx, d) || !size.Is(len(Y), ny, d) {
		return 0, fmt.Errorf("approx.GQFloor: bad shapes (X %d values for %d×%d, Y %d values for %d×%d)", len(X), nx, d, len(Y), ny, d)
	}
	g := kg.(gridKernel)
	nk := len(g.freq)
	per := 2 * d * nk // table entries per row: w_k·cos(c_k y_i), w_k·sin(c_k y_i)
	block := max(1, min(ny, gqTableFloats/per))
	table := make([]float64, block*per)
	workers := runtime.GOMAXPROCS(0)
	scratch := make([][]float64, workers)
	num := make([]float64, nx)
	den := make([]float64, nx)
	for j0 := 0; j0 < ny; j0 += block {
		nb := min(block, ny-j0)
		parallel.For(nb, workers, func(j int) {
			y := Y[(j0+j)*d : (j0+j+1)*d]
			row := table[j*per : (j+1)*per]
			for i, v := range y {
				for kk, c := range g.freq {
					sn, cs := math.Sincos(c * v)
					row[2*(i*nk+kk)] = g.weights[kk] * cs
					row[2*(i*nk+kk)+1] = g.weights[kk] * sn
				}
			}
		})
		parallel.ForWorker(nx, workers, func(w, i int) {
			if scratch[w] == nil {
				scratch[w] = make([]float64, per)
			}
			xt := scratch[w]
			x := X[i*d : (i+1)*d]
			for c, v := range x {
				for kk, f := range g.freq {
					xt[2*(c*nk+kk)+1], xt[2*(c*nk+kk)] = math.Sincos(f * v)
				}
			}
			var a, b float64
			for j := range nb {
				yt := table[j*per : (j+1)*per]
				p := 1.0
				for t := 0; t < per; t += 2 * nk {
					var s float64
					for u := t; u < t+2*nk; u += 2 {
						s += xt[u]*yt[u] + xt[u+1]*yt[u+1]
					}
					p *= s
				}
				kv := k.Eval(x, Y[(j0+j)*d:(j0+j+1)*d])
				e := kv - p
				a += e * e
				b += kv * kv
			}
			num[i] += a
			den[i] += b
		})
	}
	var a, b float64
	for i := range num {
		a += num[i]
		b += den[i]
	}
	if b == 0 {
		return math.Inf(1), nil
	}
	return math.Sqrt(a / b), nil
}

// gqTableFloats bounds the table of Y rows GQFloor builds at a time (32 MiB).
const gqTableFloats = 4 << 20
