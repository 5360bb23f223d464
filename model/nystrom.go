package model

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/rffkit/rff/internal/size"
)

// NystromKind is the PointsKind (and Rule) of a Nyström map ψ(x) = Normᵀk_M(x) on M landmarks (Williams & Seeger
// 2001; docs/conventions.md §13.1). Such a file has Points = M landmarks, Features = M' ≤ M,
// Form empty, no weights, scales, phases or zero node, and three arrays of points. In the Cholesky basis (Basis
// "cholesky"; Features = M, the landmarks the pivoted factorization PᵀK_MMP = UᵀU kept, in its order):
//
//	points/landmarks  M×d  the landmarks, in the preprocessed coordinates, row-major
//	points/norm       M×M  U⁻¹, upper triangular (zeros below the diagonal), row-major: ψ(x) = normᵀ k_M(x)
//	points/pivots     M    the squared pivots U_jj², positive
//
// In the eigen basis (Basis empty; M' the eigenvalues of K_MM = UΛUᵀ above the relative threshold Threshold):
//
//	points/landmarks    M×d   the landmarks, in the preprocessed coordinates, row-major
//	points/norm         M×M'  the normalization U Λ^{-1/2}, row-major: ψ(x) = normᵀ k_M(x)
//	points/eigenvalues  M'    the kept eigenvalues of K_MM, positive and decreasing (norm's column order)
//
// θ (M'×P) holds the weights on ψ, whether the fit was ridge on the features or FALKON (whose coefficients α on
// k_M are stored as θ = Normᵀ K_MM α, the coordinates of the same function). A vector-valued model with the
// decomposable kernel (OVK "decomposable", A p×p) stores its p outputs the same way: f(x) = θᵀψ(x) + b.
const NystromKind = "nystrom"

// NystromArrays are the names of the point arrays of a Nyström map in the eigen basis; NystromCholeskyArrays in the
// Cholesky basis.
var (
	NystromArrays         = []string{"eigenvalues", "landmarks", "norm"}
	NystromCholeskyArrays = []string{"landmarks", "norm", "pivots"}
)

// Landmark selections a Nyström file may name.
var landmarkSelections = []string{"", "uniform", "kmeans++", "leverage", "given"}

// checkNystrom checks a Nyström map's header and arrays against each other.
func (m *Model) checkNystrom() error {
	h := &m.Header
	M, d, f := h.Points, h.MapDim(), h.Features
	switch {
	case h.PointsKind != NystromKind || h.Rule != NystromKind:
		return fmt.Errorf("model: a Nyström map needs rule and points kind %q (have %q and %q)", NystromKind, h.Rule, h.PointsKind)
	case h.Exact:
		return errors.New("model: a Nyström map on an exact model")
	case h.OVK != "" && (h.OVK != "decomposable" || h.A == nil || h.Rank != 0):
		return fmt.Errorf("model: a Nyström map with the %s kernel (only the decomposable kernel, with its A and no rank)", h.OVK)
	case h.Task == "hermite":
		return errors.New("model: a hermite model on a Nyström map")
	case d < 1:
		return fmt.Errorf("model: map dimension %d", d)
	case M < 1 || f < 1 || f > M:
		return fmt.Errorf("model: a Nyström map of rank M' = %d on M = %d landmarks (need 1 ≤ M' ≤ M)", f, M)
	case int64(M)*int64(d) > maxArray || int64(M)*int64(f) > maxArray:
		return fmt.Errorf("model: %d landmarks in dimension %d", M, d)
	case !(h.Threshold >= 0 && h.Threshold < 1):
		return fmt.Errorf("model: Nyström threshold %v is not in [0, 1)", h.Threshold)
	case !slices.Contains(landmarkSelections, h.Landmarks):
		return fmt.Errorf("model: unknown landmark selection %q", h.Landmarks)
	case h.Form != "" || h.Zero != 0 || m.Weights != nil || m.Scale != nil || m.Phase != nil || m.B != nil:
		return errors.New("model: a Nyström map with the parameters of a random feature map (form, zero node, weights, scales, phases or B)")
	case m.TrainX != nil || m.Alpha != nil:
		return errors.New("model: a Nyström map with exact-model arrays (train_x, alpha)")
	case !size.Is(len(m.Theta), f, h.Outputs) || len(m.Probe) != f:
		return fmt.Errorf("model: weights do not match (θ %d values, probe %d, F=%d, outputs=%d)", len(m.Theta), len(m.Probe), f, h.Outputs)
	case m.Version == 1:
		return errors.New("model: a version-1 file with a Nyström map")
	case h.Basis != "" && h.Basis != "cholesky":
		return fmt.Errorf("model: unknown Nyström basis %q (cholesky, or empty for the eigen basis)", h.Basis)
	case h.Basis == "cholesky" && f != M:
		return fmt.Errorf("model: a Nyström map in the Cholesky basis with %d features of %d landmarks (need as many)", f, M)
	}
	names, want := NystromArrays, map[string]int{"landmarks": M * d, "norm": M * f, "eigenvalues": f}
	if h.Basis == "cholesky" {
		names, want = NystromCholeskyArrays, map[string]int{"landmarks": M * d, "norm": M * f, "pivots": f}
	}
	if len(m.Points) != len(names) {
		return fmt.Errorf("model: %d arrays of points for a Nyström map, want %v", len(m.Points), names)
	}
	for _, name := range names { // in order: the same file, the same error
		n := want[name]
		a, ok := m.Points[name]
		if !ok {
			return fmt.Errorf("model: a Nyström map needs the array %q", pointsPrefix+name)
		}
		if len(a) != n {
			return fmt.Errorf("model: %s%s has %d values, want %d (M = %d, M' = %d, d = %d)", pointsPrefix, name, len(a), n, M, f, d)
		}
		for i, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("model: %s%s[%d] is %v", pointsPrefix, name, i, v)
			}
		}
	}
	if h.Basis == "cholesky" {
		norm, pivots := m.Points["norm"], m.Points["pivots"]
		for j, v := range pivots {
			if !(v > 0) {
				return fmt.Errorf("model: the Nyström pivots are not positive (value %d is %v)", j+1, v)
			}
			if !(norm[j*f+j] > 0) || slices.ContainsFunc(norm[j*f:j*f+j], func(v float64) bool { return v != 0 }) {
				return fmt.Errorf("model: the Nyström normalization is not upper triangular with a positive diagonal (row %d)", j+1)
			}
			if q := v * norm[j*f+j] * norm[j*f+j]; !(math.Abs(q-1) <= pivotTol+0x1p-1074/v) {
				return fmt.Errorf("model: the Nyström pivot %d (%v) does not match the normalization's diagonal (%v): pivot·norm² = %v, not 1", j+1, v, norm[j*f+j], q)
			}
			if cut := h.Threshold * pivots[0] * (1 - 0x1p-49); cut >= 0x1p-1000 && !(v > cut) {
				return fmt.Errorf("model: the Nyström pivot %d (%v) is below the threshold %v of the first pivot %v", j+1, v, h.Threshold, pivots[0])
			}
		}
		return nil
	}
	eig := m.Points["eigenvalues"]
	for j, v := range eig {
		if !(v > 0) || (j > 0 && v > eig[j-1]) {
			return fmt.Errorf("model: the Nyström eigenvalues are not positive and decreasing (value %d is %v)", j+1, v)
		}
		// The writer keeps exactly the eigenvalues λ > t·λ_max, computed as here (nystrom's build): λ_max is the first.
		if !(v > h.Threshold*eig[0]) {
			return fmt.Errorf("model: the Nyström eigenvalue %d (%v) is not above the threshold %v of the largest %v", j+1, v, h.Threshold, eig[0])
		}
	}
	// Column j of norm is u_j/√λ_j for a unit eigenvector u_j, so λ_j‖norm_j‖² = ‖u_j‖², which is 1 to the
	// orthogonality of the eigensolver's vectors (LAPACK's ‖UᵀU − I‖ ≤ p(M)·ε, p a modest function of M; the
	// writer's solver stays below 0.4·M·ε up to M = 2000) plus the roundings of u_j/√λ_j and of the sum (M + 4 of
	// them): |λ_j‖norm_j‖² − 1| ≤ 16·M·ε + 8ε holds with a wide margin, and a norm that belongs to other
	// eigenvalues does not pass it.
	norm := m.Points["norm"]
	ss := make([]float64, f)
	for i := range M {
		for j, v := range norm[i*f : (i+1)*f] {
			ss[j] += v * v
		}
	}
	tol := (16*float64(M) + 8) * 0x1p-53
	for j, v := range eig {
		if q := v * ss[j]; !(math.Abs(q-1) <= tol) {
			return fmt.Errorf("model: the Nyström normalization's column %d does not match the eigenvalue %v: λ·‖column‖² = %v, not 1", j+1, v, q)
		}
	}
	return nil
}

// pivotTol bounds |p_j·n_jj² − 1| for the pivots p_j = U_jj² and the diagonal n_jj = 1/U_jj of norm = U⁻¹ that the
// writer stores (nystrom's buildCholesky: U_jj is the float64 dpstrf computes, p_j = fl(U_jj·U_jj), and dtrti2 sets
// n_jj = fl(1/U_jj); the rest of dtrtri leaves the diagonal alone). With unit roundoff ε = 2⁻⁵³ and |δ_i| ≤ ε,
// p_j = U_jj²(1+δ₁) and n_jj = (1+δ₂)/U_jj, and the check computes fl(fl(p_j·n_jj)·n_jj) = (1+δ₁)(1+δ₂)²(1+δ₃)(1+δ₄),
// within (1+ε)⁵ − 1 < 5.001ε of 1 (q − 1 is then exact). 8ε leaves room, and is still far below any pivot that
// was edited (a pivot of 1e9 for U_jj = 1 gives 1e9). A pivot in the subnormal range is rounded to an absolute
// 2⁻¹⁰⁷⁵ instead, a relative error below 2⁻¹⁰⁷⁵/p_j, which the check adds as 2⁻¹⁰⁷⁴/p_j (negligible above 2⁻¹⁰⁰⁰).
//
// The threshold check beside it: dpstrf keeps pivot a_j (before the square root) only if a_j > fl(t·a₀), a₀ the
// largest diagonal entry and the first pivot, so p_j = fl(fl(√a_j)²) ≥ a_j(1−ε)³ > t·p₀(1−7.01ε), while the cut
// fl(fl(t·p₀)·(1−2⁻⁴⁹)) ≤ t·p₀(1+ε)²(1−16ε) is below that. Cuts under 2⁻¹⁰⁰⁰ are skipped: near the subnormal range
// the relative bounds fail, and such a cut refuses nothing that p_j > 0 does not.
const pivotTol = 8 * 0x1p-53
