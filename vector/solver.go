package vector

import (
	"fmt"
	"strings"
)

// Solver selects how [Ridge] minimises the ORFF ridge objective.
type Solver int

const (
	// Auto is ClosedForm for a decomposable kernel and Cholesky for the others.
	Auto Solver = iota
	// ClosedForm solves the Stein equation of a decomposable kernel in closed form: the p' shifted systems
	// (μ_j ZᵀZ + NλI)Θ̃_j = (ZᵀYBV)_j after BᵀB = VMVᵀ, by Cholesky, one factorisation per distinct μ_j. Decomposable
	// kernels only. Memory O((2D)²).
	ClosedForm
	// Cholesky assembles the F×F normal equations (ΦᵀΦ + NλI)θ = ΦᵀY (centred with an intercept) from the scalar
	// statistics and the factors B(ω_j), then factorises them in place. Any kernel. Memory 8F² bytes plus the
	// statistics, refused above MaxBytes.
	Cholesky
	// CG runs Jacobi-preconditioned conjugate gradients on the normal equations without forming ΦᵀΦ: every
	// iteration applies θ ↦ Σ_i Φ̃(x_i)(Φ̃(x_i)ᵀθ) + Nλθ, O(N·D·p·p'). The scalar features Z (8·N·2D bytes) are cached
	// when they fit in MaxBytes; otherwise every product recomputes them through ovk.Map.Predict and ovk.Map.Adjoint
	// (two passes over the data, memory O(F + N·p)). Any kernel.
	CG
	// LBFGS minimises L(θ, b) directly with L-BFGS (gonum/optimize), the paper's choice for curl- and
	// divergence-free kernels (§5: "Scipy's L-BFGS-B"). The value and the gradient
	// ∇_θ = (2/N)Σ_i Φ̃(x_i)r_i + 2λθ, ∇_b = (2/N)Σ_i r_i (r_i = f̃(x_i) − y_i) use the same regulariser λ‖θ‖². Any
	// kernel. The line search is an exact secant search on φ'(α) (the objective is quadratic), which never compares
	// function values and so converges to a relative gradient of about 1e-12. Products as for CG (cached scalar
	// features when they fit in MaxBytes). Memory O(F·(store + 1) + N·p).
	LBFGS
)

var solverNames = [...]string{"auto", "closed-form", "cholesky", "cg", "lbfgs"}

// String returns the solver's name, as ParseSolver accepts it.
func (s Solver) String() string {
	if s >= 0 && int(s) < len(solverNames) {
		return solverNames[s]
	}
	return fmt.Sprintf("Solver(%d)", int(s))
}

// ParseSolver parses "auto", "closed-form" (alias "stein"), "cholesky", "cg" and "lbfgs" (alias "l-bfgs").
func ParseSolver(s string) (Solver, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return Auto, nil
	case "closed-form", "closed", "stein":
		return ClosedForm, nil
	case "cholesky", "chol":
		return Cholesky, nil
	case "cg":
		return CG, nil
	case "lbfgs", "l-bfgs":
		return LBFGS, nil
	}
	return 0, fmt.Errorf("unknown solver %q (want auto, closed-form, cholesky, cg or lbfgs)", s)
}

// DefaultMaxBytes caps the dense matrices of the ClosedForm and Cholesky solvers, and the scalar features
// that CG and LBFGS cache: 4 GiB.
const DefaultMaxBytes = 4 << 30
