package nystrom

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/kernel"
)

// Leverage chooses landmarks by approximate ridge leverage scores, computed by the recursive sampling of Musco & Musco
// (2017, "Recursive Sampling for the Nyström Method", Algorithms 2 and 3). The λ-ridge leverage score of row i,
//
//	τ_i(λ) = (K(K + λI)⁻¹)_ii ∈ [0, 1),   K the n×n kernel matrix,
//
// measures how much the direction k(x_i, ·) is needed to represent K at scale λ: isolated rows score close to 1,
// rows in a crowd of similar rows score about 1/(size of the crowd). Sampling landmarks with probabilities
// proportional to τ_i gives a Nyström approximation with ‖K − K̃‖ ≤ λ from O(d_eff log d_eff) landmarks, d_eff = Σ τ_i
// (Alaoui & Mahoney 2015; Musco & Musco 2017, Theorem 3), whatever the data's coherence.
//
// The exact scores cost O(n³). The recursion estimates them from a small weighted sample. A random permutation of the
// rows gives nested uniform subsets P_0 ⊃ P_1 ⊃ … ⊃ P_L (the first ⌈n/2^l⌉ rows), with |P_L| ≤ M; the sample starts
// as P_L with weights 1. Going up, l = L−1 … 0, the weighted sample S (weights w, W = diag(w)) drawn at level l+1
// gives for every row i of P_l the estimate
//
//	τ̃_i = (k(x_i, x_i) − k_S(x_i)ᵀ (K_SS + λ_l W⁻²)⁻¹ k_S(x_i)) / λ_l,
//
// the λ_l-ridge leverage score of the Nyström approximation of K on S (Musco & Musco, eq. (4)); clipped to [0, 1].
// On intermediate levels each row is kept independently with probability p_i = min(1, ln(M)·τ̃_i) and weight
// w_i = 1/√p_i; on the top level exactly M rows are drawn without replacement, with probabilities proportional to
// τ̃_i (Efraimidis & Spirakis 2006). λ_l is Musco & Musco's choice (1/k)·(tr(WK_SSW) − Σ_{j≤k} σ_j(WK_SSW)) with
// k = ⌈M/(4 ln M)⌉, an estimate of the spectral tail (1/k)Σ_{j>k}σ_j(K) at which about M rows have a significant
// score; Lambda, when set, replaces it on the top level.
//
// Cost: each level evaluates |P_l|·|S| kernel entries and solves with one |S|×|S| Cholesky factor (O(n·M²)
// operations in all), and computes the eigenvalues of one |S|×|S| matrix (O(M³)); memory is O(M² + block·M).
type Leverage struct {
	// Lambda > 0 fixes the λ of the scores the M landmarks are drawn by, in the units of the n×n kernel matrix
	// (for kernel ridge regression with the convention of package learn, (1/N)Σ(f(x_i) − y_i)² + λ_learn‖f‖², the
	// scores that matter are at λ = N·λ_learn). 0 chooses λ from the spectrum as above. Only the top level uses
	// it: the levels below still size their samples for the spectrum's λ, so a Lambda far below that gives scores
	// that remain upper bounds on the ridge leverage scores but are flatter than the exact ones (closer to uniform
	// sampling) — unlike Musco & Musco's fixed-λ algorithm, which would sample every level for that λ.
	Lambda float64
}

// Name returns "leverage".
func (Leverage) Name() string { return "leverage" }

// levBlockFloats bounds the kernel block k_S(x_i) of a level: about 32 MiB of values.
const levBlockFloats = 4 << 20

// Select returns the indices of M distinct rows, in increasing order.
func (l Leverage) Select(k kernel.Kernel, X []float64, n, d, M int, seed uint64) ([]int, error) {
	if err := checkSelect("leverage", k, X, n, d, M); err != nil {
		return nil, err
	}
	if l.Lambda < 0 || math.IsNaN(l.Lambda) || math.IsInf(l.Lambda, 0) {
		return nil, fmt.Errorf("nystrom: leverage selection: λ = %v must be finite and ≥ 0", l.Lambda)
	}
	if M == n {
		return uniformSample(nil, n, n), nil
	}
	rng := rand.New(rand.NewPCG(seed, streamLeverage))
	perm := rng.Perm(n)
	sizes := []int{n}
	for sizes[len(sizes)-1] > M {
		sizes = append(sizes, (sizes[len(sizes)-1]+1)/2)
	}
	diag := make([]float64, n)
	for i := range diag {
		xi := X[i*d : (i+1)*d]
		diag[i] = k.Eval(xi, xi)
	}
	over := max(1, math.Log(float64(M)))
	kTop := int(math.Ceil(float64(M) / (4 * over)))
	// The sample: positions in perm and weights.
	samp := make([]int, sizes[len(sizes)-1])
	for i := range samp {
		samp[i] = i
	}
	w := ones(len(samp))
	for lev := len(sizes) - 2; lev >= 0; lev-- {
		rows := sizes[lev]
		XS := gatherPerm(X, d, perm, samp)
		KSS := make([]float64, len(samp)*len(samp))
		if err := kernel.Gram(KSS, k, XS, len(samp), XS, len(samp), d); err != nil {
			return nil, fmt.Errorf("nystrom: leverage selection: %w", err)
		}
		lambda := l.Lambda
		if lev > 0 || lambda == 0 {
			var err error
			if lambda, err = levelLambda(KSS, w, kTop); err != nil {
				return nil, err
			}
		}
		tau, err := scores(k, X, d, perm[:rows], XS, KSS, w, diag, lambda)
		if err != nil {
			return nil, err
		}
		if lev > 0 {
			samp, w = samp[:0:0], w[:0:0]
			for i, t := range tau {
				p := min(1, over*t)
				if rng.Float64() < p {
					samp = append(samp, i)
					w = append(w, 1/math.Sqrt(p))
				}
			}
			if len(samp) == 0 { // no score was significant: fall back to a uniform sample of the level
				samp = uniformSample(rng, rows, min(M, rows))
				w = ones(len(samp))
				for j := range w {
					w[j] = math.Sqrt(float64(rows) / float64(len(samp)))
				}
			}
			continue
		}
		return weightedSample(rng, tau, perm, M), nil
	}
	return nil, errors.New("nystrom: leverage selection: no level") // unreachable: n > M gives at least two sizes
}

func ones(n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

// levelLambda returns Musco & Musco's λ for a weighted sample with kernel matrix KSS (s×s, its upper triangle is
// read): (tr(WK_SSW) − the sum of its kTop largest eigenvalues)/kTop, floored at 1e-6 of the mean weighted diagonal
// (the sample may span fewer than kTop directions).
func levelLambda(KSS, w []float64, kTop int) (float64, error) {
	s := len(w)
	var tr float64
	for j := range s {
		tr += w[j] * w[j] * KSS[j*s+j]
	}
	floor := max(1e-6*tr/float64(s), math.SmallestNonzeroFloat64)
	if kTop >= s {
		return floor, nil
	}
	G := make([]float64, s*s)
	for a := range s {
		for b := a; b < s; b++ {
			G[a*s+b] = KSS[a*s+b] * w[a] * w[b]
		}
	}
	vals, _, err := linalg.EigenSym(s, G)
	if err != nil {
		return 0, fmt.Errorf("nystrom: leverage selection: eigenvalues of the sample's kernel matrix: %w", err)
	}
	var top float64
	for _, v := range vals[s-kTop:] {
		top += max(0, v)
	}
	return max((tr-top)/float64(kTop), floor), nil
}

// gatherPerm returns the rows perm[idx[j]] of X.
func gatherPerm(X []float64, d int, perm, idx []int) []float64 {
	out := make([]float64, len(idx)*d)
	for j, i := range idx {
		r := perm[i]
		copy(out[j*d:(j+1)*d], X[r*d:(r+1)*d])
	}
	return out
}

// scores returns τ̃_i for the rows rowsPerm[i] from the weighted sample XS (kernel matrix KSS, weights w; see
// Leverage). The
// Cholesky factorization of K_SS + λW⁻² is retried with λ multiplied by 10 if rounding makes it fail.
func scores(k kernel.Kernel, X []float64, d int, rowsPerm []int, XS, KSS, w, diag []float64, lambda float64) ([]float64, error) {
	s := len(w)
	U := make([]float64, s*s)
	var err error
	for try := 0; try < 8; try, lambda = try+1, lambda*10 {
		copy(U, KSS)
		for j := range s {
			U[j*s+j] += lambda / (w[j] * w[j])
		}
		if err = linalg.Cholesky(s, U, s); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("nystrom: leverage selection: %w", err)
	}
	rows := len(rowsPerm)
	tau := make([]float64, rows)
	b := max(1, min(rows, levBlockFloats/s))
	C := make([]float64, b*s)
	xb := make([]float64, b*d)
	cent, err := kernel.NewCentres(k, XS, s, d)
	if err != nil {
		return nil, fmt.Errorf("nystrom: leverage selection: %w", err)
	}
	for r0 := 0; r0 < rows; r0 += b {
		nb := min(b, rows-r0)
		for j := range nb {
			r := rowsPerm[r0+j]
			copy(xb[j*d:(j+1)*d], X[r*d:(r+1)*d])
		}
		c := C[:nb*s]
		if err := cent.Gram(c, xb[:nb*d], nb); err != nil {
			return nil, fmt.Errorf("nystrom: leverage selection: %w", err)
		}
		// c·U⁻¹: its squared row norms are k_S(x)ᵀ(UᵀU)⁻¹k_S(x).
		linalg.Blas{}.Dtrsm(blas.Right, blas.Upper, blas.NoTrans, blas.NonUnit, nb, s, 1, U, s, c, s)
		for j := range nb {
			var q float64
			for _, v := range c[j*s : (j+1)*s] {
				q += v * v
			}
			t := (diag[rowsPerm[r0+j]] - q) / lambda
			tau[r0+j] = min(1, max(0, t))
		}
	}
	return tau, nil
}

// weightedSample draws M of the rows perm[i] without replacement with probabilities proportional to tau[i] (the
// exponential keys of Efraimidis & Spirakis 2006: the M largest ln(u_i)/τ_i, u_i uniform on (0, 1]); rows of score 0
// come last, in permutation order. It returns the row indices, sorted.
func weightedSample(rng *rand.Rand, tau []float64, perm []int, M int) []int {
	type key struct {
		v float64
		i int
	}
	keys := make([]key, len(tau))
	for i, t := range tau {
		u := 1 - rng.Float64()
		v := math.Inf(-1)
		if t > 0 {
			v = math.Log(u) / t
		}
		keys[i] = key{v, i}
	}
	slices.SortStableFunc(keys, func(a, b key) int { return cmp.Compare(b.v, a.v) })
	out := make([]int, M)
	for j := range M {
		out[j] = perm[keys[j].i]
	}
	slices.Sort(out)
	return out
}
