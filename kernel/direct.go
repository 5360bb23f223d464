package kernel

import "math"

// The direct path of the distance kernels: for the squared-distance kernels with d below directMaxDim(), and for the
// Laplacian kernel (L1 distances) at every d where the CPU has AVX2, Gram computes each distance by the coordinate
// loop — exact up to its own d roundings, with no cancellation — sixteen centres at a time from a copy of the centres
// transposed in panels, four lanes per AVX2 register where the CPU has them. Each lane performs the loop's
// operations in its order (t = x_i − y_i, then s += t·t for sqDist or s += |t| for absDist, for i = 0, …, d−1), so
// every value is the loop's bit for bit.

// dirPanel is the number of centres in a panel of the transposed copy.
const dirPanel = 16

// transposePanels returns the m/dirPanel full panels of Y (m×d): yt[(p·d + i)·dirPanel + l] = Y[(dirPanel·p + l)·d + i].
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

// distRow sets dst[j] = sqDist(x, y_j), or absDist(x, y_j) when l1 is set, for the m centres Y (m×d) whose full
// panels are yt.
func distRow(dst, x, yt, Y []float64, m, d int, l1 bool) {
	full := m / dirPanel * dirPanel
	if full > 0 {
		distPanels(dst[:full], x[:d], yt[:full*d], d, l1)
	}
	dist := sqDist
	if l1 {
		dist = absDist
	}
	for j := full; j < m; j++ {
		dst[j] = dist(x, Y[j*d:(j+1)*d])
	}
}

// distPanelsGeneric is the portable form of distPanels: dst[dirPanel·p + l] = Σ_i (x_i − y)², or Σ_i |x_i − y| when
// l1 is set, y = yt[(p·d+i)·dirPanel+l], for every panel p of yt, summed in the order of sqDist and absDist.
func distPanelsGeneric(dst, x, yt []float64, d int, l1 bool) {
	var acc [dirPanel]float64
	for p := range len(dst) / dirPanel {
		acc = [dirPanel]float64{}
		panel := yt[p*d*dirPanel : (p+1)*d*dirPanel]
		for i, xi := range x[:d] {
			y := panel[i*dirPanel : (i+1)*dirPanel]
			for l := range acc {
				t := xi - y[l]
				if l1 {
					acc[l] += math.Abs(t)
				} else {
					acc[l] += float64(t * t) // rounded before the sum, as sqDist without a fused multiply-add
				}
			}
		}
		copy(dst[p*dirPanel:], acc[:])
	}
}
