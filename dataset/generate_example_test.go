package dataset_test

import (
	"fmt"
	"log"
	"math"
	"strings"

	"github.com/rffkit/rff/dataset"
)

func ExampleGenerators() {
	fmt.Println(dataset.Generators())
	// Output: [curl-field multitask]
}

// Generate dispatches by name; the same seed gives the same data on every run.
func ExampleGenerate() {
	a, err := dataset.Generate("curl-field", 1000, 42, 0.1)
	if err != nil {
		log.Fatal(err)
	}
	b, _ := dataset.Generate("curl-field", 1000, 42, 0.1)
	fmt.Println(a.N, a.D, a.P, a.Names, a.TargetNames)
	fmt.Println("deterministic:", fmt.Sprint(a.Y) == fmt.Sprint(b.Y))
	_, err = dataset.Generate("spiral", 10, 1, 0)
	fmt.Println(err)
	// Output:
	// 1000 5 5 [x1 x2 x3 x4 x5] [y1 y2 y3 y4 y5]
	// deterministic: true
	// unknown generator "spiral" (want one of curl-field, multitask)
}

// The curl-free field: inputs in [−1,1]⁵, targets the gradient of a random potential. Noise leaves the inputs as
// they are.
func ExampleGenerateCurlField() {
	clean, _ := dataset.GenerateCurlField(500, 1, 0)
	noisy, _ := dataset.GenerateCurlField(500, 1, 0.5)
	var lo, hi, ss float64
	for i, v := range clean.X {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if noisy.X[i] != v {
			log.Fatal("inputs differ")
		}
	}
	for i := range clean.Y {
		e := noisy.Y[i] - clean.Y[i]
		ss += e * e
	}
	fmt.Printf("inputs in [%.0f, %.0f], noise sd %.1f\n", lo, hi, math.Sqrt(ss/float64(len(clean.Y))))
	// Output: inputs in [-1, 1], noise sd 0.5
}

// The R²⁰ → R⁴ multi-task data: y = Wφ(x) with φ built from x₁…x₅ only.
func ExampleGenerateMultitask() {
	g, _ := dataset.GenerateMultitask(100000, 7, 0)
	fmt.Println(g.N, "rows,", g.D, "inputs,", g.P, "outputs")
	// Output: 100000 rows, 20 inputs, 4 outputs
}

// WriteCSV writes a header and exact values; `rff generate` uses it.
func ExampleGenerated_WriteCSV() {
	g, _ := dataset.GenerateMultitask(3, 1, 0)
	var sb strings.Builder
	if err := g.WriteCSV(&sb); err != nil {
		log.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(sb.String()), "\n")
	fmt.Println(lines[0])
	fmt.Println(len(lines)-1, "data lines of", strings.Count(lines[1], ",")+1, "fields")

	// The file reads back with ReadCSV; pick one output as the target.
	d, err := dataset.ReadCSV(strings.NewReader(sb.String()), "multitask.csv", "y2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.N, d.D, d.TargetName, d.Y[0] == g.Y[1])
	// Output:
	// x1,x2,x3,x4,x5,x6,x7,x8,x9,x10,x11,x12,x13,x14,x15,x16,x17,x18,x19,x20,y1,y2,y3,y4
	// 3 data lines of 24 fields
	// 3 23 y2 true
}

// Output gives one output column as a single-target Data.
func ExampleGenerated_Output() {
	g, _ := dataset.GenerateCurlField(10, 3, 0)
	d, _ := g.Output(2)
	fmt.Println(d.N, d.D, d.TargetName, d.Y[4] == g.Y[4*g.P+2])
	// Output: 10 5 y3 true
}
