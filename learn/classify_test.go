package learn

import (
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
)

// blobs draws n points of d dimensions in K classes: class c is N(μ_c, s²I) with μ_c on a circle of radius 1 in the
// first two coordinates. Labels cycle through the classes.
func blobs(n, d, K int, s float64, seed uint64) (X []float64, labels []int) {
	rng := rand.New(rand.NewPCG(seed, 11))
	X = make([]float64, n*d)
	labels = make([]int, n)
	for i := range n {
		c := i % K
		labels[i] = c
		for j := range d {
			X[i*d+j] = s * rng.NormFloat64()
		}
		X[i*d] += math.Cos(2 * math.Pi * float64(c) / float64(K))
		X[i*d+1] += math.Sin(2 * math.Pi * float64(c) / float64(K))
	}
	return X, labels
}

// svmPrimalDual returns the primal objective ½‖w‖² + C Σ ℓ(y_i w·z̃_i) and the dual objective
// Σα − ½‖Σα_i y_i z̃_i‖² − ½ΣD̄_ii α_i² of one binary SVM, z̃ = (z, 1).
func svmPrimalDual(Z []float64, n, F int, y, w, alpha []float64, C float64, squared bool) (primal, dual float64) {
	v := make([]float64, F+1)
	for i := range n {
		for j := range F {
			v[j] += alpha[i] * y[i] * Z[i*F+j]
		}
		v[F] += alpha[i] * y[i]
	}
	var ww, vv, sa, sa2, loss float64
	for j := range F + 1 {
		ww += w[j] * w[j]
		vv += v[j] * v[j]
	}
	for i := range n {
		f := w[F]
		for j := range F {
			f += w[j] * Z[i*F+j]
		}
		h := math.Max(0, 1-y[i]*f)
		if squared {
			h *= h
		}
		loss += h
		sa += alpha[i]
		sa2 += alpha[i] * alpha[i]
	}
	primal = ww/2 + C*loss
	dual = sa - vv/2
	if squared {
		dual -= sa2 / (4 * C)
	}
	return primal, dual
}

// svmProblem is a binary SVM problem on overlapping classes (some α_i at the bound C): the features Z (n×F), the
// labels y = ±1 and sq_i = ‖z_i‖² + 1.
func svmProblem(t *testing.T) (Z []float64, n, F int, y, sq []float64) {
	t.Helper()
	const d, D = 3, 40
	n = 300
	X, labels := blobs(n, d, 2, 0.6, 1)
	m := gaussMap(t, d, D, 1, 2)
	Z, F = features(t, m, X, n), m.Features()
	y, sq = make([]float64, n), make([]float64, n)
	for i := range n {
		y[i] = float64(2*labels[i] - 1)
		for j := range F {
			sq[i] += Z[i*F+j] * Z[i*F+j]
		}
		sq[i]++
	}
	return Z, n, F, y, sq
}

// TestSVMDualityGap checks that dual coordinate descent reaches the SVM optimum: the primal and dual objectives
// agree (strong duality holds for these convex quadratic problems), and w = Σ α_i y_i z̃_i.
func TestSVMDualityGap(t *testing.T) {
	Z, n, F, y, sq := svmProblem(t)
	for _, loss := range []Loss{Hinge, SquaredHinge} {
		for _, lambda := range []float64{1e-2, 1e-4} {
			c := Classifier{Loss: loss, Lambda: lambda, Tol: 1e-10, MaxIter: 100000, Seed: 3}
			C := 1 / (2 * float64(n) * lambda)
			w, res := c.dualCD(Z, n, F, y, sq, C, 0, nil, c.step)
			p, dd := svmPrimalDual(Z, n, F, y, w, res.alpha, C, loss == SquaredHinge)
			if gap := (p - dd) / math.Abs(p); !(gap >= -1e-9 && gap < 1e-7) {
				t.Errorf("%v λ=%g: primal %.12g, dual %.12g, relative gap %.3g after %d epochs", loss, lambda, p, dd, gap, res.epochs)
			}
			if loss == Hinge {
				bound := 0
				for _, a := range res.alpha {
					if a < 0 || a > C*(1+1e-12) {
						t.Fatalf("α = %g outside [0, C = %g]", a, C)
					}
					if a == C {
						bound++
					}
				}
				if bound == 0 {
					t.Errorf("%v λ=%g: no α at the bound C on overlapping classes; the box constraint was not exercised", loss, lambda)
				}
			}
		}
	}
}

// TestWarmStartReachesColdOptimum: dual coordinate descent started from the dual variables of a larger λ (scaled
// to the new box) reaches the optimum it reaches from zero. Each run's duality gap G = P(w) − D(α) bounds
// P(w) − P(w*), and the primal ½‖w̃‖² + C·loss is 1-strongly convex, so ‖w̃ − w̃*‖ ≤ √(2G): the two solutions lie
// within √(2G_warm) + √(2G_cold) of each other. Both gaps must also be small, or the bound would say nothing.
func TestWarmStartReachesColdOptimum(t *testing.T) {
	Z, n, F, y, sq := svmProblem(t)
	for _, loss := range []Loss{Hinge, SquaredHinge} {
		t.Run(loss.String(), func(t *testing.T) {
			const l1, l2 = 1e-2, 1e-4
			c := Classifier{Loss: loss, Tol: 1e-10, MaxIter: 100000, Seed: 3}
			C1, C2 := 1/(2*float64(n)*l1), 1/(2*float64(n)*l2)
			_, r1 := c.dualCD(Z, n, F, y, sq, C1, 0, nil, c.step)
			a0 := make([]float64, n)
			for i, a := range r1.alpha {
				a0[i] = a * C2 / C1
			}
			wWarm, rWarm := c.dualCD(Z, n, F, y, sq, C2, 0, a0, c.step)
			wCold, rCold := c.dualCD(Z, n, F, y, sq, C2, 0, nil, c.step)
			pw, dw := svmPrimalDual(Z, n, F, y, wWarm, rWarm.alpha, C2, loss == SquaredHinge)
			pc, dc := svmPrimalDual(Z, n, F, y, wCold, rCold.alpha, C2, loss == SquaredHinge)
			gw, gc := pw-dw, pc-dc
			for _, g := range []struct {
				name    string
				gap, pr float64
			}{{"warm", gw, pw}, {"cold", gc, pc}} {
				if !(g.gap >= -1e-9*math.Abs(g.pr) && g.gap < 1e-7*math.Abs(g.pr)) {
					t.Fatalf("%s start: duality gap %.3g of primal %.6g", g.name, g.gap, g.pr)
				}
			}
			var dist float64
			for j := range wWarm {
				dist += (wWarm[j] - wCold[j]) * (wWarm[j] - wCold[j])
			}
			dist = math.Sqrt(dist)
			if bound := math.Sqrt(2*max(gw, 0)) + math.Sqrt(2*max(gc, 0)); !(dist <= bound) {
				t.Errorf("‖w̃_warm − w̃_cold‖ = %.3g > %.3g", dist, bound)
			}
			t.Logf("epochs: warm %d, cold %d", rWarm.epochs, rCold.epochs)
		})
	}
}

// TestSquaredHingeGradient checks the primal optimality condition of the (differentiable) squared-hinge SVM in the
// package's λ convention: ∇[(1/N)Σ max(0, 1 − y f)² + λ‖w̃‖²] = 0, with w̃ = (Θ, b) since the bias is regularised.
func TestSquaredHingeGradient(t *testing.T) {
	const n, d, D = 250, 2, 30
	X, labels := blobs(n, d, 2, 0.5, 4)
	m := gaussMap(t, d, D, 0.8, 5)
	Z := features(t, m, X, n)
	F := m.Features()
	const lambda = 1e-3
	fit, err := Classifier{Loss: SquaredHinge, Lambda: lambda, Tol: 1e-11, MaxIter: 100000}.Fit(Z, n, F, labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, F+1)
	for j := range F {
		w[j] = fit.Theta[j*2+1]
		if fit.Theta[j*2] != -w[j] {
			t.Fatalf("two-class scores are not ±f: column 0 = %g, column 1 = %g", fit.Theta[j*2], w[j])
		}
	}
	w[F] = fit.Bias[1]
	g := make([]float64, F+1)
	for i := range n {
		yi := float64(2*labels[i] - 1)
		f := w[F]
		for j := range F {
			f += w[j] * Z[i*F+j]
		}
		if h := 1 - yi*f; h > 0 {
			for j := range F {
				g[j] += -2 * yi * h * Z[i*F+j] / n
			}
			g[F] += -2 * yi * h / n
		}
	}
	var gn, wn float64
	for j := range g {
		g[j] += 2 * lambda * w[j]
		gn += g[j] * g[j]
		wn += (2 * lambda * w[j]) * (2 * lambda * w[j])
	}
	if r := math.Sqrt(gn / wn); r > 1e-6 {
		t.Errorf("relative gradient norm %.3g at the squared-hinge optimum", r)
	}
}

// logisticGradient is the gradient of (1/N)Σ −log softmax(Θᵀz_i + b)_{y_i} + λ‖Θ‖², written with plain loops.
func logisticGradient(Z []float64, n, F, K int, labels []int, lambda float64, fit *Fit) []float64 {
	g := make([]float64, F*K+K)
	for i := range n {
		s := make([]float64, K)
		mx := math.Inf(-1)
		for k := range K {
			s[k] = fit.Bias[k]
			for j := range F {
				s[k] += fit.Theta[j*K+k] * Z[i*F+j]
			}
			mx = math.Max(mx, s[k])
		}
		var sum float64
		for k := range K {
			s[k] = math.Exp(s[k] - mx)
			sum += s[k]
		}
		for k := range K {
			r := s[k] / sum
			if k == labels[i] {
				r--
			}
			for j := range F {
				g[j*K+k] += r * Z[i*F+j] / float64(n)
			}
			g[F*K+k] += r / float64(n)
		}
	}
	for j := range F * K {
		g[j] += 2 * lambda * fit.Theta[j]
	}
	return g
}

// TestLogisticGradient checks that L-BFGS stops at a stationary point of the multinomial logistic objective (which
// is strictly convex in Θ, so this is the optimum), for two and for several classes.
func TestLogisticGradient(t *testing.T) {
	for _, K := range []int{2, 4} {
		const n, d, D = 240, 2, 25
		X, labels := blobs(n, d, K, 0.5, uint64(10+K))
		m := gaussMap(t, d, D, 0.8, 6)
		Z := features(t, m, X, n)
		F := m.Features()
		const lambda = 1e-3
		fit, err := Classifier{Loss: Logistic, Lambda: lambda, Tol: 1e-9, MaxIter: 5000}.Fit(Z, n, F, labels, K)
		if err != nil {
			t.Fatal(err)
		}
		g := logisticGradient(Z, n, F, K, labels, lambda, fit)
		var gmax, tmax float64
		for j, v := range g {
			gmax = math.Max(gmax, math.Abs(v))
			if j < F*K {
				tmax = math.Max(tmax, math.Abs(2*lambda*fit.Theta[j]))
			}
		}
		if gmax > 1e-6*tmax {
			t.Errorf("K=%d: largest gradient entry %.3g, largest regulariser gradient %.3g (%d iterations)", K, gmax, tmax, fit.Stats.Iterations)
		}
	}
}

// TestClassifierLearnsXOR checks that every loss separates the XOR pattern, which no linear classifier on the inputs
// can: with Gaussian features the Bayes error is 0 (the quadrants are 0.2 apart), so on 400 test points an
// accuracy below 0.95 means ≥ 20 mistakes, far outside the behaviour of a working learner.
func TestClassifierLearnsXOR(t *testing.T) {
	xor := func(n int, seed uint64) ([]float64, []int) {
		rng := rand.New(rand.NewPCG(seed, 3))
		X := make([]float64, 2*n)
		l := make([]int, n)
		for i := range n {
			a, b := rng.Float64()*0.9+0.1, rng.Float64()*0.9+0.1
			if rng.IntN(2) == 0 {
				a = -a
			}
			if rng.IntN(2) == 0 {
				b = -b
			}
			X[2*i], X[2*i+1] = a, b
			if a*b > 0 {
				l[i] = 1
			}
		}
		return X, l
	}
	Xtr, ltr := xor(800, 1)
	Xte, lte := xor(400, 2)
	m := gaussMap(t, 2, 100, 0.5, 7)
	for _, loss := range []Loss{Hinge, SquaredHinge, Logistic} {
		fit, err := Classifier{Loss: loss, Lambda: 1e-5, Seed: 1}.FitMap(m, Xtr, 800, ltr, 2)
		if err != nil {
			t.Fatal(err)
		}
		s := make([]float64, 400*2)
		if err := fit.PredictMap(s, m, Xte, 400); err != nil {
			t.Fatal(err)
		}
		correct := 0
		for i, c := range Argmax(s, 400, 2) {
			if c == lte[i] {
				correct++
			}
		}
		if acc := float64(correct) / 400; acc < 0.95 {
			t.Errorf("%v: XOR test accuracy %.3f", loss, acc)
		}
	}
}

// TestClassifierDeterministic checks that a fit depends only on its seed, not on the number of goroutines.
func TestClassifierDeterministic(t *testing.T) {
	X, labels := blobs(300, 3, 3, 0.6, 9)
	m := gaussMap(t, 3, 20, 1, 8)
	c := Classifier{Loss: Hinge, Lambda: 1e-3, Seed: 4}
	a, err := c.FitMap(m, X, 300, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.FitMap(m, X, 300, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Theta {
		if a.Theta[i] != b.Theta[i] {
			t.Fatalf("Theta[%d] differs between identical fits: %g vs %g", i, a.Theta[i], b.Theta[i])
		}
	}
	var calls atomic.Int64 // Progress is called from the one-vs-rest goroutines at once
	c.Progress = func(int) { calls.Add(1) }
	c.Seed = 5
	if _, err := c.FitMap(m, X, 300, labels, 3); err != nil {
		t.Fatal(err)
	}
	if calls.Load() == 0 {
		t.Error("Progress was never called")
	}
}

func TestClassifierErrors(t *testing.T) {
	m := gaussMap(t, 2, 10, 1, 1)
	X := []float64{0, 0, 1, 1, 2, 2}
	cases := []struct {
		name   string
		c      Classifier
		labels []int
		K      int
		want   string
	}{
		{"squared", Classifier{Loss: Squared, Lambda: 1}, []int{0, 1, 0}, 2, "use Ridge"},
		{"lambda0", Classifier{Loss: Hinge}, []int{0, 1, 0}, 2, "λ"},
		{"label", Classifier{Loss: Hinge, Lambda: 1}, []int{0, 2, 0}, 2, "outside"},
		{"count", Classifier{Loss: Logistic, Lambda: 1}, []int{0, 1}, 2, "labels for 3"},
		{"classes", Classifier{Loss: Logistic, Lambda: 1}, []int{0, 0, 0}, 1, "2 classes"},
		{"memory", Classifier{Loss: Hinge, Lambda: 1, MaxBytes: 64}, []int{0, 1, 0}, 2, "needs"},
	}
	for _, tc := range cases {
		_, err := tc.c.FitMap(m, X, 3, tc.labels, tc.K)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, s := range []string{"squared", "hinge", "squared-hinge", "logistic"} {
		l, err := ParseLoss(s)
		if err != nil || l.String() != s {
			t.Errorf("ParseLoss(%q) = %v, %v", s, l, err)
		}
	}
	if _, err := ParseLoss("huber"); err == nil {
		t.Error("ParseLoss accepted huber")
	}
}
