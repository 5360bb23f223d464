package kernel

import "math"

// The direct path of the distance kernels: for the squared-distance kernels with d below directMaxDim(), and for the
// Laplacian (L1 distances), Cauchy and arc-cosine (inner products) kernels at every d where the CPU has AVX2, Gram
// computes each value by the coordinate loop — exact up to its own d roundings, with no cancellation — sixteen
// centres at a time from a copy of the centres transposed in panels (as large as the centres), four lanes per AVX2
// register where the CPU has them. Each lane performs the loop's operations in its order (t = x_i − y_i, then
// s += t·t for sqDist, s += |t| for absDist, or t /= σ and p /= 1 + t·t for cauchyProd; s += x_i·y_i for dot; for
// i = 0, …, d−1), so every value is the loop's bit for bit.

// dirMode is what the direct path computes per pair.
type dirMode int

const (
	dirSq     dirMode = iota // sqDist
	dirL1                    // absDist
	dirCauchy                // cauchyProd
	dirDot                   // dot
)

// dirPanel is the number of centres in a panel of the transposed copy.
const dirPanel = 16

// transposePanels returns the m/dirPanel full panels of Y (m×d):
// yt[(p·d + i)·dirPanel + l] = Y[(dirPanel·p + l)·d + i].
func transposePanels(Y []float64, m, d int) []float64 {
	P := m / dirPanel
	yt := make([]float64, P*d*dirPanel)
	for p := range P {
		for l := range dirPanel {
			row := Y[(p*dirPanel+l)*d : (p*dirPanel+l+1)*d]
			for i, v := range row {
				yt[(p*d+i)*dirPanel+l] = v
			}
		}
	}
	return yt
}

// distRow sets dst[j] to sqDist, absDist, cauchyProd (with bandwidth sigma) or dot of x and y_j, by mode, for the
// m centres Y (m×d) whose full panels are yt.
func distRow(dst, x, yt, Y []float64, m, d int, mode dirMode, sigma float64) {
	full := m / dirPanel * dirPanel
	if full > 0 {
		distPanels(dst[:full], x[:d], yt[:full*d], d, mode, sigma)
	}
	for j := full; j < m; j++ {
		y := Y[j*d : (j+1)*d]
		switch mode {
		case dirL1:
			dst[j] = absDist(x, y)
		case dirCauchy:
			dst[j] = cauchyProd(x, y, sigma)
		case dirDot:
			dst[j] = dot(x, y)
		default:
			dst[j] = sqDist(x, y)
		}
	}
}

// distPanelsGeneric is the portable form of distPanels: for every panel p of yt and lane l, with
// y_i = yt[(p·d+i)·dirPanel+l], dst[dirPanel·p + l] = Σ_i (x_i − y_i)² (dirSq), Σ_i |x_i − y_i| (dirL1),
// Π_i 1/(1 + ((x_i − y_i)/σ)²) (dirCauchy) or Σ_i x_i·y_i (dirDot), in the order and with the operations of sqDist,
// absDist, cauchyProd and dot.
func distPanelsGeneric(dst, x, yt []float64, d int, mode dirMode, sigma float64) {
	var acc [dirPanel]float64
	for p := range len(dst) / dirPanel {
		start := 0.0
		if mode == dirCauchy {
			start = 1
		}
		for l := range acc {
			acc[l] = start
		}
		panel := yt[p*d*dirPanel : (p+1)*d*dirPanel]
		for i, xi := range x[:d] {
			y := panel[i*dirPanel : (i+1)*dirPanel]
			for l := range acc {
				if mode == dirDot {
					acc[l] += float64(xi * y[l])
					continue
				}
				t := xi - y[l]
				switch mode {
				case dirL1:
					acc[l] += math.Abs(t)
				case dirCauchy:
					t /= sigma
					acc[l] /= 1 + float64(t*t)
				default:
					acc[l] += float64(t * t) // rounded before the sum, as sqDist without a fused multiply-add
				}
			}
		}
		copy(dst[p*dirPanel:], acc[:])
	}
}
