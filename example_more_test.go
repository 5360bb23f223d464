package rff_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/rffkit/rff"
)

// CheckTargetMagnitude checks regression targets, rows of one value per named target, before their squares enter
// the ridge statistics: it names the first target beyond 1e100 in magnitude (or NaN) by its row, counted from the
// rows checked before, and returns nil when every target is usable or no target is named.
func ExampleCheckTargetMagnitude() {
	Y := []float64{ // three rows of two targets
		0.5, 12,
		-1.5, 40,
		2.0, math.NaN(),
	}
	targets := []string{"load", "price"}
	err := rff.CheckTargetMagnitude(Y, targets, 1000)
	fmt.Println(err)
	if me, ok := errors.AsType[*rff.MagnitudeError](err); ok {
		fmt.Println("row:", me.Row)
	}
	fmt.Println(rff.CheckTargetMagnitude(Y[:4], targets, 1000))
	fmt.Println(rff.CheckTargetMagnitude(Y, nil, 0))
	// Output:
	// row 1003, target price is NaN: too large for the ridge statistics (sums of its square would overflow); rescale the targets
	// row: 1003
	// <nil>
	// <nil>
}
