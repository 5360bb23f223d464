package rff

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/linalg"
	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/model"
	"github.com/rffkit/rff/nystrom"
	"github.com/rffkit/rff/ovk"
)

// defaultCentres is M of a Nyström map when Config.Centres is 0 (at most the training rows).
const defaultCentres = 1024

// resolveMap validates the map settings of c (Map, Centres, Landmarks, the FALKON solver) into s. c is the Config as
// given, before resolve filled in the defaults of random features.
func (s *settings) resolveMap(c Config) error {
	switch orDefault(c.Map, "features") {
	case "features":
		switch {
		case c.Centres != 0 || c.Landmarks != "" || c.LandmarkPoints != nil:
			return errors.New("centres and landmarks belong to Nyström maps (Map \"nystrom\")")
		case c.Solver == "falkon":
			return errors.New("the falkon solver fits Nyström maps (Map \"nystrom\"); random features use cholesky or cg")
		case c.FalkonIter != 0 || c.FalkonTol != 0 || c.FalkonStore:
			return errors.New("FALKON's iterations, tolerance and stored kernel belong to the falkon solver on a Nyström map")
		case c.NystromBasis != "":
			return errors.New("the Nyström basis belongs to Nyström maps (Map \"nystrom\")")
		case c.Exact && (c.Rule != "" || c.Points != 0 || c.Form != "" || c.Fallback != "" || c.TunePoints != 0):
			return errors.New("an exact model uses the kernel itself, not random features: leave Rule, Points, Form, Fallback and TunePoints unset")
		}
		s.Map = "features"
		return nil
	case "nystrom":
	default:
		return fmt.Errorf("map %q: want features or nystrom", c.Map)
	}
	s.nystrom, s.Map = true, "nystrom"
	switch {
	case c.Exact:
		return errors.New("a Nyström map approximates the kernel; an exact model uses every row (not both)")
	case c.OVK != "" && !isDecomposable(c.OVK):
		return fmt.Errorf("the %s kernel needs random features (its feature map depends on the frequencies); Nyström maps serve scalar models and the decomposable kernel", c.OVK)
	case c.OVK != "" && c.Solver != "" && c.Solver != "auto" && c.Solver != "closed-form":
		return fmt.Errorf("a decomposable kernel on Nyström features is solved in closed form, not by %s", c.Solver)
	case c.Task == "hermite":
		return errors.New("hermite models differentiate random features; Nyström maps are not available for them")
	case c.Rule != "" || c.Fallback != "":
		return fmt.Errorf("a Nyström map has landmarks, not the points of a rule (%s)", orDefault(c.Rule, c.Fallback))
	case c.Points != 0:
		return errors.New("the number of points D belongs to random features; a Nyström map takes Centres (M)")
	case c.Form != "":
		return fmt.Errorf("form %s belongs to random features; a Nyström map has one form", c.Form)
	case c.Centres < 0:
		return fmt.Errorf("centres M = %d: want at least 1 (or 0 for the default)", c.Centres)
	case c.FalkonIter < 0 || c.FalkonTol < 0 || math.IsNaN(c.FalkonTol) || c.FalkonTol >= 1:
		return errors.New("FALKON's iterations must be ≥ 0 and its tolerance in [0, 1)")
	}
	var err error
	switch {
	case c.LandmarkPoints != nil:
		if c.Landmarks != "" && c.Landmarks != "given" {
			return fmt.Errorf("landmarks are given (LandmarkPoints); they are not also chosen by %s", c.Landmarks)
		}
		s.Landmarks = "given"
	case c.Landmarks == "given":
		return errors.New("landmarks \"given\" needs the landmarks (Config.LandmarkPoints)")
	default:
		if s.selector, err = nystrom.SelectorByName(orDefault(c.Landmarks, "uniform")); err != nil {
			return err
		}
		s.Landmarks = s.selector.Name()
	}
	if s.basis, err = nystrom.ParseBasis(c.NystromBasis); err != nil {
		return err
	}
	s.NystromBasis = s.basis.String()
	s.Points = defaultCentres
	if c.Centres > 0 {
		s.Points = c.Centres
	}
	switch s.precision {
	case learn.Mixed:
		return errors.New("mixed precision is for random features; a Nyström map accumulates in double precision")
	case learn.Auto:
		s.precision, s.Precision = learn.Double, "double"
	}
	if c.Solver != "falkon" {
		if c.FalkonIter != 0 || c.FalkonTol != 0 || c.FalkonStore {
			return errors.New("FALKON's iterations, tolerance and stored kernel belong to the falkon solver")
		}
		return nil
	}
	s.falkon = true
	switch {
	case s.loss != learn.Squared:
		return fmt.Errorf("FALKON solves the squared loss; the %s loss trains on the Nyström features with the default solver", s.loss)
	case c.Uncertainty:
		return errors.New("uncertainty needs the statistics of the Nyström features; use the default solver (not falkon)")
	case !(c.Lambda > 0) && !c.Tune && c.CV == 0:
		return errors.New("FALKON needs λ > 0")
	}
	return nil
}

// isDecomposable reports whether spec names the decomposable operator-valued kernel.
func isDecomposable(spec string) bool {
	name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), ":")
	return name == "decomposable" || name == "dec"
}

// centres is M for n training rows: the number of given landmarks, Centres, or the default capped at n; Centres
// above n is an error.
func (s *settings) centres(n int) (int, error) {
	if s.givenPre != nil {
		return s.Points, nil
	}
	if s.Centres == 0 {
		return min(s.Points, n), nil
	}
	if s.Centres > n {
		return 0, fmt.Errorf("centres M = %d exceeds the %d training rows; choose M ≤ %d", s.Centres, n, n)
	}
	return s.Centres, nil
}

// newMap builds the map of the fit for the kernel k on the rows of X (n×d): random features with D = points, or a
// Nyström map on min(points, n) landmarks chosen among the rows. Tuning builds its maps here.
func (s *settings) newMap(k kernel.Kernel, X []float64, n, d, points int) (learn.Mapper, error) {
	if s.nystrom {
		return s.nystromMap(k, X, n, d, min(points, n))
	}
	fmap, err := feature.New(k, s.rule, d, points, s.Seed, feature.WithForm(s.form))
	if err != nil {
		return nil, err
	}
	return fmap, nil
}

// nystromMap chooses M landmarks among the rows of X (n×d) and builds the Nyström map of k on them; given landmarks
// (prepareGiven) are used as they are, all of them.
func (s *settings) nystromMap(k kernel.Kernel, X []float64, n, d, M int) (*nystrom.Map, error) {
	if s.givenPre != nil {
		return nystrom.FromLandmarks(k, s.givenPre, len(s.givenPre)/d, d, nystrom.WithMaxBytes(s.budget()), nystrom.WithBasis(s.basis))
	}
	if M > n {
		return nil, fmt.Errorf("centres M = %d exceeds the %d rows the landmarks are chosen from", M, n)
	}
	return nystrom.New(k, s.selector, X, n, d, M, s.Seed, nystrom.WithMaxBytes(s.budget()), nystrom.WithBasis(s.basis))
}

// fitNystrom fits a scalar model on a Nyström map of k on the preprocessed rows X (n×d) against the coded targets Y
// (n×P; nil for hinge and logistic losses, which take the classes cls) and stores map and weights in h and f.
// For a decomposable operator-valued kernel Y is nil and Yovk holds the n×P targets.
func (s *settings) fitNystrom(h *model.Header, f *model.Model, rep *Report, k kernel.Kernel, X []float64, n, d int, Y, Yovk []float64, P int, cls []int) error {
	M, err := s.centres(n)
	if err != nil {
		return err
	}
	tm := time.Now()
	nm, err := s.nystromMap(k, X, n, d, M)
	if err != nil {
		return err
	}
	rep.Phases["landmarks_"+s.NystromBasis] = time.Since(tm).Seconds()
	if s.CV != 0 && !s.Tune { // tuning chose λ already
		tc := time.Now()
		res, err := learn.CrossValidate(nm, X, n, Y, P, s.CV, s.Lambdas, true)
		if err != nil {
			return err
		}
		rep.CV, s.Lambda, h.Lambda = res, res.Best, res.Best
		rep.Phases["cv"] = time.Since(tc).Seconds()
	}
	var fit *learn.Fit
	if s.OVK != "" {
		if fit, err = s.fitDecomposable(h, nm, X, n, Yovk, P, rep); err != nil {
			return err
		}
	} else if s.falkon {
		if fit, err = s.fitFalkon(nm, X, n, Y, P, rep); err != nil {
			return err
		}
	} else {
		var post *learn.Posterior
		if fit, post, err = s.fitFeatures(nm, X, n, Y, P, cls, rep); err != nil {
			return err
		}
		if post != nil {
			f.PosteriorFactor, f.PosteriorZMean, f.NoiseVar = post.Factor, post.ZMean, post.NoiseVar
			h.PosteriorN, h.PosteriorDF = post.N, post.DF
		}
	}
	f.Theta, f.Bias = fit.Theta, fit.Bias
	setNystrom(h, f, nm)
	return nil
}

// fitFalkon solves kernel ridge regression restricted to the map's landmarks with FALKON and returns the solution as
// weights on the map's features: for f(x) = αᵀk_M(x) + b, θ = Normᵀ K_MM α, the coordinates of f's projection onto
// the features' span (θᵀψ(x) = αᵀK_MM Norm Normᵀ k_M(x), and K_MM Norm Normᵀ = K_MM K_MM⁺ is the identity on the
// range of K_MM). Nothing is lost when nothing was dropped. The Cholesky basis keeps only the landmarks its pivoting
// kept, so FALKON's centres are those. The eigen basis keeps every landmark and drops eigen-directions u_j: FALKON's
// α has components along them of the order of 1/λ_j, which θ = Λ Normᵀ α would drop, moving f by
// |α·u_j|·|u_jᵀk_M(x)| — as much as the prediction itself. Such a fit is refused (the Cholesky basis, or the direct
// solver in the eigen basis).
func (s *settings) fitFalkon(nm *nystrom.Map, X []float64, n int, Y []float64, P int, rep *Report) (*learn.Fit, error) {
	M, F, d := nm.Centres(), nm.Features(), nm.Dim()
	if nm.Basis() == nystrom.Eigen && F < M {
		return nil, fmt.Errorf("FALKON solves over all %d landmarks, and the eigen basis kept %d of their %d directions: the saved model would not be FALKON's solution; use the Cholesky basis (the default; --nystrom-basis cholesky), which drops landmarks instead, or the direct solver", M, F, M)
	}
	ts := time.Now()
	maxIter := s.FalkonIter
	if maxIter == 0 {
		maxIter = 100
	}
	bar := progress.New(s.Progress, "falkon passes", maxIter+2)
	last := 0
	fk := nystrom.Falkon{Lambda: s.Lambda, Intercept: true, Tol: s.FalkonTol, MaxIter: s.FalkonIter, MaxBytes: s.budget(), StoreKernel: s.FalkonStore,
		Progress: func(p int) { bar.Add(p - last); last = p }}
	ff, err := fk.Fit(nm.Kernel(), nm.Landmarks(), M, d, X, n, Y, P)
	bar.Done()
	note := ""
	if errors.Is(err, nystrom.ErrNotConverged) && ff != nil {
		note = fmt.Sprintf("FALKON stopped at %d iterations with relative residual %.3g, above the tolerance", ff.Iterations, ff.Residual)
	} else if err != nil {
		return nil, err
	}
	theta, err := falkonTheta(nm, ff.Alpha, P)
	if err != nil {
		return nil, err
	}
	rep.Phases["falkon"] = time.Since(ts).Seconds()
	rep.Solve = &learn.SolveStats{Method: "falkon", Note: note, Iterations: ff.Iterations, Residual: ff.Residual, Seconds: ff.Seconds}
	return &learn.Fit{F: F, P: P, Theta: theta, Bias: ff.Bias, Lambda: s.Lambda, Intercept: true, Stats: *rep.Solve}, nil
}

// falkonTheta returns θ = Normᵀ K_MM α (F×P) for FALKON's coefficients α (M×P) on the map's landmarks: Λ Normᵀα in
// the eigen basis (Normᵀ K_MM = Λ Normᵀ there), and Normᵀ(K_MM α) in the Cholesky basis.
func falkonTheta(nm *nystrom.Map, alpha []float64, P int) ([]float64, error) {
	M, F, d := nm.Centres(), nm.Features(), nm.Dim()
	p := nm.Params()
	a := alpha
	if nm.Basis() == nystrom.Cholesky {
		K := make([]float64, M*M)
		if err := kernel.Gram(K, nm.Kernel(), p.Landmarks, M, p.Landmarks, M, d); err != nil {
			return nil, err
		}
		a = make([]float64, M*P)
		linalg.Gemm(false, false, M, P, M, 1, K, M, alpha, P, 0, a, P)
	}
	theta := make([]float64, F*P)
	linalg.Gemm(true, false, F, P, M, 1, p.Norm, F, a, P, 0, theta, P)
	if nm.Basis() == nystrom.Eigen {
		for c := range F {
			for j := range P {
				theta[c*P+j] *= p.Eigenvalues[c]
			}
		}
	}
	return theta, nil
}

// setNystrom stores the explicit parameters of a Nyström map and its probe features in the file.
func setNystrom(h *model.Header, f *model.Model, nm *nystrom.Map) {
	p := nm.Params()
	h.Rule, h.PointsKind, h.Form = model.NystromKind, model.NystromKind, ""
	h.Points, h.Features, h.Landmarks, h.Threshold = p.Centres, p.Features, p.Selection, p.Threshold
	f.Points = map[string][]float64{"landmarks": p.Landmarks, "norm": p.Norm}
	h.Basis = ""
	if nm.Basis() == nystrom.Cholesky {
		h.Basis, f.Points["pivots"] = p.Basis, p.Pivots
	} else {
		f.Points["eigenvalues"] = p.Eigenvalues
	}
	f.Probe = make([]float64, p.Features)
	nm.TransformBlock(f.Probe, model.ProbeInput(p.Dim), 1, nil)
}

// storeMap stores the map of a scalar model on features, random or Nyström.
func storeMap(h *model.Header, f *model.Model, m learn.Mapper, form string) {
	switch m := m.(type) {
	case *nystrom.Map:
		setNystrom(h, f, m)
	case *feature.Map:
		setMap(h, f, m, form)
	}
}

// buildNystrom rebuilds the Nyström map of a model file for kernel k and checks it against the stored probe
// features. The same code on the same linear-algebra backend computes the same bits; another backend may sum the
// products of kernel.Gram and of normᵀk_M(x) in another order, which moves feature c by at most about
// (M + d)·2⁻⁵²·Σ_i |norm_ic|·max_i |k_i| for inputs of moderate size; the check allows 1e-9·Σ_i |norm_ic|·max_i |k_i|
// (room for ill-conditioned distances), while another kernel or bandwidth, or damaged arrays, move the features by
// many orders of magnitude more.
func (m *Model) buildNystrom(k kernel.Kernel) error {
	f, h := m.file, m.file.Header
	p := nystrom.Params{Selection: h.Landmarks, Seed: h.Seed, Threshold: h.Threshold, Basis: h.Basis, Centres: h.Points, Dim: h.MapDim(),
		Features: h.Features, Landmarks: f.Points["landmarks"], Norm: f.Points["norm"], Eigenvalues: f.Points["eigenvalues"],
		Pivots: f.Points["pivots"], Share: true} // the file's arrays are never modified: the map keeps them
	nm, err := nystrom.FromParams(k, p)
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	x := model.ProbeInput(h.MapDim())
	probe := make([]float64, h.Features)
	nm.TransformBlock(probe, x, 1, nil)
	kx := make([]float64, h.Points)
	if err := kernel.Gram(kx, k, x, 1, p.Landmarks, h.Points, h.MapDim()); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	var kmax float64
	for _, v := range kx {
		kmax = math.Max(kmax, math.Abs(v))
	}
	M, F := h.Points, h.Features
	for c, v := range probe {
		var s float64
		for i := range M {
			s += math.Abs(p.Norm[i*F+c])
		}
		if !(math.Abs(v-f.Probe[c]) <= 1e-9*s*kmax+4*0x1p-53*math.Abs(v)) {
			return fmt.Errorf("model: the Nyström map rebuilt from the file does not reproduce its probe features; the file is damaged or was written for another kernel (%s, σ = %g)", h.Kernel, h.Sigma)
		}
	}
	m.nmap = nm.ForPrediction()
	m.setFit()
	return nil
}

// setFit sets the linear model (and the posterior) on the features of a scalar model file.
func (m *Model) setFit() {
	f, h := m.file, m.file.Header
	m.fit = &learn.Fit{F: h.Features, P: h.Outputs, Theta: f.Theta, Bias: f.Bias, Lambda: h.Lambda, Intercept: h.Intercept}
	if f.PosteriorFactor != nil {
		m.post = &learn.Posterior{Fit: m.fit, N: h.PosteriorN, DF: h.PosteriorDF, NoiseVar: f.NoiseVar,
			ZMean: f.PosteriorZMean, Factor: f.PosteriorFactor}
	}
}

// mapper is the feature map of a scalar model on features: random or Nyström.
func (m *Model) mapper() learn.Mapper {
	if m.nmap != nil {
		return m.nmap
	}
	return m.fmap
}

// prepareGiven checks the given landmarks (LandmarkPoints, LandmarkNames) against the model's raw input columns
// (names, or nil; d of them) and maps them through the fitted preprocessing sc into s.givenPre; M = s.Points is
// their number. Nothing happens without given landmarks.
func (s *settings) prepareGiven(sc *dataset.Scaler, names []string, d int) error {
	L := s.LandmarkPoints
	if L == nil {
		return nil
	}
	if s.LandmarkNames != nil {
		if len(s.LandmarkNames) != d || (names != nil && !slices.Equal(s.LandmarkNames, names)) {
			return fmt.Errorf("the given landmarks have the columns %v, the model's inputs are %v (the training columns without the targets, in their order)",
				s.LandmarkNames, orNames(names, d))
		}
	}
	if d < 1 || len(L) == 0 || len(L)%d != 0 {
		return fmt.Errorf("%d landmark values do not make rows of the model's %d input columns", len(L), d)
	}
	M := len(L) / d
	if err := blocks.CheckX("landmarks", L, M, d); err != nil {
		return err
	}
	if s.Centres != 0 && s.Centres != M {
		return fmt.Errorf("centres M = %d, but %d landmarks are given", s.Centres, M)
	}
	s.givenPre, s.Points = sc.Transform(L, M, d), M
	return nil
}

// orNames is names, or x1 … xd when there are none.
func orNames(names []string, d int) []string {
	if names != nil {
		return names
	}
	out := make([]string, d)
	for j := range out {
		out[j] = fmt.Sprintf("x%d", j+1)
	}
	return out
}

// landmarkPool returns the reservoir a streamed fit chooses a Nyström map's landmarks from: a uniform sample of the
// file's rows (Vitter's algorithm R with its own random stream), of M rows for uniform landmarks (which are then
// exactly a uniform sample of M rows) and of max(4M, 2000) rows for the selectors that weigh rows against each
// other; nil for random features.
func (s *settings) landmarkPool(d int) *reservoir {
	if !s.nystrom || s.LandmarkPoints != nil {
		return nil
	}
	limit := s.Points
	if s.Landmarks != "uniform" {
		limit = max(4*s.Points, kernel.DefaultMedianRows)
	}
	return &reservoir{d: d, limit: limit, rng: rand.New(rand.NewPCG(s.Seed, 0x6e79_7374_726d))}
}

// streamMapper builds a streamed fit's map: random features, or a Nyström map on landmarks chosen among the pool
// (preprocessed rows).
func (s *settings) streamMapper(k kernel.Kernel, pool *reservoir, d int) (learn.Mapper, error) {
	if !s.nystrom {
		return s.newMap(k, nil, 0, d, s.Points)
	}
	if s.givenPre != nil {
		return s.nystromMap(k, nil, 0, d, s.Points)
	}
	M, err := s.centres(pool.seen)
	if err != nil {
		return nil, err
	}
	return s.nystromMap(k, pool.rows, pool.len(), d, M)
}

// nystromNeed is the memory of a Nyström map's construction on M landmarks of d inputs and, with FALKON, of its fit
// of N rows into P outputs: K_MM and the normalization, and in the eigen basis the eigenvectors (2M² or 3M²), the
// landmarks (M·d), and FALKON's two M×M Cholesky factors, a 32 MiB block of K_NM (all N×M of it with FalkonStore)
// and a few M×P vectors.
func (s *settings) nystromNeed(M, d, P, N float64) int64 {
	arrays := 2.0
	if s.basis == nystrom.Eigen {
		arrays = 3
	}
	need := bytesOf(arrays, M, M) + bytesOf(M, d)
	if s.falkon {
		need += bytesOf(2, M, M) + bytesOf(8, M, P)
		if s.FalkonStore {
			need += bytesOf(N, M)
		} else {
			need += 32 << 20
		}
	}
	return need
}

// fitDecomposable fits vector-valued ridge regression with the decomposable kernel K(x, z) = k(x, z)·A on Nyström
// features ψ (docs/conventions.md §13.3): f(x) = Wᵀψ(x) + b with W (F×p) minimising
// (1/N)Σ‖Wᵀψ_i + b − y_i‖² + λ tr(W A⁺ Wᵀ) over W with rows in the range of A. Stationarity is
// G W A + NλW = C A with G and C the centred ΨᵀΨ and ΨᵀY; with G = UΛUᵀ and A = VMVᵀ,
// W = U[(UᵀCV)_ij μ_j/(λ_i μ_j + Nλ)]Vᵀ (0 where μ_j = 0), and b = ȳ − Wᵀψ̄. The Kronecker product is never formed.
// The model is stored as a Nyström map with p outputs and weights W, with the kernel's name and A in the header.
func (s *settings) fitDecomposable(h *model.Header, nm *nystrom.Map, X []float64, n int, Y []float64, p int, rep *Report) (*learn.Fit, error) {
	if !(s.Lambda > 0) {
		return nil, errors.New("a decomposable kernel on Nyström features needs λ > 0")
	}
	A, err := outputMatrix(s.A, s.AMatrix, Y, n, p)
	if err != nil {
		return nil, err
	}
	kern, err := ovk.Parse("decomposable", 1, A) // checks that A is symmetric positive semi-definite
	if err != nil {
		return nil, err
	}
	tg := time.Now()
	st, err := learn.Accumulate(nm, X, n, Y, p)
	if err != nil {
		return nil, err
	}
	rep.Phases["features_gram"] = time.Since(tg).Seconds()
	ts := time.Now()
	F, N := st.F, float64(st.N)
	G := make([]float64, F*F)
	for i := range F {
		for j := i; j < F; j++ {
			v := st.ZtZ[i*F+j] - st.SumZ[i]*st.SumZ[j]/N
			G[i*F+j], G[j*F+i] = v, v
		}
	}
	C := make([]float64, F*p)
	for i := range F {
		for j := range p {
			C[i*p+j] = st.ZtY[i*p+j] - st.SumZ[i]*st.SumY[j]/N
		}
	}
	Am := make([]float64, p*p)
	for i := range p {
		for j := range p {
			Am[i*p+j] = A.At(i, j)
		}
	}
	lam, U, err := linalg.EigenSym(F, G)
	if err != nil {
		return nil, fmt.Errorf("eigendecomposition of the features' Gram matrix: %w", err)
	}
	mu, V, err := linalg.EigenSym(p, Am)
	if err != nil {
		return nil, fmt.Errorf("eigendecomposition of the output matrix A: %w", err)
	}
	T := make([]float64, F*p) // UᵀC
	linalg.Gemm(true, false, F, p, F, 1, U, F, C, p, 0, T, p)
	R := make([]float64, F*p) // UᵀCV
	linalg.Gemm(false, false, F, p, p, 1, T, p, V, p, 0, R, p)
	mmax := 0.0
	for _, m := range mu {
		mmax = max(mmax, m)
	}
	for i := range F {
		li := max(lam[i], 0)
		for j := range p {
			if mu[j] <= 1e-12*mmax { // a null direction of A: f has no component there
				R[i*p+j] = 0
				continue
			}
			R[i*p+j] *= mu[j] / (li*mu[j] + N*s.Lambda)
		}
	}
	linalg.Gemm(false, false, F, p, F, 1, U, F, R, p, 0, T, p) // U W'
	W := make([]float64, F*p)
	linalg.Gemm(false, true, F, p, p, 1, T, p, V, p, 0, W, p) // U W' Vᵀ
	bias := make([]float64, p)
	for j := range p {
		b := st.SumY[j] / N
		for i := range F {
			b -= W[i*p+j] * st.SumZ[i] / N
		}
		bias[j] = b
	}
	rep.Phases["solve"] = time.Since(ts).Seconds()
	rep.Solve = &learn.SolveStats{Method: "closed-form", Seconds: time.Since(ts).Seconds()}
	h.OVK, h.A = kern.Name(), Am
	return &learn.Fit{F: F, P: p, Theta: W, Bias: bias, Lambda: s.Lambda, Intercept: true, Stats: *rep.Solve}, nil
}
