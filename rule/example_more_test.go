package rule_test

import (
	"fmt"

	"github.com/rffkit/rff/rule"
)

// ExampleDrawBytes estimates, before drawing anything, the memory of D = 4096 points for inputs of d = 784 pixels
// (MNIST), as a fit does to check its memory budget: a dense rule holds its D×d points; orf holds as much and draws
// each d×d Haar rotation whole besides; the structured sr-butterfly rule holds only its butterfly parameters and
// radii.
func ExampleDrawBytes() {
	const d, D = 784, 4096
	const MiB = 1 << 20
	for _, name := range []string{"g", "orf", "sr-butterfly"} {
		r, err := rule.Parse(name)
		if err != nil {
			panic(err)
		}
		held, scratch := rule.DrawBytes(r, d, D, true)
		fmt.Printf("%-12s held %.4g MiB, scratch %.4g MiB\n", name, float64(held)/MiB, float64(scratch)/MiB)
	}
	g, _ := rule.DrawBytes(rule.G{}, d, D, true)
	fmt.Println("g holds (D·d + D) float64s:", g == 8*(D*d+D))
	sr, _ := rule.DrawBytes(rule.SR{Rotation: rule.Butterfly}, d, D, true)
	fmt.Println("sr-butterfly holds under a tenth of that:", 10*sr < g)
	// Output:
	// g            held 24.53 MiB, scratch 0 MiB
	// orf          held 24.53 MiB, scratch 32.83 MiB
	// sr-butterfly held 0.5682 MiB, scratch 1.54 MiB
	// g holds (D·d + D) float64s: true
	// sr-butterfly holds under a tenth of that: true
}
