package cliflag

import (
	"regexp"
	"strings"
)

// Message is the one line a command prints for err: its text on one line, without the library's internal
// "package.Function: " prefixes (StripInternal), with the fields of rff.Config it names written as the command's
// flags (NameFlags; has as there).
func Message(err error, has func(flag string) bool) string {
	return NameFlags(StripInternal(strings.Join(strings.Fields(err.Error()), " ")), has)
}

// internalPrefix matches a "package.Function: " prefix of an error message (learn.NewPosterior, vector.Ridge.Fit,
// kernel.MedianSigma, …), which says where in the library an error arose; internalNames lists the library's own
// (a test keeps the list complete), so that a file named like one (model.RFF) keeps its name.
var internalPrefix = regexp.MustCompile(`(^|: )((?:approx|bound|dataset|feature|kernel|learn|linalg|model|nystrom|ovk|rule|structured|vector)\.[A-Z]\w*(?:\.[A-Z]\w*)*): `)

var internalNames = map[string]bool{}

func init() {
	for _, n := range []string{
		"approx.Compare", "approx.GQFloor", "approx.GQKernel", "dataset.NewScalerAccumulator",
		"feature.DrawSpectral", "feature.FromParams", "feature.New", "kernel.Centres.Gram", "kernel.Deriv",
		"kernel.Gradient", "kernel.Gram", "kernel.GramDense", "kernel.GramRows", "kernel.MedianSigma",
		"kernel.NewCentres", "learn.Accumulate", "learn.Accumulator.Add", "learn.Accumulator.Stats", "learn.Argmax",
		"learn.Classifier", "learn.Classifier.Fit", "learn.Classifier.FitMap", "learn.CrossValidate",
		"learn.CrossValidateClasses", "learn.CrossValidateClassifier", "learn.CrossValidateScaled", "learn.Features",
		"learn.Fit.Predict", "learn.Fit.PredictGradients", "learn.Fit.PredictMap", "learn.Hermite.Fit",
		"learn.Hermite.SelectLambda", "learn.KRR.Fit", "learn.KRR.SelectLambda", "learn.KRRFit.Predict",
		"learn.NewAccumulator", "learn.NewPosterior", "learn.NewStats", "learn.OneHot", "learn.Posterior.Covariance",
		"learn.Posterior.ParamCovariance", "learn.Posterior.Sample", "learn.Posterior.SampleMap",
		"learn.Posterior.Std", "learn.Posterior.StdMap", "learn.Ridge.FitMap", "learn.Ridge.Solve",
		"learn.ScoreLambdas", "learn.SelectLambda", "learn.SelectLambdaMap", "learn.SelectLambdaScaled", "learn.SimplexCode",
		"learn.SimplexDecode", "learn.SimplexEncode", "learn.Softmax", "learn.SolveMatrixFree", "learn.Stats.Add",
		"learn.Stats.Merge", "learn.Stats.NormalEquations", "linalg.Cholesky", "linalg.EigenSym",
		"linalg.SolveCholesky", "linalg.Use", "model.Read", "nystrom.FromLandmarks", "nystrom.FromParams",
		"nystrom.Gather", "nystrom.New", "ovk.EmpiricalVariance", "ovk.FromParams", "ovk.Gram", "ovk.GramDense",
		"ovk.New", "ovk.OutputCovariance", "ovk.SupError", "structured.NextPow2", "vector.Accumulate",
		"vector.Decouple", "vector.Decoupling.Rotate", "vector.Fit.Classify", "vector.Fit.Jacobian",
		"vector.Fit.Predict", "vector.KRR.Fit", "vector.KRR.FitPath", "vector.KRR.FitSimplex",
		"vector.KRRFit.Classify", "vector.KRRFit.Predict", "vector.Ridge.Fit", "vector.Ridge.FitPath",
		"vector.Ridge.FitSimplex", "vector.Ridge.Solve", "vector.SelectLambdaField", "vector.SimplexKernel",
	} {
		internalNames[n] = true
	}
}

// StripInternal removes the library's internal prefixes (internalPrefix, internalNames) from a message: the
// command's message names the input and the fix without them.
func StripInternal(s string) string {
	for {
		changed := false
		s = internalPrefix.ReplaceAllStringFunc(s, func(m string) string {
			sub := internalPrefix.FindStringSubmatch(m)
			if !internalNames[sub[2]] {
				return m
			}
			changed = true
			return sub[1]
		})
		if !changed {
			return s
		}
	}
}
