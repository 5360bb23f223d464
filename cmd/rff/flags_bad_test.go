package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/learn"
)

// TestFlagValuesRefused: flag values that used to be taken silently for something else — a γ or σ whose bandwidth is
// not a positive normal float (once the median heuristic, or an internal error), junk after a rule name (once the
// plain rule), a misspelt fallback rule, a negative budget other than -1, flags the chosen mode ignores, an -D past
// what the bounds count, a λ so large that N·λ overflows — are refused: exit 2, one line on stderr that names the
// flag, nothing on stdout.
func TestFlagValuesRefused(t *testing.T) {
	data := writeCSV(t, 40, 2)
	out := filepath.Join(t.TempDir(), "m.rff")
	fit := func(a ...string) []string {
		return append([]string{"fit", "--data", data, "--out", out}, a...)
	}
	approx := func(a ...string) []string {
		return append([]string{"approx", "--data", data, "--samples", "20", "--runs", "1", "--n", "1"}, a...)
	}
	bound := func(a ...string) []string {
		return append([]string{"bound", "--d", "5", "--diameter", "2"}, a...)
	}
	for _, c := range []struct {
		name string
		args []string
		want []string // fragments of the one stderr line
	}{
		// 1. A bandwidth whose σ is not a positive normal float, and --sigma with --gamma in any spelling.
		{"gamma σ underflows", fit("-D", "8", "--gamma", "9e307"), []string{"-gamma", "γ ≤"}},
		{"gamma max float", fit("-D", "8", "--gamma", "1.7976931348623157e308"), []string{"-gamma", "γ ≤"}},
		{"gamma σ below MinSigma", fit("-D", "8", "--gamma", "6e300"), []string{"-gamma", "γ ≤"}},
		{"sigma smallest normal", fit("-D", "8", "--sigma", "2.2250738585072014e-308"), []string{"-sigma", "too small a bandwidth"}},
		{"sigma where σ² underflows", fit("-D", "8", "--sigma", "1e-300"), []string{"-sigma", "σ² underflows"}},
		{"sigma auto with gamma", fit("-D", "8", "--sigma", "auto", "--gamma", "1"), []string{"give --sigma or --gamma, not both"}},
		{"gamma with sigma auto", fit("-D", "8", "--gamma", "1", "--sigma", "auto"), []string{"give --sigma or --gamma, not both"}},
		{"gamma auto with sigma", fit("-D", "8", "--gamma", "auto", "--sigma", "2"), []string{"give --sigma or --gamma, not both"}},
		{"approx sigma auto with gamma", approx("--sigma", "auto", "--gamma", "1"), []string{"give --sigma or --gamma, not both"}},
		{"approx gamma σ underflows", approx("--gamma", "9e307"), []string{"-gamma", "γ ≤"}},
		// 7. A subnormal σ.
		{"sigma subnormal", fit("-D", "8", "--sigma", "1e-320"), []string{"-sigma", "too small a bandwidth"}},
		{"sigma smallest subnormal", fit("-D", "8", "--sigma", "5e-324"), []string{"-sigma", "too small a bandwidth"}},
		{"approx sigma subnormal", approx("--sigma", "1e-320"), []string{"-sigma", "too small a bandwidth"}},
		// 2. Junk after a rule name.
		{"rule g suffix", fit("-D", "8", "--rule", "g:5"), []string{"--rule", "g takes no parameter", "gq:M"}},
		{"rule sr-butterfly suffix", fit("-D", "8", "--rule", "sr-butterfly:abc"), []string{"--rule", "sr-butterfly takes no parameter"}},
		{"rule qmc suffix", fit("-D", "8", "--rule", "qmc:xyz"), []string{"--rule", "qmc takes no parameter"}},
		{"rule gq two suffixes", fit("-D", "8", "--rule", "gq:3:junk"), []string{"--rule", "Gauss–Hermite degree"}},
		{"approx rules orf suffix", approx("--rules", "g,orf:zzz"), []string{"--rules", "orf takes no parameter"}},
		{"approx form of an arc-cosine kernel", approx("--kernel", "arccos1", "--form", "cosphase"), []string{"--form", "arccos1", "leave --form out"}},
		// 3. The fallback rule is checked whether or not the fit needs it.
		{"rule-fallback unknown", fit("-D", "8", "--rule-fallback", "foo"), []string{"--rule-fallback", `unknown rule "foo"`}},
		{"rule-fallback suffix", fit("-D", "8", "--rule-fallback", "orf:2"), []string{"--rule-fallback", "orf takes no parameter"}},
		{"rule-fallback an SR rule", fit("-D", "8", "--rule-fallback", "sr-haar"), []string{"--rule-fallback sr-haar rounds -D"}},
		{"rule-fallback without an SR rule", fit("-D", "8", "--rule", "orf", "--rule-fallback", "g"), []string{"--rule-fallback", "leave --rule-fallback out"}},
		// 4. -1 is the only negative budget.
		{"max-memory -5", fit("-D", "8", "--max-memory", "-5"), []string{"-max-memory", "the only negative budget is -1"}},
		{"max-memory -0.5", fit("-D", "8", "--max-memory", "-0.5"), []string{"-max-memory", "the only negative budget is -1"}},
		{"max-memory -1GiB", fit("-D", "8", "--max-memory", "-1GiB"), []string{"-max-memory", "the only negative budget is -1"}},
		// 5. Flags the chosen mode ignores.
		{"exact with -D", fit("--exact", "-D", "8"), []string{"-D does not go with --exact"}},
		{"exact with rule", fit("--exact", "--rule", "g"), []string{"--rule does not go with --exact"}},
		{"exact with form", fit("--exact", "--form", "cosphase"), []string{"--form does not go with --exact"}},
		{"exact with solver cg", fit("--exact", "--solver", "cg"), []string{"--solver cg does not go with --exact"}},
		{"exact with rule-fallback", fit("--exact", "--rule-fallback", "orf"), []string{"--rule-fallback does not go with --exact"}},
		{"max-classes on a regression", fit("-D", "8", "--max-classes", "5"), []string{"--max-classes", "--task regression"}},
		{"solver cg with the hinge loss", fit("-D", "8", "--task", "classification", "--loss", "hinge", "--solver", "cg"), []string{"--solver cg solves the ridge system", "--loss hinge"}},
		{"solver cg with uncertainty", fit("-D", "8", "--uncertainty", "--solver", "cg"), []string{"--uncertainty keeps the Cholesky factor"}},
		{"form with an arc-cosine kernel", fit("-D", "8", "--kernel", "arccos1", "--form", "cosphase"), []string{"--form", "arccos1", "pointwise"}},
		{"bound lambda0 without krr", bound("-D", "100", "--lambda0", "3", "--theorem", "ss-linf"), []string{"--lambda0", "--theorem krr, not of ss-linf"}},
		{"bound sigma-y without krr", bound("-D", "100", "--sigma-y", "2"), []string{"--sigma-y", "--theorem krr"}},
		{"bound features without krr", bound("-D", "100", "--features", "rff", "--theorem", "rr"), []string{"--features", "--theorem krr, not of rr"}},
		{"bound p without ss-deriv", bound("-D", "100", "--p", "1,0,0,0,0", "--theorem", "ss-lr"), []string{"--p", "not of ss-lr"}},
		{"bound ovk without orff", bound("-D", "100", "--ovk", "div-free", "--theorem", "krr", "--lambda0", "1"), []string{"--ovk", "--theorem orff, not of krr"}},
		{"bound outputs without decomposable", bound("-D", "100", "--theorem", "orff", "--outputs", "3"), []string{"--outputs", "--ovk decomposable"}},
		{"bound exact-variance curl-free", bound("-D", "100", "--theorem", "orff", "--exact-variance"), []string{"--exact-variance", "div-free only"}},
		{"bound nu with matern32", bound("-D", "100", "--kernel", "matern32", "--nu", "-1"), []string{"--nu", "not of matern32"}},
		{"bound nu with matern52", bound("-D", "100", "--kernel", "matern52", "--nu", "2.5"), []string{"--nu", "not of matern52"}},
		// 6. -D past what the bounds count (2·D overflowed into a negative column count).
		{"bound -D max int64", bound("--theorem", "ss-linf", "-D", "9223372036854775807"), []string{"-D 9223372036854775807", "at most 2^53"}},
		{"bound -D 2^53+1", bound("-D", "9007199254740993"), []string{"-D 9007199254740993", "at most 2^53"}},
		// 7. A λ that overflows N·λ: the advice is a sensible λ, not a larger one.
		{"lambda overflows", fit("-D", "8", "--lambda", "1e308"), []string{"--lambda 1e+308", "N·λ = 40·1e+308 overflows", "1e-9 to 1e-1"}},
		{"lambda overflows exact", fit("--exact", "--lambda", "1e308"), []string{"--lambda 1e+308", "overflows"}},
		{"lambdas overflow cv", fit("-D", "8", "--cv", "2", "--lambdas", "1e-3,1e308"), []string{"--lambdas 1e+308", "overflows"}},
		// 8. Values of the wrong type: the flag as written and what it takes, not the flag package's "parse error".
		{"seed negative", fit("-D", "8", "--seed", "-1"), []string{`--seed: "-1" is not a whole number ≥ 0`}},
		{"D not a number", fit("-D", "abc"), []string{`-D: "abc" is not a whole number`}},
		{"D with a quote and a tab", fit("-D", "a\"b\tc"), []string{`-D: "a\"b\tc" is not a whole number`}},
		{"D out of range", fit("-D", "99999999999999999999"), []string{`-D: "99999999999999999999" is out of range for a whole number`}},
		{"json not a boolean", fit("-D", "8", "--json=maybe"), []string{`--json: "maybe" is not true or false`}},
		{"sigma not a bandwidth", fit("-D", "8", "--sigma", "abc"), []string{`--sigma: "abc" is not a bandwidth`}},
		// 9. Flags of vector-valued models without --ovk (the library's words once).
		{"targets without ovk", fit("-D", "8", "--targets", "f1"), []string{"--targets and -A", "--ovk decomposable"}},
		{"closed form of a curl-free kernel", fit("-D", "8", "--target", "none", "--ovk", "curl-free", "--targets", "f2,y", "--solver", "closed-form"),
			[]string{"--solver closed-form", "--ovk curl-free", "cholesky, cg or lbfgs"}},
		// 10. A training split longer than the file (once all of its rows, silently).
		{"train beyond the rows", fit("-D", "8", "--train", "41"), []string{"--train 41", "has 40 data rows", "at most 40"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(c.args...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line on stderr only", c.args, code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("%v: stderr %q does not say %q", c.args, stderr, w)
				}
			}
			if strings.Contains(stderr, "increase λ") || strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "feature.") {
				t.Errorf("%v: stderr %q gives internal text or the wrong advice", c.args, stderr)
			}
		})
	}
}

// TestFlagValuesAccepted: the values next to the refused ones still run, so the refusals are not broader than the
// flags' documented meaning.
func TestFlagValuesAccepted(t *testing.T) {
	data := writeCSV(t, 40, 2)
	out := filepath.Join(t.TempDir(), "m.rff")
	fit := func(a ...string) []string {
		return append([]string{"fit", "--data", data, "--out", out}, a...)
	}
	bound := func(a ...string) []string {
		return append([]string{"bound", "--d", "5", "--diameter", "2"}, a...)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"gamma large but representable", fit("-D", "8", "--gamma", "1e300")},
		{"gamma auto", fit("-D", "8", "--gamma", "auto")},
		{"sigma huge", fit("-D", "8", "--sigma", "1e300")},
		{"sigma just above MinSigma", fit("-D", "8", "--sigma", "1e-150")},
		{"gamma just below the largest", fit("-D", "8", "--gamma", "5e300")},
		{"rule gq degree", fit("-D", "8", "--rule", "gq:3")},
		{"rule-fallback with an SR rule", fit("-D", "8", "--rule", "sr-haar", "--rule-fallback", "orf")},
		{"max-memory -1", fit("-D", "8", "--max-memory", "-1")},
		{"max-memory 0", fit("-D", "8", "--max-memory", "0")},
		{"exact with solver cholesky", fit("--exact", "--solver", "cholesky")},
		{"max-classes on a classifier", fit("-D", "8", "--task", "classification", "--max-classes", "5")},
		{"lambda large", fit("-D", "8", "--lambda", "1e300")},
		{"lambda largest with finite N·λ", fit("-D", "8", "--lambda", "4e306")},
		{"bound lambda0 with krr", bound("-D", "100", "--theorem", "krr", "--lambda0", "0.1", "--features", "rff")},
		{"bound nu with matern", bound("-D", "100", "--kernel", "matern", "--nu", "1.5")},
		{"bound decomposable outputs", bound("-D", "100", "--theorem", "orff", "--ovk", "decomposable", "--outputs", "3", "--norm-a", "2")},
		{"bound div-free exact-variance", bound("-D", "100", "--theorem", "orff", "--ovk", "div-free", "--exact-variance")},
		{"bound -D 2^53", bound("-D", "9007199254740992")},
		{"train all the rows", fit("-D", "8", "--train", "40")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, _, stderr := runCLI(c.args...); code != 0 {
				t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
			}
		})
	}
}

// TestLambdaHint: a solver's "not positive definite: increase λ" becomes one line naming the flag and its λ — raise
// it, for a small λ; for a λ ≥ 1, where the terms in N·λ overflowed (a streamed fit, whose N is not known up front),
// a sensible range instead.
func TestLambdaHint(t *testing.T) {
	solver := errors.New("learn.Ridge.Solve: the system ZᵀZ + NλI is not positive definite: increase λ")
	cgFail := fmt.Errorf("learn.Ridge.Solve: %w after 256 iterations (relative residual 2e-08 > 1e-10)", learn.ErrNotConverged)
	// As vector.Ridge's L-BFGS says it (an error of its own type that unwraps to ErrNotConverged).
	lbfgsFail := fmt.Errorf("vector.Ridge.Fit (lbfgs): L-BFGS did not converge: stopped after 1344 iterations: %w", learn.ErrNotConverged)
	for _, c := range []struct {
		name         string
		err          error
		cfg          rff.Config
		want         string // a fragment of the error returned
		keep         bool   // the error is returned as it was
		advisesRange bool   // the error advises a range of λ
	}{
		{"small λ", solver, rff.Config{Lambda: 1e-12}, "--lambda 1e-12: the ridge system ZᵀZ + NλI is not positive definite at this λ", false, false},
		{"huge λ", solver, rff.Config{Lambda: 1e307}, "--lambda 1e+307: the ridge system could not be factorized", false, true},
		{"huge λ in the cv grid", solver, rff.Config{CV: 3, Lambda: 1e-6, Lambdas: []float64{1e-3, 1e307}}, "--lambdas 1e+307", false, true},
		{"tune grid of small λ", solver, rff.Config{Tune: true, Lambda: 1e307, Lambdas: []float64{1e-3}}, "--lambdas 0.001: the ridge system ZᵀZ + NλI is not positive definite at this λ", false, false},
		{"other error", errors.New("no space left on device"), rff.Config{Lambda: 1e307}, "no space", true, false},
		{"cg", cgFail, rff.Config{Lambda: 1e-6}, "--solver cg: conjugate gradients did not converge after 256 iterations (relative residual 2e-08 > 1e-10) at --lambda 1e-06; raise it", false, false},
		{"cg in a cv grid", cgFail, rff.Config{CV: 3, Lambdas: []float64{1e-9, 1e-3}}, "at the smallest λ of --lambdas; narrow the grid", false, false},
		{"lbfgs", lbfgsFail, rff.Config{Lambda: 1e-6, OVK: "decomposable"}, "--solver lbfgs: L-BFGS did not converge: stopped after 1344 iterations", false, false},
		{"lbfgs at a huge λ", lbfgsFail, rff.Config{Lambda: 1e20, OVK: "curl-free"}, "at --lambda 1e+20, where the penalty dwarfs the data (θ is about 0): use --solver cholesky, or a smaller λ", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := lambdaHint(c.err, &c.cfg)
			if got == nil || !strings.Contains(got.Error(), c.want) {
				t.Fatalf("lambdaHint = %v, want it to say %q", got, c.want)
			}
			if kept := got == c.err; kept != c.keep {
				t.Errorf("lambdaHint = %q: kept %v, want %v", got, kept, c.keep)
			}
			if !c.keep && (strings.Contains(got.Error(), "learn.") || strings.Contains(got.Error(), "vector.")) {
				t.Errorf("lambdaHint = %q names a library function", got)
			}
			if c.advisesRange && (strings.Contains(got.Error(), "raise") || !strings.Contains(got.Error(), "1e-9 to 1e-1")) {
				t.Errorf("lambdaHint = %q: want a sensible range, not a larger λ", got)
			}
		})
	}
}
