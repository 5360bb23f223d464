// Command modeldiff compares two model files fitted to the same rows by different engines (scripts/identity.sh):
//
//	modeldiff [--target COL] [--tol 1e-10] A.rff B.rff DATA.csv
//
// It prints the largest difference of the predictions on DATA (relative to the largest prediction of B), whether
// the predicted classes agree, and the relative differences of the weights and intercepts next to the rounding bound
// of package modelcmp; it exits 1 when a difference exceeds its tolerance, 2 on bad arguments.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/distributed/beam/internal/modelcmp"
)

func main() {
	target := flag.String("target", "", "target column of DATA: first, last (default), a header name or a 1-based index")
	tol := flag.Float64("tol", 1e-10, "largest difference of the predictions allowed, relative to the largest prediction")
	flag.Parse()
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: modeldiff [--target COL] [--tol 1e-10] A.rff B.rff DATA.csv")
		os.Exit(2)
	}
	a, err := os.ReadFile(flag.Arg(0))
	check(err)
	b, err := os.ReadFile(flag.Arg(1))
	check(err)
	data, err := dataset.Load(flag.Arg(2), dataset.Options{Target: *target})
	check(err)
	d, err := modelcmp.Compare(a, b, data)
	check(err)
	fmt.Println(d)
	if err := d.Check(*tol); err != nil {
		fmt.Fprintln(os.Stderr, "modeldiff:", err)
		os.Exit(1)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "modeldiff:", err)
		os.Exit(2)
	}
}
