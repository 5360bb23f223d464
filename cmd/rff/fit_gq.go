package main

import (
	"fmt"
	"io"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/rule"
)

// noteGQFit prints one line on stderr after a fit on gq features: their estimate converges to the Gauss–Hermite
// grid's quadrature of the kernel, not to the kernel (docs/conventions.md §3.5), so the model carries a bias that no
// -D removes. It is a note, not an error; other fits print nothing.
func noteGQFit(stderr io.Writer, info rff.Info) {
	if info.Exact {
		return
	}
	r, err := rule.Parse(info.Rule)
	gq, ok := r.(rule.GQ)
	if err != nil || !ok {
		return
	}
	m := gq.Degree
	if m == 0 {
		m = 2
	}
	// The grid has m^d points: past that, draws repeat them and add no feature.
	repeat := ""
	if d := len(info.Inputs); d > 0 {
		n := 1
		for range d {
			if n *= m; n >= info.Points {
				break
			}
		}
		if n < info.Points {
			repeat = fmt.Sprintf("; in d = %d it has only %d points, so the %d drawn repeat them and the features have rank ≤ %d", d, n, info.Points, n)
		}
	}
	fmt.Fprintf(stderr, "rff fit: note: %s features approximate the degree-%d Gauss–Hermite grid's quadrature of the %s kernel, not the kernel: a bias that a larger -D does not remove (rff approx --rules %s prints it on your data as the gq bias floor)%s; to shrink it, %s\n",
		r.Name(), m, info.Kernel, r.Name(), repeat, largerDegree(m, "--rule gq:%d"))
}
