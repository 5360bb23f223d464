package vector

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/internal/solve"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// decomposableSetup returns the centred scalar system (A = ZᵀZ − N z̄z̄ᵀ, 2D×2D full; RB = (ZᵀY − N z̄ȳᵀ)·B,
// 2D×p'), the factor B (p×p'), and the eigenpairs of BᵀB (V nil when BᵀB is exactly diagonal: V = I).
func (r Ridge) decomposableSetup(m *ovk.Map, s *learn.Stats) (A, RB, B, mu, V []float64, pr int, err error) {
	bm := m.Kernel().B()
	p, pr := bm.Dims()
	B = make([]float64, p*pr)
	for a := 0; a < p; a++ {
		for k := 0; k < pr; k++ {
			B[a*pr+k] = bm.At(a, k)
		}
	}
	F2 := s.F
	A, Bc := s.NormalEquations(r.Intercept)
	RB = make([]float64, F2*pr)
	gemm(false, false, F2, pr, p, 1, Bc, B, 0, RB)
	BtB := make([]float64, pr*pr)
	gemm(true, false, pr, pr, p, 1, B, B, 0, BtB)
	mu, V, err = symEigenOrDiag(BtB, pr)
	return A, RB, B, mu, V, pr, err
}

// decomposableShifted solves the Stein equation by the p' shifted systems, one Cholesky factorisation per
// distinct eigenvalue μ of BᵀB: (μA + NλI)x = r ⇔ (A + (Nλ/μ)I)x = r/μ.
func (r Ridge) decomposableShifted(m *ovk.Map, s *learn.Stats, lambdas []float64) ([]*Fit, error) {
	A, RB, B, mu, V, pr, err := r.decomposableSetup(m, s)
	if err != nil {
		return nil, err
	}
	F2, N := s.F, float64(s.N)
	R := RB
	if V != nil {
		R = make([]float64, F2*pr)
		gemm(false, false, F2, pr, pr, 1, RB, V, 0, R)
	}
	fits := make([]*Fit, len(lambdas))
	for li, lambda := range lambdas {
		Xt := make([]float64, F2*pr)
		for _, g := range equalGroups(mu) {
			mg := mu[g[0]]
			if !(mg > 0) {
				return nil, fmt.Errorf("BᵀB has a non-positive eigenvalue %g", mg)
			}
			rhs := make([]float64, F2*len(g))
			for i := 0; i < F2; i++ {
				for c, j := range g {
					rhs[i*len(g)+c] = R[i*pr+j] / mg
				}
			}
			x, _, err := spdSolve(A, F2, N*lambda/mg, rhs, len(g), lambda == 0)
			if err != nil {
				return nil, fmt.Errorf("λ = %g: %w", lambda, err)
			}
			for i := 0; i < F2; i++ {
				for c, j := range g {
					Xt[i*pr+j] = x[i*len(g)+c]
				}
			}
		}
		theta := Xt
		if V != nil {
			theta = make([]float64, F2*pr)
			gemm(false, true, F2, pr, pr, 1, Xt, V, 0, theta)
		}
		fits[li] = r.decomposableFit(m, s, A, RB, B, theta, pr, lambda, "closed-form")
	}
	return fits, nil
}

// decomposableEigen solves the Stein equation for every λ from the eigendecompositions of the centred ZᵀZ and of
// BᵀB.
func (r Ridge) decomposableEigen(m *ovk.Map, s *learn.Stats, lambdas []float64) ([]*Fit, error) {
	A, RB, B, mu, V, pr, err := r.decomposableSetup(m, s)
	if err != nil {
		return nil, err
	}
	F2, N := s.F, float64(s.N)
	lz, U, err := symEigen(A, F2)
	if err != nil {
		return nil, fmt.Errorf("ZᵀZ: %w", err)
	}
	clampNonNegative(lz)
	// T = Uᵀ RB V.
	T := make([]float64, F2*pr)
	gemm(true, false, F2, pr, F2, 1, U, RB, 0, T)
	if V != nil {
		T2 := make([]float64, F2*pr)
		gemm(false, false, F2, pr, pr, 1, T, V, 0, T2)
		T = T2
	}
	fits := make([]*Fit, len(lambdas))
	W := make([]float64, F2*pr)
	for li, lambda := range lambdas {
		if err := divideSpectrum(W, T, lz, mu, N*lambda, F2, pr); err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		UW := make([]float64, F2*pr)
		gemm(false, false, F2, pr, F2, 1, U, W, 0, UW)
		theta := UW
		if V != nil {
			theta = make([]float64, F2*pr)
			gemm(false, true, F2, pr, pr, 1, UW, V, 0, theta)
		}
		fits[li] = r.decomposableFit(m, s, A, RB, B, theta, pr, lambda, "eigen")
	}
	return fits, nil
}

// divideSpectrum sets W = T ⊘ (λ_i μ_j + shift) (rows×cols), refusing a singular system.
func divideSpectrum(W, T, l, mu []float64, shift float64, rows, cols int) error {
	var dmax float64
	for _, li := range l {
		for _, mj := range mu {
			dmax = max(dmax, li*mj+shift)
		}
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			den := l[i]*mu[j] + shift
			if !(den > 1e-13*dmax) {
				return fmt.Errorf("the system is singular (eigenvalue %.3g of %.3g): use λ > 0", den, dmax)
			}
			W[i*cols+j] = T[i*cols+j] / den
		}
	}
	return nil
}

// decomposableFit packages Θ (2D×p'), computing the Stein residual ‖AΘBᵀB + NλΘ − RB‖/‖RB‖ and the bias
// b = ȳ − BΘᵀz̄.
func (r Ridge) decomposableFit(m *ovk.Map, s *learn.Stats, A, RB, B, theta []float64, pr int, lambda float64, method string) *Fit {
	F2, p, N := s.F, s.P, float64(s.N)
	BtB := make([]float64, pr*pr)
	gemm(true, false, pr, pr, p, 1, B, B, 0, BtB)
	AT := make([]float64, F2*pr)
	gemm(false, false, F2, pr, F2, 1, A, theta, 0, AT)
	res := make([]float64, F2*pr)
	gemm(false, false, F2, pr, pr, 1, AT, BtB, 0, res)
	for i := range res {
		res[i] += N*lambda*theta[i] - RB[i]
	}
	fit := &Fit{F: m.Features(), P: p, Rank: pr, Theta: theta, Bias: make([]float64, p), Lambda: lambda,
		Intercept: r.Intercept}
	fit.Stats = learn.SolveStats{Method: method, Residual: solve.RelResidual(res, RB, F2, pr)}
	if r.Intercept {
		// u = Θᵀ z̄ (p'), b = ȳ − B u.
		u := make([]float64, pr)
		for f := 0; f < F2; f++ {
			zf := s.SumZ[f] / N
			for k := 0; k < pr; k++ {
				u[k] += theta[f*pr+k] * zf
			}
		}
		for a := 0; a < p; a++ {
			fit.Bias[a] = s.SumY[a]/N - floats.Dot(B[a*pr:(a+1)*pr], u)
		}
	}
	return fit
}
