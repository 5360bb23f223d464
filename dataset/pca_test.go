package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const unit = 0x1p-53 // the unit roundoff u

func TestParseStepsPCA(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Step
		ok   bool
	}{
		{"pca:3", []Step{"pca:3"}, true},
		{"standardize, PCA-Whiten:0.95", []Step{StepStandardize, "pca-whiten:0.95"}, true},
		{"isotropic,pca:0.5", []Step{StepIsotropic, "pca:0.5"}, true},
		{"pca:0", nil, false},
		{"pca:-2", nil, false},
		{"pca:1.0", nil, false},
		{"pca:1.5", nil, false},
		{"pca:", nil, false},
		{"pca:x", nil, false},
		{"pca", nil, false},
		{"pca:2,standardize", nil, false},
		{"pca:2,pca:1", nil, false},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseSteps(c.in)
			if (err == nil) != c.ok || !slices.Equal(got, c.want) {
				t.Errorf("ParseSteps(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
			}
		})
	}
}

// correlated returns n rows of d columns x = m + A·z (z standard normal, A with entries of very different sizes) and
// a constant last column.
func correlated(seed uint64, n, d int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	A := make([]float64, d*d)
	for i := range A {
		A[i] = rng.NormFloat64() * math.Pow(3, float64(i%d))
	}
	x := make([]float64, n*d)
	z := make([]float64, d)
	for i := range n {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for j := range d - 1 {
			s := 10 * float64(j)
			for l := range d {
				s += A[j*d+l] * z[l]
			}
			x[i*d+j] = s
		}
		x[i*d+d-1] = 7
	}
	return x
}

// covariance is the population covariance of the n×d rows y and their means, computed naively in two passes.
func covariance(y []float64, n, d int) (C, mean []float64) {
	mean = make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += y[i*d+j]
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	C = make([]float64, d*d)
	for i := range n {
		for a := range d {
			for b := range d {
				C[a*d+b] += (y[i*d+a] - mean[a]) * (y[i*d+b] - mean[b])
			}
		}
	}
	for i := range C {
		C[i] /= float64(n)
	}
	return C, mean
}

func trace(C []float64, d int) float64 {
	var s float64
	for j := range d {
		s += C[j*d+j]
	}
	return s
}

func TestPCAFit(t *testing.T) {
	const n, d = 3000, 6
	x := correlated(3, n, d)
	// The standardized data, on which the PCA steps below are fitted.
	std, u := fitApply(t, x, n, d, StepStandardize)
	Cu, _ := covariance(u, n, d)
	tr := trace(Cu, d)
	// Two computations of a covariance entry (n products each, in different orders and after different roundings of
	// the inputs) differ by at most about 2(n + d)·u·√(C_aa·C_bb) ≤ 2(n + d)·u·tr(C); an eigenpair of a backward
	// stable solver satisfies ‖C v − λ v‖ ≤ p(d)·u·‖C‖ with ‖C‖ ≤ tr(C). tol covers both with room.
	tol := float64(8*(n+d)*d) * unit * tr
	for _, c := range []struct {
		step   Step
		k      int
		whiten bool
	}{
		{"pca:3", 3, false},
		{"pca:5", 5, false},
		{"pca-whiten:4", 4, true},
		{"pca:0.9", -1, false},
	} {
		t.Run(string(c.step), func(t *testing.T) {
			s, y := fitApply(t, x, n, d, StepStandardize, c.step)
			K := s.OutDim()
			p := s.Params[1]
			if c.k > 0 && K != c.k {
				t.Fatalf("OutDim = %d, want %d", K, c.k)
			}
			if !slices.Equal(s.Params[0].Shift, std.Params[0].Shift) || !slices.Equal(s.Params[0].Scale, std.Params[0].Scale) {
				t.Fatal("the standardize step differs with a PCA step after it")
			}
			// Each component is a unit eigenvector of the covariance of the step's input, with the largest eigenvalues
			// in decreasing order, its largest component positive.
			for k := range K {
				v := p.Components[k*d : (k+1)*d]
				big := 0
				for j := range d {
					if math.Abs(v[j]) > math.Abs(v[big]) {
						big = j
					}
				}
				if v[big] <= 0 {
					t.Errorf("component %d: its largest entry %v is not positive", k+1, v[big])
				}
				var res float64
				for a := range d {
					var cv float64
					for b := range d {
						cv += Cu[a*d+b] * v[b]
					}
					res += (cv - p.Variances[k]*v[a]) * (cv - p.Variances[k]*v[a])
				}
				if math.Sqrt(res) > tol {
					t.Errorf("component %d: ‖Cv − λv‖ = %.3g > %.3g", k+1, math.Sqrt(res), tol)
				}
			}
			// The total variance is the trace; the variance explained is the sum of the kept eigenvalues over it.
			if math.Abs(p.TotalVariance-tr) > tol {
				t.Errorf("total variance %v, trace of the covariance %v", p.TotalVariance, tr)
			}
			var kept float64
			for _, v := range p.Variances {
				kept += v
			}
			if got := s.ExplainedVariance(); math.Abs(got-kept/p.TotalVariance) > 4*unit {
				t.Errorf("ExplainedVariance = %v, want %v", got, kept/p.TotalVariance)
			}
			if c.k < 0 { // pca:0.9 keeps the fewest components reaching 90% of the variance
				full, err := FitScaler(x, n, d, []Step{StepStandardize, "pca:6"})
				if err != nil {
					t.Fatal(err)
				}
				all := full.Params[1].Variances
				var sum, before float64
				for _, v := range all {
					sum += v
				}
				for _, v := range all[:K-1] {
					before += v
				}
				if !(before < 0.9*sum && kept >= 0.9*sum) {
					t.Errorf("pca:0.9 kept %d components: %v and %v of %v", K, before, kept, sum)
				}
			}
			// The projected training data have mean 0 and a diagonal covariance, diag(λ_k) (or I after whitening).
			Cy, my := covariance(y[:n*K], n, K)
			for a := range K {
				mbound := tol // the mean of a whitened column has its error divided by √λ_a
				if c.whiten {
					mbound = tol / math.Sqrt(p.Variances[a])
				}
				if math.Abs(my[a]) > mbound {
					t.Errorf("column %d of the projection has mean %v", a+1, my[a])
				}
				for b := range K {
					want := 0.0
					if a == b && c.whiten {
						want = 1
					} else if a == b {
						want = p.Variances[a]
					}
					// After whitening, the error of entry (a, b) is divided by s_a·s_b.
					bound := tol
					if c.whiten {
						bound = tol / math.Sqrt(p.Variances[a]*p.Variances[b])
					}
					if math.Abs(Cy[a*K+b]-want) > bound {
						t.Errorf("covariance of the projection (%d, %d) = %v, want %v ± %.3g", a+1, b+1, Cy[a*K+b], want, bound)
					}
				}
			}
		})
	}
}

func TestPCAReconstruction(t *testing.T) {
	const n, d = 1000, 5
	x := correlated(5, n, d)
	C, _ := covariance(x, n, d)
	tr := trace(C, d)
	var xmax float64
	for _, v := range x {
		xmax = max(xmax, math.Abs(v))
	}
	for _, K := range []int{1, 3, 5} {
		st := Step(fmt.Sprintf("pca:%d", K))
		t.Run(string(st), func(t *testing.T) {
			s, y := fitApply(t, x, n, d, st)
			y = y[:n*d]
			s.Invert(y, n, d)
			// The mean squared reconstruction error is the variance of the discarded components, Σ_{k>K} λ_k =
			// tr(C) − Σ_{k≤K} λ_k; rounding moves it by a few (n + d)·u·tr(C).
			var mse float64
			for i, v := range y {
				mse += (v - x[i]) * (v - x[i])
			}
			mse /= n
			var kept float64
			for _, v := range s.Params[0].Variances {
				kept += v
			}
			want := s.Params[0].TotalVariance - kept
			if math.Abs(mse-want) > float64(16*(n+d)*d)*unit*tr {
				t.Errorf("mean squared reconstruction error %v, discarded variance %v", mse, want)
			}
			if K == d { // every component kept: the map is a rotation, inverted to rounding
				for i, v := range y {
					if math.Abs(v-x[i]) > float64(8*d)*unit*xmax {
						t.Fatalf("value %d reconstructed as %v, was %v", i, v, x[i])
					}
				}
			}
		})
	}
}

func TestPCAJacobian(t *testing.T) {
	const n, d = 400, 4
	x := correlated(7, n, d)
	for _, st := range [][]Step{{StepStandardize, "pca-whiten:2"}, {StepMinMax, "pca:3"}, {StepStandardize}} {
		s, err := FitScaler(x, n, d, st)
		if err != nil {
			t.Fatal(err)
		}
		K := s.OutDim()
		J := s.Jacobian()
		// Every step is affine: Apply(x + e_j) − Apply(x) is column j of the Jacobian, to the rounding of the
		// outputs (a few d·u times their magnitude).
		base := slices.Clone(x[:d])
		s.Apply(base, 1, d)
		for j := range d {
			row := slices.Clone(x[:d])
			row[j]++
			s.Apply(row, 1, d)
			for k := range K {
				got := row[k] - base[k]
				mag := math.Abs(row[k]) + math.Abs(base[k]) + math.Abs(J[k*d+j])
				if math.Abs(got-J[k*d+j]) > float64(16*d)*unit*mag*10 {
					t.Errorf("%v: ∂x'_%d/∂x_%d = %v by differences, Jacobian says %v", st, k+1, j+1, got, J[k*d+j])
				}
			}
		}
	}
}

func TestPCAJSONAndValidate(t *testing.T) {
	const n, d = 500, 5
	x := correlated(9, n, d)
	s, y := fitApply(t, x, n, d, StepStandardize, "pca-whiten:3")
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Scaler
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Validate(); err != nil {
		t.Fatalf("decoded scaler does not validate: %v", err)
	}
	z := slices.Clone(x)
	back.Apply(z, n, d)
	if !slices.Equal(z[:n*3], y[:n*3]) {
		t.Fatal("the decoded scaler projects different bits")
	}
	for _, c := range []struct {
		name string
		edit func(p *StepParams)
	}{
		{"not orthonormal", func(p *StepParams) { p.Components[0] *= 1 + 1e-9 }},
		{"NaN component", func(p *StepParams) { p.Components[4] = math.NaN() }},
		{"short shift", func(p *StepParams) { p.Shift = p.Shift[:d-1] }},
		{"missing variance", func(p *StepParams) { p.Variances = p.Variances[:2] }},
		{"increasing variances", func(p *StepParams) { p.Variances[2] = p.Variances[0] * 2; p.Scale[2] = math.Sqrt(p.Variances[2]) }},
		{"scale not √λ", func(p *StepParams) { p.Scale[1] = 1 }},
		{"more components than asked", func(p *StepParams) {
			p.Scale = append(p.Scale, 1)
			p.Variances = append(p.Variances, 0)
			p.Components = append(p.Components, make([]float64, d)...)
		}},
		{"kept variance above total", func(p *StepParams) { p.TotalVariance = p.Variances[0] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var bad Scaler
			if err := json.Unmarshal(b, &bad); err != nil {
				t.Fatal(err)
			}
			c.edit(&bad.Params[1])
			if err := bad.Validate(); err == nil {
				t.Error("Validate accepted damaged PCA parameters")
			}
		})
	}
	t.Run("not last", func(t *testing.T) {
		var bad Scaler
		if err := json.Unmarshal(b, &bad); err != nil {
			t.Fatal(err)
		}
		bad.Steps = append(bad.Steps, StepNone)
		bad.Params = append(bad.Params, StepParams{Step: StepNone})
		if err := bad.Validate(); err == nil {
			t.Error("Validate accepted a step after PCA")
		}
	})
	t.Run("PCA parameters on an affine step", func(t *testing.T) {
		var bad Scaler
		if err := json.Unmarshal(b, &bad); err != nil {
			t.Fatal(err)
		}
		bad.Params[0].Variances = []float64{1}
		if err := bad.Validate(); err == nil {
			t.Error("Validate accepted variances on standardize")
		}
	})
}

func TestPCARefusals(t *testing.T) {
	const n, d = 200, 4
	x := correlated(11, n, d) // the last column is constant: rank d − 1 after centring
	for _, c := range []struct {
		name  string
		steps []Step
	}{
		{"more components than columns", []Step{"pca:5"}},
		{"whitening a null direction", []Step{StepStandardize, "pca-whiten:4"}},
		{"not last", []Step{"pca:2", StepStandardize}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := FitScaler(x, n, d, c.steps); err == nil {
				t.Errorf("FitScaler(%v) accepted", c.steps)
			}
		})
	}
	t.Run("values too large to square", func(t *testing.T) {
		huge := slices.Clone(x)
		for i := 0; i < n; i += 2 {
			huge[i*d+1] = 1e300 * float64(1+i%3)
		}
		_, err := FitScaler(huge, n, d, []Step{"none", "pca:2"})
		if err == nil || !strings.Contains(err.Error(), "pca: the covariance of columns 2 and 2 overflows") {
			t.Errorf("FitScaler of values near 1e300: %v", err)
		}
	})
	t.Run("constant inputs", func(t *testing.T) {
		c := make([]float64, 6*3)
		for i := range c {
			c[i] = 0.1*float64(i%3) + 0.7 // every row (0.7, 0.8, 0.9): values with rounding in their mean
		}
		for _, st := range []Step{"pca:1", "pca:3", "pca:0.99", "pca-whiten:1"} {
			for _, pre := range []Step{"none", StepMinMax} {
				_, err := FitScaler(c, 6, 3, []Step{pre, st})
				if err == nil || !strings.Contains(err.Error(), "the inputs are constant") {
					t.Errorf("FitScaler(%v, %v) of constant rows: %v", pre, st, err)
				}
			}
		}
	})
	t.Run("whitening the non-null directions", func(t *testing.T) {
		if _, err := FitScaler(x, n, d, []Step{StepStandardize, "pca-whiten:3"}); err != nil {
			t.Error(err)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		a := NewScalerAccumulator(d)
		if err := a.Add(x, n); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Scaler([]Step{StepStandardize, "pca:2"}); !errors.Is(err, ErrPCAStream) {
			t.Errorf("ScalerAccumulator.Scaler with pca: %v, want ErrPCAStream", err)
		}
	})
}

// TestPCADeterministic checks that the fit gives the same bits on any number of cores: the covariance is
// accumulated in a fixed order of row blocks, each entry by one task.
func TestPCADeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, d = 1500, 40
	x := correlated(13, n, d)
	var want string
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		s, err := FitScaler(x, n, d, []Step{StepStandardize, "pca:10"})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(s)
		if procs == 1 {
			want = string(b)
		} else if string(b) != want {
			t.Errorf("GOMAXPROCS=%d: the fitted PCA differs from GOMAXPROCS=1", procs)
		}
	}
}

// TestPCAApplyRowAlone: projecting rows gives the same bits for a row alone as within the blocks of a batch (a full
// block, the short last one) and on any number of cores — what a server predicting single rows needs to match a
// batch prediction bit for bit — for components both above and below the packed kernel's minimum size.
func TestPCAApplyRowAlone(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	const n, d = pcaBlock + 44, 40
	x := correlated(17, n, d)
	for _, spec := range []Step{"pca:10", "pca:3"} {
		s, err := FitScaler(x, n, d, []Step{StepStandardize, spec})
		if err != nil {
			t.Fatal(err)
		}
		K := s.OutDim()
		var batch []float64
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			b := append([]float64(nil), x...)
			s.Apply(b, n, d)
			if batch == nil {
				batch = b[:n*K]
			} else if !slices.Equal(b[:n*K], batch) {
				t.Errorf("%s: GOMAXPROCS=%d projects differently from GOMAXPROCS=1", spec, procs)
			}
		}
		for _, i := range []int{0, 7, pcaBlock - 1, pcaBlock, n - 1} {
			r := append([]float64(nil), x[i*d:(i+1)*d]...)
			s.Apply(r, 1, d)
			if !slices.Equal(r[:K], batch[i*K:(i+1)*K]) {
				t.Errorf("%s: row %d alone %v, in the batch %v", spec, i, r[:K], batch[i*K:(i+1)*K])
			}
		}
	}
}

// TestPCAAccumulated checks the PCA fitted from co-moments accumulated in blocks (and merged) against FitScaler on
// the whole data. Both covariances are within 2(n + d)·u·tr(C) of the exact one entrywise (as in TestPCAFit), so
// ‖ΔC‖₂ ≤ d·4(n + d)·u·tr(C) =: e; the eigenvalues then differ by at most e (Weyl) and the eigenvectors, with the same
// sign convention, by at most 2e/gap (Davis–Kahan), gap the distance of λ_k to the other eigenvalues.
func TestPCAAccumulated(t *testing.T) {
	const n, d = 2000, 6
	x := correlated(17, n, d)
	for _, steps := range [][]Step{{StepStandardize, "pca:3"}, {StepMinMax, "pca-whiten:2"}, {"pca:0.99"}} {
		t.Run(string(steps[len(steps)-1]), func(t *testing.T) {
			mem, _ := fitApply(t, x, n, d, steps...)
			a, b := NewScalerAccumulator(d), NewScalerAccumulator(d)
			for _, acc := range []*ScalerAccumulator{a, b} {
				if err := acc.TrackCovariance(); err != nil {
					t.Fatal(err)
				}
			}
			// Blocks of 1, 7 and 300 rows into a, the rest into b, merged.
			i := 0
			for _, size := range []int{1, 7, 300} {
				if err := a.Add(x[i*d:(i+size)*d], size); err != nil {
					t.Fatal(err)
				}
				i += size
			}
			if err := b.Add(x[i*d:], n-i); err != nil {
				t.Fatal(err)
			}
			if err := a.Merge(b); err != nil {
				t.Fatal(err)
			}
			acc, err := a.Scaler(steps)
			if err != nil {
				t.Fatal(err)
			}
			if err := acc.Validate(); err != nil {
				t.Fatal(err)
			}
			pm, pa := mem.Params[len(steps)-1], acc.Params[len(steps)-1]
			if acc.OutDim() != mem.OutDim() {
				t.Fatalf("K = %d accumulated, %d in memory", acc.OutDim(), mem.OutDim())
			}
			full, err := FitScaler(x, n, d, append(slices.Clone(steps[:len(steps)-1]), Step(fmt.Sprintf("pca:%d", d))))
			if err != nil {
				t.Fatal(err)
			}
			lam := full.Params[len(steps)-1].Variances
			e := float64(4*(n+d)*d) * unit * pm.TotalVariance
			for k := range acc.OutDim() {
				if math.Abs(pa.Variances[k]-pm.Variances[k]) > e {
					t.Errorf("λ_%d = %v accumulated, %v in memory", k+1, pa.Variances[k], pm.Variances[k])
				}
				gap := math.Inf(1)
				if k > 0 {
					gap = lam[k-1] - lam[k]
				}
				if k+1 < d {
					gap = min(gap, lam[k]-lam[k+1])
				}
				var diff float64
				for j := range d {
					diff += (pa.Components[k*d+j] - pm.Components[k*d+j]) * (pa.Components[k*d+j] - pm.Components[k*d+j])
				}
				if math.Sqrt(diff) > 2*e/gap+float64(16*d)*unit {
					t.Errorf("component %d differs by %.3g accumulated (bound %.3g)", k+1, math.Sqrt(diff), 2*e/gap)
				}
			}
		})
	}
	t.Run("refusals", func(t *testing.T) {
		a := NewScalerAccumulator(d)
		if err := a.Add(x, 10); err != nil {
			t.Fatal(err)
		}
		if err := a.TrackCovariance(); err == nil {
			t.Error("TrackCovariance after rows were added")
		}
		b := NewScalerAccumulator(d)
		_ = b.TrackCovariance()
		if err := b.Add(x, 10); err != nil {
			t.Fatal(err)
		}
		if err := a.Merge(b); err == nil {
			t.Error("merged statistics with and without co-moments")
		}
		if _, err := a.Scaler([]Step{"pca:2"}); !errors.Is(err, ErrPCAStream) {
			t.Errorf("pca without co-moments: %v", err)
		}
	})
}

// TestPCAWide: on data with fewer rows than columns the PCA is fitted from the n×n Gram matrix; it must agree with
// the eigendecomposition of the d×d covariance within the bounds of TestPCAAccumulated (Weyl for the variances,
// Davis–Kahan for the components), keep orthonormal components, and refuse components the rows do not span.
func TestPCAWide(t *testing.T) {
	const n, d, r = 40, 90, 6
	rng := rand.New(rand.NewPCG(21, 3))
	A := make([]float64, r*d)
	for i := range A {
		A[i] = rng.NormFloat64() * float64(1+i/d) // rank-r signal with distinct scales
	}
	x := make([]float64, n*d)
	for i := range n {
		for k := range r {
			z := rng.NormFloat64()
			for j := range d {
				x[i*d+j] += z * A[k*d+j]
			}
		}
		for j := range d {
			x[i*d+j] += 0.01*rng.NormFloat64() + float64(j)
		}
	}
	for _, steps := range [][]Step{{"pca:5"}, {StepStandardize, "pca-whiten:4"}, {StepStandardize, "pca:0.9"}} {
		t.Run(string(steps[len(steps)-1]), func(t *testing.T) {
			s, y := fitApply(t, x, n, d, steps...)
			K := s.OutDim()
			// The reference: the same step fitted from the d×d covariance of the previous steps' output.
			prev := &Scaler{Steps: steps[:len(steps)-1], D: d, Params: s.Params[:len(steps)-1]}
			u := slices.Clone(x)
			prev.Apply(u, n, d)
			C, mean := covariance(u, n, d)
			tr := trace(C, d)
			ref := &Scaler{Steps: steps, D: d, Params: slices.Clone(s.Params)}
			if err := ref.pcaFromCovariance(slices.Clone(C), d, mean); err != nil {
				t.Fatal(err)
			}
			pg, pc := s.Params[len(steps)-1], ref.Params[len(steps)-1]
			if ref.OutDim() != K {
				t.Fatalf("K = %d from the Gram matrix, %d from the covariance", K, ref.OutDim())
			}
			full := &Scaler{Steps: append(slices.Clone(steps[:len(steps)-1]), Step(fmt.Sprintf("pca:%d", d))), D: d, Params: slices.Clone(s.Params)}
			if err := full.pcaFromCovariance(slices.Clone(C), d, mean); err != nil {
				t.Fatal(err)
			}
			lam := full.Params[len(steps)-1].Variances
			e := float64(4*(n+d)*d) * unit * tr
			for k := range K {
				if math.Abs(pg.Variances[k]-pc.Variances[k]) > e {
					t.Errorf("λ_%d = %v from the Gram matrix, %v from the covariance", k+1, pg.Variances[k], pc.Variances[k])
				}
				gap := lam[k] - lam[k+1]
				if k > 0 {
					gap = min(gap, lam[k-1]-lam[k])
				}
				var diff float64
				for j := range d {
					diff += (pg.Components[k*d+j] - pc.Components[k*d+j]) * (pg.Components[k*d+j] - pc.Components[k*d+j])
				}
				if math.Sqrt(diff) > 2*e/gap+float64(16*d)*unit {
					t.Errorf("component %d differs by %.3g (bound %.3g)", k+1, math.Sqrt(diff), 2*e/gap)
				}
			}
			if math.Abs(pg.TotalVariance-tr) > e {
				t.Errorf("total variance %v, trace %v", pg.TotalVariance, tr)
			}
			// The projection of the training rows is uncorrelated.
			Cy, _ := covariance(y[:n*K], n, K)
			for a := range K {
				for b := range a {
					bound := e
					if strings.HasPrefix(string(steps[len(steps)-1]), "pca-whiten") {
						bound = e / math.Sqrt(pg.Variances[a]*pg.Variances[b])
					}
					if math.Abs(Cy[a*K+b]) > bound {
						t.Errorf("covariance of components %d and %d is %v", a+1, b+1, Cy[a*K+b])
					}
				}
			}
		})
	}
	t.Run("more components than the rows span", func(t *testing.T) {
		// 40 centred rows span 39 directions: component 40 has no variance at all (not that of another component).
		if _, err := FitScaler(x, n, d, []Step{"pca:40"}); err == nil || !strings.Contains(err.Error(), "span only 39 directions") ||
			!strings.Contains(err.Error(), "component 40 has variance 0)") {
			t.Errorf("pca:40 on 40 rows: %v", err)
		}
		if _, err := FitScaler(x, n, d, []Step{"pca:39"}); err != nil {
			t.Errorf("pca:39 on 40 rows: %v", err)
		}
	})
}

// TestTransform checks that Transform returns what Apply leaves in a copy of the rows, bit for bit, and does not
// modify its input, for chains with and without a PCA step.
func TestTransform(t *testing.T) {
	const n, d = 300, 6
	x := correlated(9, n, d)
	for _, chain := range []string{"none", "standardize", "maxscale,pca:3", "standardize,pca-whiten:0.9", "pca:6"} {
		t.Run(chain, func(t *testing.T) {
			steps, err := ParseSteps(chain)
			if err != nil {
				t.Fatal(err)
			}
			s, err := FitScaler(x, n, d, steps)
			if err != nil {
				t.Fatal(err)
			}
			in := slices.Clone(x)
			got := s.Transform(in, n, d)
			if !slices.Equal(in, x) {
				t.Fatal("Transform modified its input")
			}
			want := slices.Clone(x)
			s.Apply(want, n, d)
			want = want[:n*s.OutDim()]
			if len(got) != len(want) {
				t.Fatalf("len = %d, want %d", len(got), len(want))
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("value %d: Transform %v, Apply %v", i, got[i], want[i])
				}
			}
		})
	}
}
