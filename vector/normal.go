package vector

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/ovk"
)

// factors holds the factors B(ω_j) of a map (D blocks p×p', row-major) recovered from its documented layout:
// at x = 0 the scalar features are z_j(0) = √w_j (cos) and 0 (sin), and the cos rows of Φ̃(0) hold √w_j·B(ω_j).
type factors struct {
	D, p, pr int
	B        []float64 // D·p·p'
}

func mapFactors(m *ovk.Map) factors {
	D, p, pr, F := m.Points(), m.Outputs(), m.Rank(), m.Features()
	x0 := make([]float64, m.Dim())
	z0 := make([]float64, 2*D)
	m.ScalarBlock(z0, x0, 1, nil)
	phi := make([]float64, p*F)
	m.TransformBlock(phi, x0, 1, nil)
	fac := factors{D: D, p: p, pr: pr, B: make([]float64, D*p*pr)}
	for j := 0; j < D; j++ {
		amp := z0[j]
		if amp == 0 {
			continue // a zero-weight point has identically zero features
		}
		Bj := fac.B[j*p*pr : (j+1)*p*pr]
		for a := 0; a < p; a++ {
			for k := 0; k < pr; k++ {
				Bj[a*pr+k] = phi[a*F+j*pr+k] / amp
			}
		}
	}
	return fac
}

// normalEquations assembles, from the scalar statistics, the (centred) F×F matrix G = ΦᵀΦ (full, row-major) and
// h = ΦᵀY (F), using (ΦᵀΦ)[(f,k),(g,l)] = (ZᵀZ)[f,g]·(B_jᵀB_l)[k,l] and h[(f,k)] = Σ_a B_j[a,k](ZᵀY)[f,a].
func normalEquations(fac factors, s *learn.Stats, intercept bool) (G, h []float64) {
	D, p, pr := fac.D, fac.p, fac.pr
	F2, F, Dp := 2*D, 2*D*pr, D*pr
	Sc, Rc := s.NormalEquations(intercept)
	// Bmat is p × (D·p'), column j·p'+k = B_j[·,k]; M = BmatᵀBmat holds every B_jᵀB_l.
	Bmat := make([]float64, p*Dp)
	for j := 0; j < D; j++ {
		for a := 0; a < p; a++ {
			copy(Bmat[a*Dp+j*pr:a*Dp+(j+1)*pr], fac.B[j*p*pr+a*pr:j*p*pr+(a+1)*pr])
		}
	}
	M := make([]float64, Dp*Dp)
	gemm(true, false, Dp, Dp, p, 1, Bmat, Bmat, 0, M)
	G = make([]float64, F*F)
	for f := 0; f < F2; f++ {
		j := f % D
		srow := Sc[f*F2 : (f+1)*F2]
		for k := 0; k < pr; k++ {
			grow := G[(f*pr+k)*F : (f*pr+k+1)*F]
			mrow := M[(j*pr+k)*Dp : (j*pr+k+1)*Dp]
			for g, sfg := range srow {
				l := g % D
				dst := grow[g*pr : (g+1)*pr]
				src := mrow[l*pr : (l+1)*pr]
				for q, v := range src {
					dst[q] = sfg * v
				}
			}
		}
	}
	h = make([]float64, F)
	for f := 0; f < F2; f++ {
		Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
		rf := Rc[f*p : (f+1)*p]
		for k := 0; k < pr; k++ {
			var v float64
			for a, ra := range rf {
				v += Bj[a*pr+k] * ra
			}
			h[f*pr+k] = v
		}
	}
	return G, h
}

// normalCholesky assembles the normal equations once and factorises them for every λ.
func (r Ridge) normalCholesky(m *ovk.Map, s *learn.Stats, lambdas []float64) ([]*Fit, error) {
	fac := mapFactors(m)
	G, h := normalEquations(fac, s, r.Intercept)
	F, N := m.Features(), float64(s.N)
	fits := make([]*Fit, len(lambdas))
	for li, lambda := range lambdas {
		theta, res, err := spdSolve(G, F, N*lambda, h, 1, lambda == 0)
		if err != nil {
			return nil, fmt.Errorf("λ = %g: %w", lambda, err)
		}
		fit := &Fit{F: F, P: m.Outputs(), Rank: m.Rank(), Theta: theta, Bias: make([]float64, m.Outputs()),
			Lambda: lambda, Intercept: r.Intercept, Stats: learn.SolveStats{Method: "cholesky", Residual: res}}
		if r.Intercept {
			// b = ȳ − Φ̄ᵀθ, Φ̄ᵀθ[a] = (1/N) Σ_f (Σz)_f Σ_k B_j[a,k] θ[f·p'+k].
			D, p, pr := fac.D, fac.p, fac.pr
			mean := make([]float64, p)
			for f := 0; f < 2*D; f++ {
				zf := s.SumZ[f] / N
				Bj := fac.B[(f%D)*p*pr : (f%D+1)*p*pr]
				th := theta[f*pr : (f+1)*pr]
				for a := 0; a < p; a++ {
					mean[a] += zf * floats.Dot(Bj[a*pr:(a+1)*pr], th)
				}
			}
			for a := range mean {
				fit.Bias[a] = s.SumY[a]/N - mean[a]
			}
		}
		fits[li] = fit
	}
	return fits, nil
}
