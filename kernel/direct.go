package kernel

// The direct path of the squared-distance kernels: for d below directMaxDim(), Gram computes each squared distance by
// the coordinate loop of sqDist — exact up to its own d roundings, with no cancellation — sixteen centres at a time
// from a copy of the centres transposed in panels, four lanes per AVX2 register where the CPU has them. Each lane
// performs sqDist's operations in its order (t = x_i − y_i, s += t·t for i = 0, …, d−1), so every value is sqDist's
// bit for bit.

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

// sqDistRow sets dst[j] = sqDist(x, y_j) for the m centres Y (m×d) whose full panels are yt.
func sqDistRow(dst, x, yt, Y []float64, m, d int) {
	full := m / dirPanel * dirPanel
	if full > 0 {
		sqDistPanels(dst[:full], x[:d], yt[:full*d], d)
	}
	for j := full; j < m; j++ {
		dst[j] = sqDist(x, Y[j*d:(j+1)*d])
	}
}

// sqDistPanelsGeneric is the portable form of sqDistPanels: dst[dirPanel·p + l] = Σ_i (x_i − yt[(p·d+i)·dirPanel+l])²
// for every panel p of yt, summed in the order of sqDist.
func sqDistPanelsGeneric(dst, x, yt []float64, d int) {
	var acc [dirPanel]float64
	for p := range len(dst) / dirPanel {
		acc = [dirPanel]float64{}
		panel := yt[p*d*dirPanel : (p+1)*d*dirPanel]
		for i, xi := range x[:d] {
			y := panel[i*dirPanel : (i+1)*dirPanel]
			for l := range acc {
				t := xi - y[l]
				acc[l] += float64(t * t) // rounded before the sum, as sqDist without a fused multiply-add
			}
		}
		copy(dst[p*dirPanel:], acc[:])
	}
}
