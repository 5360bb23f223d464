package rff

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/feature"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/learn"
	"github.com/rffkit/rff/nystrom"
	"github.com/rffkit/rff/ovk"
	"github.com/rffkit/rff/rule"
	"github.com/rffkit/rff/vector"
)

// Config is what to fit. The zero value of a string or count field means its documented default; numbers that
// have a meaningful zero (Lambda, Seed) are taken as given.
type Config struct {
	// Task is "regression" (the default), "classification" (one-hot or simplex-coded targets, or a hinge or
	// logistic loss) or "hermite" (regression from observed values and partial derivatives: FitHermite).
	Task string
	// Kernel is a kernel name of package kernel (default "gaussian"); vector-valued models (OVK) use a Gaussian.
	Kernel string
	// Sigma is the bandwidth σ of a shift-invariant kernel in the preprocessed coordinates. 0 means the median
	// heuristic: the median distance between up to 2000 training rows sampled with the seed (kernel.MedianSigma,
	// docs/conventions.md §12.1), and must be 0 with Tune (which chooses it; Sigmas restricts its grid). Arc-cosine
	// kernels have none.
	Sigma float64
	// Tune chooses σ and λ together from the training data: for each σ of a log grid around the median heuristic (or
	// Sigmas), one pass accumulates the ridge statistics, and the whole λ path (Lambdas, or a default grid) is scored
	// by Select — "gcv" (generalized cross-validation, the default for regression), "evidence" (the Bayesian
	// evidence) or "cv" (CV-fold cross-validation from fold statistics, the default for classification, which it
	// scores by held-out accuracy; hinge and logistic losses only by cv, refitting every fold for each λ of a shorter
	// default grid). TuneRows > 0 tunes on that many rows (the first ones) and fits the chosen σ and λ on all rows.
	// Decomposable vector-valued models are tuned on their outputs decoupled along the eigenvectors of A, curl-free,
	// divergence-free and Helmholtz models by gcv or evidence on their assembled normal equations, hermite models by
	// gcv or evidence on their stacked value and derivative rows, exact models by gcv (their default, also for
	// classification) or evidence from an eigendecomposition of the N×N kernel matrix per σ (docs/conventions.md §12.5). Every σ scored
	// costs a pass over the rows and an eigendecomposition of the F×F Gram matrix (O(N·F² + F³)); about eight are
	// scored, with at most 512 points (TunePoints), and the model is fitted with the chosen pair at its D (solving the
	// statistics of the chosen σ when they were accumulated at that D on all rows).
	Tune bool
	// Select is Tune's criterion: "gcv", "evidence" or "cv" ("" for the default of the task, above).
	Select   string
	Sigmas   []float64
	TuneRows int
	// TunePoints is D of the maps that score σ and λ (default: D, at most 512).
	TunePoints int
	// Map is the feature map: "features" (the default: random or quadrature features drawn by Rule) or "nystrom"
	// (Nyström features ψ(x) = Normᵀk_M(x), ⟨ψ(x), ψ(y)⟩ = k_M(x)ᵀK_MM⁻¹k_M(y), on Centres landmarks chosen by
	// Landmarks, Williams & Seeger 2001; docs/conventions.md §13.1). A Nyström map takes no
	// Rule, Points or Form.
	Map string
	// Centres is the number of landmarks M of a Nyström map (default: 1024, at most the training rows); the map has
	// M' ≤ M features: the landmarks kept by a pivoted Cholesky factorization of K_MM, or the eigen-directions of
	// K_MM, above a relative threshold of 1e-12 (NystromBasis).
	Centres int
	// NystromBasis is the basis of a Nyström map's features: "cholesky" (the default: a Cholesky factorization of
	// K_MM with complete pivoting, which drops landmarks the others already span) or "eigen" (the eigendecomposition
	// of K_MM, which drops eigen-directions). Every ridge prediction is the same in both when nothing is dropped;
	// the Cholesky basis is cheaper to build and to evaluate.
	NystromBasis string
	// Landmarks chooses them: "uniform" (the default), "kmeans++" or "leverage" (ridge leverage scores by recursive
	// sampling, Musco & Musco 2017), or "given" with LandmarkPoints.
	Landmarks string
	// LandmarkPoints are landmarks given by the caller (Landmarks "given", implied): rows of the model's input
	// columns — the training data's columns without the targets, in their order — row-major, in the input
	// coordinates: they go through the fitted preprocessing like the rows. M is their number (Centres must be 0 or
	// M). LandmarkNames, when not nil, names their columns, which must then be the inputs' names.
	LandmarkPoints []float64
	LandmarkNames  []string
	// FalkonIter and FalkonTol bound FALKON (Solver "falkon"): the conjugate-gradient iterations (default 100) and the
	// relative residual of the preconditioned system at which it stops (default 1e-7).
	FalkonIter int
	FalkonTol  float64
	// FalkonStore keeps the N×M kernel matrix between the rows and the centres from FALKON's first pass (8·N·M
	// bytes, within the memory budget) instead of recomputing it on every iteration; the fit is the same.
	FalkonStore bool
	// Rule draws the points (package rule names; default "sr-butterfly").
	Rule string
	// Points is the number of points D (default 1024). Cos/sin maps have 2D features; SR rules round D up to whole
	// rules of d+1 points (docs/conventions.md §3.6).
	Points int
	// Form is "cossin" (the default: [√w cos ωᵀx, √w sin ωᵀx], 2D columns) or "cosphase" (√(2w) cos(ωᵀx + b), D
	// columns).
	Form string
	// Lambda is the ridge penalty λ ≥ 0 of (1/N)Σ‖f(x_i) − y_i‖² + λ‖θ‖², taken as given (0 is no penalty). Tune and
	// CV choose λ from Lambdas: Lambda must then be 0; Uncertainty needs λ > 0.
	Lambda float64
	// CV, when ≥ 2, chooses λ among Lambdas, which it needs (there is no default grid without Tune), by CV-fold
	// cross-validation (squared loss on scalar features). With Tune and Select "cv", CV is the number of folds
	// (0: 5).
	CV      int
	Lambdas []float64
	// Loss is the classification loss: "squared" (the default: ridge on coded targets), "hinge", "squared-hinge"
	// (linear SVM) or "logistic".
	Loss string
	// MaxIter bounds the iterations of the hinge and squared-hinge losses (epochs of dual coordinate descent) and of
	// the logistic loss (L-BFGS iterations); 0 means 1000. A fit stopped there is kept, and its Report's Solve.Note
	// says so.
	MaxIter int
	// Encoding codes classes for the squared loss: "onehot" (the default) or "simplex" (k−1 outputs).
	Encoding string
	// MaxClasses bounds the number of classes of a classifier. 0 means at most 1000 classes and at most half as many
	// as training rows: a target with more distinct values is almost surely continuous (a regression target).
	MaxClasses int
	// Solver is "cholesky" (the default) or "cg" for scalar ridge; for vector-valued models "auto" (the default),
	// "closed-form", "cholesky", "cg" or "lbfgs"; for Nyström maps also "falkon" (kernel ridge regression restricted to
	// the centres, solved by preconditioned conjugate gradients without forming ZᵀZ: Rudi, Carratino & Rosasco 2017).
	Solver string
	// Precision is the arithmetic of ZᵀZ for the squared loss on features held in memory: "double" (the default),
	// "mixed" or "auto" (learn.Precision). Mixed is refused with Uncertainty, whose posterior factor is of the
	// double-precision ZᵀZ (auto then means double).
	Precision string
	// Exact fits exact kernel ridge regression on the N×N Gram matrix instead of features; it takes no Rule, Points,
	// Form, Fallback or TunePoints.
	Exact bool
	// Preprocess is a comma list of dataset steps fitted on the training inputs and stored in the model
	// ("standardize", "minmax", "maxscale", "isotropic", "none"). The default is "standardize", and "isotropic" for
	// curl-free, divergence-free and Helmholtz kernels, which accept only steps that scale every input by one common
	// factor: then the fitted field is curl-/divergence-free in the raw coordinates too. A last step "pca:K" or
	// "pca-whiten:K" projects the preprocessed inputs onto their K leading principal components (K an integer, or a
	// fraction such as 0.99 of the variance to keep; dataset.Step.PCA): the map then sees K inputs while the model
	// still reads the raw named columns. Field kernels and hermite models refuse it.
	Preprocess string
	// OVK selects vector-valued regression with an operator-valued kernel: "decomposable", "curl-free", "div-free"
	// or "helmholtz:w" (docs/conventions.md §4). Targets names the output columns of the data, which must be
	// loaded with no target column.
	OVK     string
	Targets []string
	// A is the output matrix of a decomposable kernel: "identity" (the default), "covariance" (of the training
	// targets) or given as AMatrix (p×p, row-major, symmetric positive semi-definite).
	A       string
	AMatrix []float64
	// Seed seeds the points (and the SVM's visiting order): the same seed gives the same model bytes.
	Seed uint64
	// Uncertainty keeps the posterior of Bayesian linear regression on the features in the model (regression with
	// the squared loss on scalar features): Model.PredictStd gives predictive standard deviations and Model.Sample
	// joint posterior samples (docs/conventions.md §12.4). It stores the F×F Cholesky factor, and needs λ > 0
	// (given, or chosen by Tune or CV) and double precision.
	Uncertainty bool
	// MaxMemory is the memory budget of the fit in bytes: a fit whose estimated peak exceeds it is refused before
	// anything large is allocated (BudgetError). 0 means half of the memory available to the process
	// (dataset.DefaultMaxBytes); a negative value means no limit but the machine's memory and swap, which also caps
	// a larger budget (dataset.CapBudget).
	MaxMemory int64
	// Fallback is the rule used instead of an SR rule whose rounding to whole rules of d+1 points would more than
	// double D (e.g. D = 64 in dimension 20000); without one such a fit is refused.
	Fallback string
	// Progress, when not nil, receives progress bars while it is a terminal.
	Progress io.Writer
}

// settings is a validated Config with its defaults filled in.
type settings struct {
	Config
	rule      rule.Rule
	form      feature.Form
	loss      learn.Loss
	solver    learn.Solver
	ovkSolver vector.Solver
	precision learn.Precision
	steps     []dataset.Step
	field     bool // curl-free, divergence-free or Helmholtz
	nystrom   bool // a Nyström map (Map "nystrom"); Points is then M
	falkon    bool // solved by FALKON
	selector  nystrom.Selector
	basis     nystrom.Basis
	givenPre  []float64    // LandmarkPoints after the preprocessing (prepareGiven), or nil
	tuned     *learn.Stats // the statistics tuning accumulated for the chosen σ at the fit's D on all rows, or nil
}

// resolve validates c and fills in the defaults.
func (c Config) resolve() (*settings, error) {
	s := &settings{Config: c}
	def := func(p *string, v string) {
		if strings.TrimSpace(*p) == "" {
			*p = v
		}
	}
	def(&s.Task, "regression")
	def(&s.Kernel, "gaussian")
	def(&s.Rule, "sr-butterfly")
	def(&s.Form, "cossin")
	def(&s.Loss, "squared")
	def(&s.Encoding, "onehot")
	if s.Points == 0 {
		s.Points = 1024
	}
	var err error
	switch {
	case s.Task != "regression" && s.Task != "classification" && s.Task != "hermite":
		return nil, fmt.Errorf("task %q: want regression, classification or hermite", s.Task)
	case s.Points < 1:
		return nil, fmt.Errorf("points D = %d: want at least 1", s.Points)
	case !(s.Lambda >= 0) || math.IsInf(s.Lambda, 0):
		return nil, fmt.Errorf("λ = %v: want a finite λ ≥ 0 (Config.Lambda)", s.Lambda)
	case s.Sigma < 0 || math.IsNaN(s.Sigma) || math.IsInf(s.Sigma, 0):
		return nil, fmt.Errorf("σ = %v: want a positive bandwidth (or 0 for the default)", s.Sigma)
	case s.Encoding != "onehot" && s.Encoding != "simplex":
		return nil, fmt.Errorf("encoding %q: want onehot or simplex", s.Encoding)
	case s.MaxClasses < 0 || s.MaxClasses == 1:
		return nil, fmt.Errorf("max classes = %d: want 0 (at most 1000, and half the training rows) or a limit ≥ 2, since a classifier needs two classes (Config.MaxClasses)", s.MaxClasses)
	}
	if _, err := kernel.New(s.Kernel, 1); err != nil {
		return nil, err
	}
	if s.rule, err = rule.Parse(s.Rule); err != nil {
		return nil, err
	}
	s.Rule = s.rule.Name()
	switch s.Form {
	case "cossin":
	case "cosphase":
		s.form = feature.CosPhase
	default:
		return nil, fmt.Errorf("form %q: want cossin or cosphase", s.Form)
	}
	if s.loss, err = learn.ParseLoss(s.Loss); err != nil {
		return nil, err
	}
	s.Loss = s.loss.String()
	if s.MaxIter < 0 {
		return nil, fmt.Errorf("Config.MaxIter must be ≥ 0 (0: 1000 iterations), got %d", s.MaxIter)
	}
	if s.MaxIter != 0 && s.loss == learn.Squared {
		return nil, errors.New("Config.MaxIter bounds the iterations of the hinge, squared-hinge and logistic classifiers, not the solvers of the squared loss")
	}
	if s.loss != learn.Squared {
		switch {
		case s.Task != "classification":
			return nil, fmt.Errorf("the %s loss needs the classification task", s.loss)
		case s.Exact:
			return nil, fmt.Errorf("the %s loss is not available for exact models (they use the squared loss)", s.loss)
		case s.CV != 0 && !s.Tune:
			return nil, fmt.Errorf("cross-validation alone selects λ for the squared loss only; give λ with the %s loss (Config.Lambda), or tune σ and λ, cross-validated by refits (Config.Tune)", s.loss)
		case s.Encoding != "onehot":
			how := "trains one-vs-rest"
			if s.loss == learn.Logistic {
				how = "scores every class in one multinomial model"
			}
			return nil, fmt.Errorf("the %s encoding is for the squared loss; the %s loss %s", s.Encoding, s.loss, how)
		case !(s.Lambda > 0) && !s.Tune:
			return nil, fmt.Errorf("the %s loss needs λ > 0", s.loss)
		}
	}
	if s.Tune {
		// Classifiers are tuned on held-out accuracy by default (docs/conventions.md §12.5), and so is a given CV.
		def := "gcv"
		if (s.Task == "classification" && !s.Exact) || s.CV != 0 {
			def = "cv"
		}
		switch orDefault(s.Select, def) {
		case "gcv", "evidence", "cv":
			s.Select = orDefault(s.Select, def)
		default:
			return nil, fmt.Errorf("selection criterion %q: want gcv, evidence or cv", s.Select)
		}
		field := false
		if s.OVK != "" {
			if k, err := ovk.Parse(s.OVK, 1, nil); err == nil && k.Kind() != ovk.Decomposable {
				field = true
			}
		}
		switch {
		case s.Exact && s.OVK != "":
			return nil, errors.New("tuning exact vector-valued models is not available: tune σ and λ on features (without exact), then fit the exact model with them")
		case s.Exact && s.Select == "cv":
			return nil, errors.New("exact models are tuned by gcv or evidence (closed forms from one eigendecomposition of the N×N kernel matrix per σ), not cv")
		case s.Task == "hermite" && s.Select == "cv":
			return nil, errors.New("hermite models are tuned by gcv or evidence (closed forms on the stacked value and derivative rows), not cv")
		case field && s.Select == "cv":
			return nil, fmt.Errorf("the %s kernel is tuned by gcv or evidence, not cv: its normal equations couple the outputs through B(ω), and held-out errors would need the assembled system of every fold", s.OVK)
		case s.loss != learn.Squared && s.Select != "cv":
			return nil, fmt.Errorf("the %s loss is tuned by cross-validation (select cv): GCV and the evidence are criteria of the squared loss", s.loss)
		case s.CV != 0 && s.Select != "cv":
			return nil, errors.New("cross-validation folds are for the cv criterion")
		case s.CV < 0 || s.CV == 1:
			return nil, fmt.Errorf("cross-validation needs at least 2 folds, got %d", s.CV)
		case s.TuneRows < 0:
			return nil, fmt.Errorf("tune rows = %d: want ≥ 0", s.TuneRows)
		case s.TunePoints < 0:
			return nil, fmt.Errorf("tune points = %d: want ≥ 0 (0: D, at most 512)", s.TunePoints)
		}
		if s.Select == "cv" && s.CV == 0 {
			s.CV = 5
		}
		for _, v := range s.Sigmas {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("σ grid value %v: want positive bandwidths (Config.Sigmas)", v)
			}
			if !isScaleFree(s.Kernel) {
				if _, err := kernel.New(s.Kernel, v); err != nil {
					return nil, fmt.Errorf("σ grid value %v: %w (Config.Sigmas)", v, err)
				}
			}
		}
		if len(s.Lambdas) == 0 {
			s.Lambdas = learn.LogGrid(1e-10, 1e-1, 19)
			if s.loss != learn.Squared {
				// Every λ of a hinge or logistic loss costs CV refits: a shorter grid, one point per decade.
				s.Lambdas = learn.LogGrid(1e-7, 1e-2, 6)
			}
		}
		for _, v := range s.Lambdas {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("λ grid value %v: want positive penalties", v)
			}
		}
	}
	switch { // a σ or λ that tuning or cross-validation would replace: refused rather than silently overridden
	case s.Tune && s.Sigma != 0:
		return nil, errors.New("Sigma is chosen by Tune: leave it 0, or give Sigmas to tune λ at the bandwidths given")
	case (s.Tune || s.CV != 0) && s.Lambda != 0:
		return nil, errors.New("Lambda is chosen by Tune and CV: leave it 0, or give Lambdas (one value scores only it)")
	case s.Tune && len(s.Sigmas) > 0 && isScaleFree(s.Kernel):
		return nil, fmt.Errorf("Sigmas are bandwidths; the %s kernel has none (tuning chooses λ alone)", s.Kernel)
	case s.Sigma != 0 && isScaleFree(s.Kernel):
		return nil, fmt.Errorf("Config.Sigma is a bandwidth; the %s kernel has none: leave it 0", s.Kernel)
	}
	if !s.Tune { // settings of tuning alone would be ignored: refused rather than fit something else than asked
		switch {
		case len(s.Sigmas) > 0 || s.Select != "" || s.TuneRows != 0 || s.TunePoints != 0:
			return nil, errors.New("Sigmas, Select, TuneRows and TunePoints are settings of Tune, which is off")
		case len(s.Lambdas) > 0 && s.CV == 0:
			return nil, errors.New("Lambdas is the λ grid of CV and Tune, which are off: give λ as Lambda")
		}
	}
	switch {
	case s.Encoding == "simplex" && s.Task != "classification":
		return nil, fmt.Errorf("the simplex encoding codes the classes of the classification task, not of %s", s.Task)
	case s.MaxClasses != 0 && s.Task != "classification":
		return nil, fmt.Errorf("MaxClasses bounds the classes of the classification task, not of %s", s.Task)
	case s.Form == "cosphase" && (s.OVK != "" || s.Exact || strings.HasPrefix(s.Kernel, "arccos")):
		return nil, errors.New("the cos+phase form is a form of scalar random features of a shift-invariant kernel (not of exact or vector-valued models, nor of the arc-cosine kernels' pointwise features)")
	case s.Fallback != "":
		if _, err := rule.Parse(s.Fallback); err != nil {
			return nil, fmt.Errorf("fallback rule: %w", err)
		}
	}
	if s.precision, err = learn.ParsePrecision(orDefault(s.Precision, "double")); err != nil {
		return nil, err
	}
	if s.CV != 0 && !s.Tune {
		switch {
		case s.CV < 2:
			return nil, fmt.Errorf("cross-validation needs at least 2 folds, got %d", s.CV)
		case s.Exact || s.OVK != "" || s.Task == "hermite":
			return nil, fmt.Errorf("cross-validation is available for scalar models on features (not exact, vector-valued or hermite)")
		case len(s.Lambdas) == 0:
			return nil, fmt.Errorf("cross-validation needs a λ grid (Lambdas)")
		}
	}
	switch {
	case s.Task == "hermite" && s.Exact:
		return nil, errors.New("hermite models fit random features, not the exact kernel: leave Config.Exact off")
	case s.Task == "hermite" && !(s.Lambda > 0) && !s.Tune:
		return nil, errors.New("hermite models need λ > 0 (Config.Lambda), or Config.Tune to choose it")
	}
	if err := s.resolveMap(c); err != nil {
		return nil, err
	}
	if s.OVK != "" {
		if err := s.resolveOVK(); err != nil {
			return nil, err
		}
	} else {
		if len(s.Targets) > 0 || s.A != "" || s.AMatrix != nil {
			return nil, fmt.Errorf("targets and the output matrix A belong to vector-valued (OVK) models")
		}
		switch orDefault(s.Solver, "cholesky") {
		case "cholesky", "falkon": // falkon: checked by resolveMap
			s.solver = learn.Cholesky
		case "cg":
			s.solver = learn.CG
		default:
			return nil, fmt.Errorf("solver %q: want cholesky or cg (or falkon with Nyström features)", s.Solver)
		}
	}
	if s.Uncertainty && (s.Task != "regression" || s.Exact || s.OVK != "" || s.loss != learn.Squared) {
		return nil, errors.New("uncertainty is for regression with the squared loss on scalar random or Nyström features (not classification, exact or vector-valued models)")
	}
	if s.Uncertainty && !(s.Lambda > 0) && !s.Tune && s.CV == 0 {
		return nil, errors.New("uncertainty needs λ > 0: the weights' prior variance is σ²/(Nλ) (give Lambda, or choose it with Tune or CV)")
	}
	if s.precision == learn.Mixed && (s.Exact || s.OVK != "" || s.Task == "hermite" || s.loss != learn.Squared || s.solver != learn.Cholesky || s.Uncertainty) {
		return nil, fmt.Errorf("mixed precision is for the squared loss on random features with the Cholesky solver, without uncertainty (not exact, vector-valued or hermite models; the posterior's Cholesky factor is of the double-precision ZᵀZ)")
	}
	pre := s.Preprocess
	if strings.TrimSpace(pre) == "" {
		pre = "standardize"
		if s.field {
			pre = "isotropic"
		}
	}
	if s.steps, err = dataset.ParseSteps(strings.ReplaceAll(pre, "paper", string(dataset.StepMaxScale))); err != nil {
		return nil, err
	}
	if s.field {
		for _, st := range s.steps {
			if st == dataset.StepStandardize || st == dataset.StepMinMax {
				return nil, fmt.Errorf("preprocessing %q scales each input column by its own factor, which breaks the curl-free/divergence-free structure of the %s kernel in the raw coordinates; use isotropic (the default), maxscale or none", st, s.OVK)
			}
		}
	}
	for _, st := range s.steps {
		switch {
		case !st.PCA():
		case s.field:
			return nil, fmt.Errorf("preprocessing %q projects the inputs onto principal components, so the %s kernel would model a vector field on the components, not on the input space; drop the pca step", st, s.OVK)
		case s.Task == "hermite":
			return nil, fmt.Errorf("preprocessing %q projects the inputs onto principal components; a hermite model learns from derivatives in the raw coordinates, which do not determine those along the components; drop the pca step", st)
		}
	}
	return s, nil
}

func (s *settings) resolveOVK() error {
	k, err := ovk.Parse(s.OVK, 1, nil)
	if err != nil && !strings.HasPrefix(strings.ToLower(s.OVK), "dec") {
		return err
	}
	switch {
	case len(s.Targets) == 0:
		return fmt.Errorf("the %s kernel needs the target columns (Targets)", s.OVK)
	case s.Task != "regression":
		return fmt.Errorf("vector-valued models fit regression (their targets are the columns of Targets), not the %s task", s.Task)
	case s.loss != learn.Squared || (s.CV != 0 && !s.Tune):
		return fmt.Errorf("vector-valued models fit regression with the squared loss and a fixed or tuned λ (not cross-validated alone)")
	case s.Kernel != "gaussian":
		return fmt.Errorf("vector-valued models use the Gaussian kernel, not %s", s.Kernel)
	}
	if k != nil && k.Kind() != ovk.Decomposable {
		s.field = true
		if s.A != "" || s.AMatrix != nil {
			return fmt.Errorf("the output matrix A applies to the decomposable kernel only")
		}
	}
	if s.ovkSolver, err = vector.ParseSolver(orDefault(s.Solver, "auto")); err != nil {
		return err
	}
	return nil
}

// kernel returns the kernel and its bandwidth: Sigma, or the median heuristic on the sample of preprocessed rows
// when Sigma is 0 (1 for scale-free kernels, which ignore it).
func (s *settings) kernel(sample *reservoir) (kernel.Kernel, float64, error) {
	sigma := s.Sigma
	if sigma == 0 {
		sigma = 1
		if !isScaleFree(s.Kernel) {
			m, err := s.median(sample)
			if err != nil {
				return nil, 0, err
			}
			sigma = m
		}
	}
	k, err := kernel.New(s.Kernel, sigma)
	return k, sigma, err
}

// median is the median-heuristic bandwidth on the sample.
func (s *settings) median(sample *reservoir) (float64, error) {
	give := "give σ (Config.Sigma)"
	if s.Tune {
		give = "give the bandwidths to score (Config.Sigmas)"
	}
	if sample.len() < 2 {
		return 0, fmt.Errorf("the median heuristic for σ needs at least 2 rows, have %d; %s", sample.len(), give)
	}
	m, err := kernel.MedianSigma(s.Kernel, sample.rows, sample.len(), sample.d, kernel.DefaultMedianRows, s.Seed)
	if err != nil {
		return 0, fmt.Errorf("the median heuristic for σ: %w; %s", err, give)
	}
	return m, nil
}

// reservoir keeps a uniform sample of at most kernel.DefaultMedianRows rows of a stream of rows (Vitter's
// algorithm R, seeded): the rows the median heuristic measures. Which rows it keeps depends only on their number
// and the seed, so a fit in memory and a streamed fit of the same file measure the same rows.
type reservoir struct {
	d, seen int
	limit   int // rows kept; 0 means kernel.DefaultMedianRows
	rows    []float64
	rng     *rand.Rand
}

func newReservoir(d int, seed uint64) *reservoir {
	return &reservoir{d: d, rng: rand.New(rand.NewPCG(seed, 0x6d656469616e))}
}

func (r *reservoir) len() int { return len(r.rows) / r.d }

// capacity is the most rows the sample keeps.
func (r *reservoir) capacity() int {
	if r.limit > 0 {
		return r.limit
	}
	return kernel.DefaultMedianRows
}

// add offers the n rows of X (n×d) to the sample.
func (r *reservoir) add(X []float64, n int) {
	k := r.capacity()
	for i := range n {
		row := X[i*r.d : (i+1)*r.d]
		r.seen++
		if r.len() < k {
			r.rows = append(r.rows, row...)
			continue
		}
		if j := r.rng.IntN(r.seen); j < k {
			copy(r.rows[j*r.d:(j+1)*r.d], row)
		}
	}
}

// isScaleFree reports whether the kernel has no bandwidth (the arc-cosine kernels).
func isScaleFree(name string) bool {
	k, err := kernel.New(name, 1)
	if err != nil {
		return false
	}
	_, spectral := k.(kernel.Spectral)
	return !spectral
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}
