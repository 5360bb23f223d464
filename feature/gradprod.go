package feature

import (
	"fmt"
	"math"
	"runtime"

	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
)

// GradientProduct writes the gradients of the P functions f_a(x) = Σ_c θ[c·P + a]·ψ_c(x) (theta F×P, row-major:
// the coefficients of a model on this map) at the rows of x (rows×d) into dst (rows×d×P, dst[(r·d + i)·P + a] =
// ∂f_a/∂x_i at row r) — Gradient followed by the product with θ, without forming the d·F derivative features of a
// row. Differentiating the features (see Derivative),
//
//	∇f_a(x) = Σ_j v_ja ω_j,   v_ja = θ_{D+j,a}·√w_j cos(ω_jᵀx) − θ_{j,a}·√w_j sin(ω_jᵀx)     (cos/sin form),
//	                          v_ja = −θ_{j,a}·√(2w_j) sin(ω_jᵀx + b_j)                        (cos+phase form),
//
// so a row costs one projection, its sines and cosines, and the product of v with the D×d frequencies (d·D·P
// multiply-adds instead of the d·F values of the derivative features and their product with θ). The frequencies
// ([Map.Frequencies]) are computed at the first call and kept with the map: D·d values more, as a dense rule holds.
// A row's gradient has the same bits alone as among other rows. It returns the errors of Gradient, and one for a
// theta that is not F×P or P < 1.
func (m *Map) GradientProduct(dst, x []float64, rows int, theta []float64, P int) error {
	if err := m.check("feature map: GradientProduct"); err != nil {
		return err
	}
	if P < 1 || !size.Is(len(theta), m.cols, P) {
		return fmt.Errorf("feature map: GradientProduct: theta has %d values, want %d features × P = %d outputs", len(theta), m.cols, P)
	}
	if _, err := m.checkDeriv(nil, x, rows, 0, nil); err != nil { // no derivative features to hold (blocks = 0)
		return err
	}
	if !size.Is(len(dst), rows, m.d, P) {
		return fmt.Errorf("feature map: GradientProduct: output has %d values, want %d rows × %d inputs × %d outputs", len(dst), rows, m.d, P)
	}
	if rows == 0 {
		return nil
	}
	omega := m.freqs()
	D, d := m.points.Len(), m.d
	blocks := (rows + blockRows - 1) / blockRows
	br := min(blockRows, rows)
	type scratch struct{ feat, proj, v, g []float64 }
	scratches := make([]*scratch, runtime.GOMAXPROCS(0))
	parallel.ForWorker(blocks, len(scratches), func(w, b int) {
		if scratches[w] == nil {
			scratches[w] = &scratch{proj: make([]float64, br*D), v: make([]float64, br*P*D), g: make([]float64, br*P*d)}
			if m.form != CosPhase {
				scratches[w].feat = make([]float64, br*m.cols)
			}
		}
		sc := scratches[w]
		r0 := b * blockRows
		rb := min(blockRows, rows-r0)
		xb := x[r0*d : (r0+rb)*d]
		v := sc.v[:rb*P*D] // row r·P + a: v_·a of row r
		if m.form == CosPhase {
			proj := sc.proj[:rb*D]
			m.ProjectBlock(proj, xb, rb)
			for r := range rb {
				t := proj[r*D : (r+1)*D]
				for j, tj := range t {
					s := math.Sin(tj + m.phase[j])
					for a := range P {
						v[(r*P+a)*D+j] = -(theta[j*P+a] * (m.amp[j] * s))
					}
				}
			}
		} else {
			feat := sc.feat[:rb*m.cols]
			m.TransformBlock(feat, xb, rb, sc.proj)
			for r := range rb {
				cs, sn := feat[r*m.cols:r*m.cols+D], feat[r*m.cols+D:(r+1)*m.cols]
				for a := range P {
					va := v[(r*P+a)*D : (r*P+a+1)*D]
					for j := range va {
						va[j] = theta[(D+j)*P+a]*cs[j] - theta[j*P+a]*sn[j]
					}
				}
			}
		}
		// (rb·P)×d = V·Ω: a row of V alone gives the bits it gives among others.
		g := sc.g[:rb*P*d]
		linalg.MulRows(false, rb*P, d, D, v, D, omega, d, g, d)
		out := dst[r0*d*P : (r0+rb)*d*P]
		for r := range rb {
			for a := range P {
				gr := g[(r*P+a)*d : (r*P+a+1)*d]
				for i, gi := range gr {
					out[(r*d+i)*P+a] = gi
				}
			}
		}
	})
	return nil
}
