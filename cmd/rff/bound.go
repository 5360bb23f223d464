package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rffkit/rff/bound"
)

// parseMultiIndex parses a comma list of non-negative integers ("" means nil).
func parseMultiIndex(s, what string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, usagef("%s: %q is not a non-negative integer", what, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// maxBoundPoints is the largest -D that bound takes: 2^53, the largest point count the bounds solve for (where
// float64 stops counting integers), so that the 2D cos/sin columns are counted exactly too.
const maxBoundPoints = 1 << 53

// theoremFlags lists the flags that only some theorems read, with what they are and the theorems that read them;
// any other theorem would ignore them, so they are refused there.
var theoremFlags = map[string]struct{ what, theorems string }{
	"p":              {"derivative multi-index p", "ss-deriv ss-deriv-bounded ss-deriv-unbounded"},
	"q":              {"derivative multi-index q", "ss-deriv ss-deriv-bounded ss-deriv-unbounded"},
	"lambda0":        {"λ₀ = λ/n", "krr"},
	"sigma-y":        {"bound σ_y on the targets", "krr"},
	"features":       {"feature choice", "krr"},
	"ovk":            {"operator-valued kernel", "orff"},
	"outputs":        {"output count of a decomposable kernel", "orff"},
	"norm-a":         {"‖A‖₂ of a decomposable kernel", "orff"},
	"exact-variance": {"exact V[A] of the div-free kernel", "orff"},
}

// checkTheoremFlags refuses the flags set that the theorem would ignore (see theoremFlags), and the orff flags of
// another operator-valued kernel than the one chosen.
func checkTheoremFlags(set map[string]bool, theorem, ovk string) error {
	names := make([]string, 0, len(set))
	for name := range set {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		tf, ok := theoremFlags[name]
		if !ok || slices.Contains(strings.Fields(tf.theorems), theorem) {
			continue
		}
		return usagef("--%s is the %s of --theorem %s, not of %s; leave it out", name, tf.what,
			strings.Join(strings.Fields(tf.theorems), ", "), theorem)
	}
	if theorem != "orff" {
		return nil
	}
	kind := strings.ToLower(strings.TrimSpace(ovk))
	dec := kind == "decomposable" || kind == "dec"
	div := kind == "div-free" || kind == "div" || kind == "divfree" || kind == "divergence-free"
	if kind == "" {
		ovk = "curl-free (the default)"
	}
	switch {
	case (set["outputs"] || set["norm-a"]) && !dec:
		return usagef("--outputs and --norm-a describe --ovk decomposable, not %s; leave them out", ovk)
	case set["exact-variance"] && !div:
		return usagef("--exact-variance changes the variance of --ovk div-free only, not of %s; leave it out", ovk)
	}
	return nil
}

func runBound(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bound", stdout, "--theorem NAME --d D --diameter S (--eps E | -D M) [--delta P] [flags]")
	theorem := fs.String("theorem", "ss-linf", "bound: "+strings.Join(bound.Names(), "|"))
	var p bound.Params
	fs.IntVar(&p.Dim, "d", 0, "input dimension d")
	fs.Float64Var(&p.Diameter, "diameter", 0, "diameter |S| of the set the inputs live in")
	fs.StringVar(&p.Kernel, "kernel", "gaussian", "kernel whose spectral law gives the constants: gaussian, laplacian, matern, matern12|32|52, cauchy, sinc")
	fs.Float64Var(&p.Sigma, "sigma", 0, "kernel bandwidth σ (default sqrt(d/2), i.e. γ = 1/d)")
	fs.Float64Var(&p.Nu, "nu", 0, "Matérn smoothness ν (--kernel matern)")
	fs.Float64Var(&p.Eps, "eps", 0, "target error ε: solve for the number of points")
	fs.IntVar(&p.M, "D", 0, "number of points (frequencies; 2D cos/sin columns), at most 2^53: solve for the error")
	fs.Float64Var(&p.Delta, "delta", 0.05, "failure probability δ: the guarantee holds with probability ≥ 1 − δ")
	fs.Float64Var(&p.R, "r", 2, "exponent r ≥ 1 of the L^r norm (ss-lr)")
	pStr := fs.String("p", "", "derivative multi-index p for ss-deriv, comma list of d integers (e.g. 1,0)")
	qStr := fs.String("q", "", "derivative multi-index q for ss-deriv")
	fs.StringVar(&p.OVK, "ovk", "", "operator-valued kernel for orff: curl-free (default), div-free, decomposable")
	fs.IntVar(&p.Outputs, "outputs", 0, "outputs p of a decomposable kernel (orff)")
	fs.Float64Var(&p.NormA, "norm-a", 0, "‖A‖₂ of a decomposable kernel (orff; default 1)")
	fs.Float64Var(&p.Lambda0, "lambda0", 0, "λ₀ = λ/n of kernel ridge regression (krr)")
	fs.Float64Var(&p.SigmaY, "sigma-y", 0, "bound σ_y on the targets (krr; default 1)")
	fs.StringVar(&p.Features, "features", "", "krr: sr (Proposition 3.1, default) or rff")
	fs.BoolVar(&p.ExactVariance, "exact-variance", false, "orff: use the exact V[A] of the div-free kernel, 3(d−1)/σ⁴, instead of the printed d(4d−3)/σ⁴")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !slices.Contains(bound.Names(), *theorem) {
		return usagef("--theorem %q: want one of %s", *theorem, strings.Join(bound.Names(), ", "))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case set["eps"] && !(p.Eps > 0) || math.IsInf(p.Eps, 0):
		return usagef("--eps must be a positive error, got %v", p.Eps)
	case set["D"] && p.M < 1:
		return usagef("-D must be at least 1 point, got %d", p.M)
	case set["D"] && p.M > maxBoundPoints:
		return usagef("-D %d is more points than the bounds count (at most 2^53 = %d)", p.M, maxBoundPoints)
	case set["eps"] == set["D"]:
		return usagef("give exactly one of --eps (solve for D) and -D (solve for the error)")
	}
	if p.Eps < 0 || p.M < 0 || math.IsNaN(p.Eps) {
		return usagef("--eps and -D must be positive")
	}
	switch {
	case set["sigma-y"] && (!(p.SigmaY > 0) || math.IsInf(p.SigmaY, 0)):
		return usagef("--sigma-y must be a positive finite bound on the targets, got %v (leave it out for 1, standardized targets)", p.SigmaY)
	case set["outputs"] && p.Outputs < 1:
		return usagef("--outputs must be at least 1, got %d (leave it out for 1)", p.Outputs)
	case set["norm-a"] && (!(p.NormA > 0) || math.IsInf(p.NormA, 0)):
		return usagef("--norm-a must be a positive finite ‖A‖₂, got %v (leave it out for 1)", p.NormA)
	case set["sigma"] && (!(p.Sigma > 0) || math.IsInf(p.Sigma, 0)):
		return usagef("--sigma must be a positive bandwidth, got %v (leave it out for σ = sqrt(d/2))", p.Sigma)
	case set["sigma"] && !(float64(max(p.Dim, 1))/(p.Sigma*p.Sigma) > 0 && p.Sigma*p.Sigma < math.Inf(1) && p.Sigma*p.Sigma > 0):
		return usagef("--sigma %v: its square (and d/σ², the frequencies' second moment) over- or underflows floating point; give a bandwidth between 1e-150 and 1e150", p.Sigma)
	case set["nu"] && strings.ToLower(strings.TrimSpace(p.Kernel)) != "matern":
		if strings.HasPrefix(strings.ToLower(strings.TrimSpace(p.Kernel)), "matern") {
			return usagef("--nu is the smoothness of --kernel matern, not of %s, whose ν is fixed by its name; leave --nu out", p.Kernel)
		}
		return usagef("--nu is the smoothness of --kernel matern, not of %s", p.Kernel)
	case set["r"] && *theorem != "ss-lr":
		return usagef("--r is the exponent of the L^r norm of --theorem ss-lr, not of %s", *theorem)
	}
	if err := checkTheoremFlags(set, *theorem, p.OVK); err != nil {
		return err
	}
	var err error
	if p.P, err = parseMultiIndex(*pStr, "--p"); err != nil {
		return err
	}
	if p.Q, err = parseMultiIndex(*qStr, "--q"); err != nil {
		return err
	}
	g, err := bound.Compute(*theorem, p)
	if err != nil {
		return usageError{err.Error()}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(g)
	}
	fmt.Fprintln(stdout, g.String())
	fmt.Fprintf(stdout, "source:  %s\nformula: %s\n", g.Source, g.Formula)
	printMap(stdout, "inputs: ", g.Inputs)
	printMap(stdout, "derived:", g.Derived)
	for _, n := range g.Notes {
		fmt.Fprintf(stdout, "note:    %s\n", n)
	}
	return nil
}

func printMap(w io.Writer, label string, m map[string]float64) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s = %.6g", k, m[k])
	}
	fmt.Fprintf(w, "%s %s\n", label, strings.Join(parts, ", "))
}
