package learn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/finite"
	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/internal/solve"
)

// Loss is the loss of a linear classifier on features.
type Loss int

const (
	// Squared is the squared loss on one-hot (or simplex) targets: ridge regression (see Ridge).
	Squared Loss = iota
	// Hinge is the L1-SVM loss max(0, 1 − y f(z)).
	Hinge
	// SquaredHinge is the L2-SVM loss max(0, 1 − y f(z))².
	SquaredHinge
	// Logistic is the multinomial logistic (softmax cross-entropy) loss −log softmax(f(z))_y.
	Logistic
)

var lossNames = [...]string{"squared", "hinge", "squared-hinge", "logistic"}

// String returns the loss's name as ParseLoss reads it: "squared", "hinge", "squared-hinge" or "logistic"
// ("Loss(n)" for a value outside these).
func (l Loss) String() string {
	if l >= 0 && int(l) < len(lossNames) {
		return lossNames[l]
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss parses "squared", "hinge", "squared-hinge" (or "squared_hinge", "l2svm") and "logistic".
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "squared", "ridge":
		return Squared, nil
	case "hinge", "l1svm":
		return Hinge, nil
	case "squared-hinge", "squared_hinge", "l2svm":
		return SquaredHinge, nil
	case "logistic":
		return Logistic, nil
	}
	return 0, fmt.Errorf("unknown loss %q (want squared, hinge, squared-hinge or logistic)", s)
}

// DefaultFeatureMaxBytes caps the in-memory feature matrix of the iterative classifiers (8·N·F bytes): 4 GiB.
const DefaultFeatureMaxBytes = 4 << 30

// Classifier is a linear classifier on features trained with the hinge, squared-hinge or logistic loss, with the
// λ convention of Ridge:
//
//	minimise (1/N) Σ_i ℓ(y_i, f(z_i)) + λ‖Θ‖²,   f(z) = Θᵀz + b.
//
// Hinge and SquaredHinge train one binary SVM per class (one-vs-rest; a single SVM for two classes) by dual
// coordinate descent (Hsieh, Chang, Lin, Keerthi & Sundararajan 2008, Algorithm 1 with the shrinking of §3.2, the
// method of liblinear). Multiplying the objective by N/(2λ) gives the liblinear form ½‖w‖² + C Σ ℓ with
// C = 1/(2Nλ). As in liblinear, the bias is the weight of a constant feature 1 and is therefore regularised too.
// The dual of each binary problem is
//
//	min_α ½ αᵀQ̄α − Σα_i,   0 ≤ α_i ≤ U,   Q̄ = Q + D̄,   Q_ij = y_i y_j z_iᵀz_j,
//
// with U = C, D̄ = 0 for the hinge and U = ∞, D̄_ii = 1/(2C) for the squared hinge; w = Σ α_i y_i z_i.
//
// Logistic minimises the multinomial (softmax) cross-entropy with an unpenalised bias by L-BFGS (gonum/optimize);
// the objective is smooth and strictly convex in Θ, so the optimum is characterised by a zero gradient.
//
// Both methods iterate over the feature matrix, which is therefore held in memory (8·N·F bytes, capped by
// MaxBytes); squared-loss classification with Ridge needs only the statistics.
type Classifier struct {
	Loss Loss
	// Lambda is λ > 0.
	Lambda float64
	// Tol is the stopping tolerance: for the SVMs the gap max PG − min PG of the projected dual gradient over an
	// epoch (liblinear's criterion; 0 means 0.01), for Logistic the largest absolute entry of the gradient
	// (0 means 1e-6).
	Tol float64
	// MaxIter bounds the epochs of coordinate descent or the L-BFGS iterations; 0 means 1000.
	MaxIter int
	// Seed fixes the random order in which coordinate descent visits the examples.
	Seed uint64
	// MaxBytes caps the feature matrix held in memory; 0 means DefaultFeatureMaxBytes.
	MaxBytes int64
	// Progress, when set, is called with 1 after each epoch of each one-vs-rest SVM, or after each L-BFGS
	// iteration. It may be called from several goroutines at once.
	Progress func(steps int)
}

func (c Classifier) validate(n, F int, labels []int, K int) error {
	if c.Loss != Hinge && c.Loss != SquaredHinge && c.Loss != Logistic {
		return fmt.Errorf("learn.Classifier: loss %v is not an iterative classifier loss (use Ridge for squared loss)", c.Loss)
	}
	if !(c.Lambda > 0) || math.IsInf(c.Lambda, 0) {
		return fmt.Errorf("learn.Classifier: λ = %v: need a finite λ > 0", c.Lambda)
	}
	if n < 1 || F < 1 {
		return fmt.Errorf("learn.Classifier: need at least one example and one feature, have n=%d, F=%d", n, F)
	}
	if err := blocks.CheckLambda("learn.Classifier: ", n, c.Lambda); err != nil {
		return err
	}
	if K < 2 {
		return fmt.Errorf("learn.Classifier: need at least 2 classes, have %d", K)
	}
	if _, err := size.Floats("learn.Classifier: weights", F+1, K); err != nil {
		return err
	}
	if len(labels) != n {
		return fmt.Errorf("learn.Classifier: %d labels for %d examples", len(labels), n)
	}
	for i, l := range labels {
		if l < 0 || l >= K {
			return fmt.Errorf("learn.Classifier: label %d of row %d is outside [0, %d)", l, i+1, K)
		}
	}
	return nil
}

// step reports one epoch or iteration to c.Progress.
func (c Classifier) step() {
	if c.Progress != nil {
		c.Progress(1)
	}
}

func (c Classifier) maxIter() int {
	if c.MaxIter > 0 {
		return c.MaxIter
	}
	return 1000
}

// Fit trains the classifier on the n rows of Z (n×F features, row-major) with class labels in [0, K). The result
// has P = K score columns decoded by Argmax: for two classes column 1 holds the SVM score f and column 0 holds −f.
func (c Classifier) Fit(Z []float64, n, F int, labels []int, K int) (*Fit, error) {
	fit, _, err := c.fit(Z, n, F, labels, K, nil)
	return fit, err
}

// warmStart is where a classifier's solver left off, to start the fit at the next λ of a path from: the dual
// variables of each binary SVM (at the box of C = 1/(2Nλ)), or the L-BFGS variables of the logistic model.
type warmStart struct {
	lambda float64
	alpha  [][]float64
	x      []float64
}

// fit is Fit started from warm (nil: from zero), for the same rows and classes; it also returns where it left off.
// Both solvers reach the same optimum from any start (the problems are convex and the stopping tests the same), so
// a warm start changes the path, not the answer beyond the solver's tolerance.
func (c Classifier) fit(Z []float64, n, F int, labels []int, K int, warm *warmStart) (*Fit, *warmStart, error) {
	if err := c.validate(n, F, labels, K); err != nil {
		return nil, nil, err
	}
	if !size.Is(len(Z), n, F) {
		return nil, nil, fmt.Errorf("learn.Classifier.Fit: Z has %d values, want %d rows × %d features", len(Z), n, F)
	}
	if i := finite.Index(Z); i >= 0 {
		return nil, nil, fmt.Errorf("learn.Classifier.Fit: Z row %d, column %d is %v", i/F+1, i%F+1, Z[i])
	}
	start := time.Now()
	var fit *Fit
	var next *warmStart
	var err error
	if c.Loss == Logistic {
		fit, next, err = c.logistic(Z, n, F, labels, K, warm)
	} else {
		fit, next = c.svm(Z, n, F, labels, K, warm)
	}
	if err != nil {
		return nil, nil, err
	}
	fit.Lambda, fit.Intercept = c.Lambda, true
	fit.Stats.Seconds = time.Since(start).Seconds()
	next.lambda = c.Lambda
	return fit, next, nil
}

// FitMap maps the n rows of X (n×d, d = m.Dim()) through m into an in-memory feature matrix (refusing more than
// MaxBytes) and trains the classifier on it.
func (c Classifier) FitMap(m Mapper, X []float64, n int, labels []int, K int) (*Fit, error) {
	if isNil(m) {
		return nil, errors.New("learn.Classifier.FitMap: nil feature map")
	}
	if err := c.validate(n, m.Features(), labels, K); err != nil {
		return nil, err
	}
	Z, err := Features(m, X, n, c.MaxBytes)
	if err != nil {
		return nil, err
	}
	return c.Fit(Z, n, m.Features(), labels, K)
}

// Features maps the n rows of X (n×d, d = m.Dim()) through m on all cores and returns the n×F feature matrix,
// refusing (with an error stating the bytes needed) a matrix larger than maxBytes (0 means
// DefaultFeatureMaxBytes).
func Features(m Mapper, X []float64, n int, maxBytes int64) ([]float64, error) {
	if isNil(m) {
		return nil, errors.New("learn.Features: nil feature map")
	}
	if err := checkMapper("learn.Features", m); err != nil {
		return nil, err
	}
	if err := blocks.CheckX("learn.Features", X, n, m.Dim()); err != nil {
		return nil, err
	}
	if maxBytes <= 0 {
		maxBytes = DefaultFeatureMaxBytes
	}
	F := m.Features()
	if need := 8 * float64(n) * float64(F); need > float64(maxBytes) {
		return nil, fmt.Errorf("learn.Features: the %d×%d feature matrix needs %s, above the limit of %s "+
			"(use fewer points, or the squared loss, which streams)", n, F, solve.Bytes(need), solve.Bytes(float64(maxBytes)))
	}
	Z := make([]float64, n*F)
	mapBlocks(m, X, n, blocks.Count(n), func(_ int, z []float64, r0, rows int) {
		copy(Z[r0*F:(r0+rows)*F], z)
	})
	return Z, nil
}

// svm trains one binary SVM per class (one for two classes) and packs the weights into a Fit.
func (c Classifier) svm(Z []float64, n, F int, labels []int, K int, warm *warmStart) (*Fit, *warmStart) {
	problems := K
	if K == 2 {
		problems = 1
	}
	C := 1 / (2 * float64(n) * c.Lambda)
	// A warm start scales the previous dual variables by C/C_prev, which keeps those at the bound C_prev at the
	// new bound and the others in proportion.
	var alpha0 [][]float64
	if warm != nil && len(warm.alpha) == problems && warm.lambda > 0 {
		scale := warm.lambda / c.Lambda // C/C_prev
		alpha0 = make([][]float64, problems)
		for k, a := range warm.alpha {
			if len(a) != n {
				alpha0 = nil
				break
			}
			alpha0[k] = make([]float64, n)
			for i, v := range a {
				alpha0[k][i] = v * scale
			}
		}
	}
	sq := make([]float64, n) // ‖z_i‖² + 1 (the constant bias feature)
	for i := range n {
		z := Z[i*F : (i+1)*F]
		sq[i] = floats.Dot(z, z) + 1
	}
	ws := make([][]float64, problems)
	res := make([]dcdResult, problems)
	parallel.For(problems, 0, func(k int) {
		pos := k
		if K == 2 {
			pos = 1
		}
		y := make([]float64, n)
		for i, l := range labels {
			y[i] = -1
			if l == pos {
				y[i] = 1
			}
		}
		var a0 []float64
		if alpha0 != nil {
			a0 = alpha0[k]
		}
		ws[k], res[k] = c.dualCD(Z, n, F, y, sq, C, uint64(k), a0, c.step)
	})
	fit := &Fit{F: F, P: K, Theta: make([]float64, F*K), Bias: make([]float64, K)}
	set := func(col int, w []float64, sign float64) {
		for j := range F {
			fit.Theta[j*K+col] = sign * w[j]
		}
		fit.Bias[col] = sign * w[F]
	}
	if K == 2 {
		set(1, ws[0], 1)
		set(0, ws[0], -1)
	} else {
		for k := range K {
			set(k, ws[k], 1)
		}
	}
	fit.Stats.Method = "dual-cd"
	next := &warmStart{alpha: make([][]float64, problems)}
	for k, r := range res {
		fit.Stats.Iterations = max(fit.Stats.Iterations, r.epochs)
		fit.Stats.Residual = max(fit.Stats.Residual, r.gap)
		next.alpha[k] = r.alpha
		if r.gap > r.eps {
			fit.Stats.Note = fmt.Sprintf("dual coordinate descent stopped after %d epochs with a projected-gradient gap of %.3g, above the tolerance %g", r.epochs, r.gap, r.eps)
		}
	}
	return fit, next
}

type dcdResult struct {
	alpha  []float64 // the dual variables
	epochs int
	gap    float64 // max PG − min PG over every variable at the end
	eps    float64 // the tolerance of gap
}

// dualCD solves one binary SVM (labels y = ±1) by dual coordinate descent with shrinking and returns w (F+1
// values, the last one the bias weight). sq holds ‖z_i‖² + 1. alpha0 (n values, or nil for zeros) is the starting
// point, projected onto the box [0, U].
func (c Classifier) dualCD(Z []float64, n, F int, y, sq []float64, C float64, stream uint64, alpha0 []float64, done func()) ([]float64, dcdResult) {
	U, Dii := C, 0.0
	if c.Loss == SquaredHinge {
		U, Dii = math.Inf(1), 1/(2*C)
	}
	eps := c.Tol
	if eps <= 0 {
		eps = 0.01
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed_0000+stream))
	w := make([]float64, F+1)
	alpha := make([]float64, n)
	if alpha0 != nil {
		for i, a := range alpha0[:n] {
			alpha[i] = min(max(a, 0), U)
			if alpha[i] != 0 { // w = Σ α_i y_i z̃_i
				floats.AddScaled(w[:F], alpha[i]*y[i], Z[i*F:(i+1)*F])
				w[F] += alpha[i] * y[i]
			}
		}
	}
	index := make([]int, n)
	for i := range index {
		index[i] = i
	}
	active := n
	pgMaxOld, pgMinOld := math.Inf(1), math.Inf(-1)
	var r dcdResult
	for r.epochs < c.maxIter() {
		rng.Shuffle(active, func(a, b int) { index[a], index[b] = index[b], index[a] })
		pgMax, pgMin := math.Inf(-1), math.Inf(1)
		for s := 0; s < active; s++ {
			i := index[s]
			z := Z[i*F : (i+1)*F]
			G := y[i]*(floats.Dot(w[:F], z)+w[F]) - 1 + Dii*alpha[i]
			pg := 0.0
			switch {
			case alpha[i] == 0:
				if G > pgMaxOld { // shrink: α_i stays at its lower bound
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = min(G, 0)
			case alpha[i] == U:
				if G < pgMinOld { // shrink: α_i stays at its upper bound
					active--
					index[s], index[active] = index[active], index[s]
					s--
					continue
				}
				pg = max(G, 0)
			default:
				pg = G
			}
			pgMax, pgMin = max(pgMax, pg), min(pgMin, pg)
			if math.Abs(pg) > 1e-12 {
				old := alpha[i]
				alpha[i] = min(max(old-G/(sq[i]+Dii), 0), U)
				if step := (alpha[i] - old) * y[i]; step != 0 {
					floats.AddScaled(w[:F], step, z)
					w[F] += step
				}
			}
		}
		r.epochs++
		done()
		if active == 0 { // everything shrunk: recheck on the full set
			pgMax, pgMin = 0, 0
		}
		r.gap = pgMax - pgMin
		if r.gap <= eps {
			if active == n {
				break
			}
			active, pgMaxOld, pgMinOld = n, math.Inf(1), math.Inf(-1)
			continue
		}
		pgMaxOld, pgMinOld = pgMax, pgMin
		if pgMaxOld <= 0 {
			pgMaxOld = math.Inf(1)
		}
		if pgMinOld >= 0 {
			pgMinOld = math.Inf(-1)
		}
	}
	// The loop's gap is over the variables still active: shrunk ones are rechecked only when it falls below eps.
	// What is reported is the gap over all of them, so that a solve stopped by MaxIter (or a gap that never fell to
	// eps) does not pass for converged.
	pgMax, pgMin := 0.0, 0.0
	for i := range n {
		G := y[i]*(floats.Dot(w[:F], Z[i*F:(i+1)*F])+w[F]) - 1 + Dii*alpha[i]
		pg := G
		switch {
		case alpha[i] == 0:
			pg = min(G, 0)
		case alpha[i] == U:
			pg = max(G, 0)
		}
		pgMax, pgMin = max(pgMax, pg), min(pgMin, pg)
	}
	r.gap, r.eps = pgMax-pgMin, eps
	r.alpha = alpha
	return w, r
}

// logistic minimises the multinomial cross-entropy (1/N)Σ −log softmax(Θᵀz_i + b)_{y_i} + λ‖Θ‖² by L-BFGS over
// x = [Θ (F×K, row-major), b (K)].
func (c Classifier) logistic(Z []float64, n, F int, labels []int, K int, warm *warmStart) (*Fit, *warmStart, error) {
	N := float64(n)
	S := make([]float64, n*K) // scores, then P − Y
	zg := blas64.General{Rows: n, Cols: F, Stride: F, Data: Z}
	var cacheX []float64
	var cacheF float64
	cacheG := make([]float64, F*K+K)
	eval := func(x []float64) {
		if cacheX != nil && floats.Equal(x, cacheX) {
			return
		}
		cacheX = append(cacheX[:0], x...)
		theta, b := x[:F*K], x[F*K:]
		for i := range n {
			copy(S[i*K:(i+1)*K], b)
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, zg, blas64.General{Rows: F, Cols: K, Stride: K, Data: theta},
			1, blas64.General{Rows: n, Cols: K, Stride: K, Data: S})
		loss := 0.0
		gb := cacheG[F*K:]
		clear(gb)
		for i := range n {
			s := S[i*K : (i+1)*K]
			m := floats.Max(s)
			loss += m - s[labels[i]] // −log softmax_y = log Σ exp(s_j − m) + m − s_y
			sum := 0.0
			for j := range s {
				s[j] = math.Exp(s[j] - m)
				sum += s[j]
			}
			loss += math.Log(sum)
			for j := range s {
				s[j] /= sum
			}
			s[labels[i]]--
			floats.Add(gb, s)
		}
		floats.Scale(1/N, gb)
		gt := cacheG[:F*K]
		copy(gt, theta)
		// ∇Θ = (1/N) Zᵀ(P − Y) + 2λΘ
		blas64.Gemm(blas.Trans, blas.NoTrans, 1/N, zg, blas64.General{Rows: n, Cols: K, Stride: K, Data: S},
			2*c.Lambda, blas64.General{Rows: F, Cols: K, Stride: K, Data: gt})
		cacheF = loss/N + c.Lambda*floats.Dot(theta, theta)
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { eval(x); return cacheF },
		Grad: func(g, x []float64) { eval(x); copy(g, cacheG) },
	}
	tol := c.Tol
	if tol <= 0 {
		tol = 1e-6
	}
	settings := &optimize.Settings{
		GradientThreshold: tol,
		MajorIterations:   c.maxIter(),
		Converger:         &optimize.FunctionConverge{Relative: 1e-14, Iterations: 50},
		Recorder:          recorderFunc(c.step),
	}
	x0 := make([]float64, F*K+K)
	if warm != nil && len(warm.x) == len(x0) {
		copy(x0, warm.x)
	}
	res, err := optimize.Minimize(prob, x0, settings, &optimize.LBFGS{})
	if err != nil && res == nil {
		return nil, nil, fmt.Errorf("learn.Classifier: L-BFGS: %w", err)
	}
	fit := &Fit{F: F, P: K, Theta: append([]float64(nil), res.X[:F*K]...), Bias: append([]float64(nil), res.X[F*K:]...)}
	fit.Stats.Method = "lbfgs"
	fit.Stats.Iterations = res.MajorIterations
	eval(res.X)
	fit.Stats.Residual = floats.Norm(cacheG, math.Inf(1))
	if fit.Stats.Residual > tol {
		fit.Stats.Note = fmt.Sprintf("L-BFGS stopped after %d iterations with a gradient of %.3g, above the tolerance %g", res.MajorIterations, fit.Stats.Residual, tol)
	}
	return fit, &warmStart{x: append([]float64(nil), res.X...)}, nil
}

// recorderFunc counts the major iterations of an optimize run.
type recorderFunc func()

func (r recorderFunc) Init() error { return nil }
func (r recorderFunc) Record(_ *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		r()
	}
	return nil
}
