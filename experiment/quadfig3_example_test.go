package experiment_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/experiment"
	"github.com/rffkit/rff/rule"
)

// The wall-time study of the quadrature paper's Figure 3 on the shared datasets (LETTER, USPS, MNIST and LEUKEMIA,
// d = 16 … 7129): mean seconds to map 1000 rows with D = 2(d+1) points, for G, ORF, GQ and SR-butterfly. `rff repro
// quad-fig3` runs the same study from the command line.
func ExampleQuadFig3() {
	rules, err := rule.ParseList("g,orf,gq,sr-butterfly")
	if err != nil {
		log.Fatal(err)
	}
	q := experiment.QuadFig3{DataDir: "../../shared/data", Rules: rules, N: 1, Rows: 1000, Runs: 10, Seed: 1}
	timings, err := q.Run(context.Background())
	if err != nil {
		log.Fatal(err) // wraps experiment.ErrNoData without the shared data
	}
	for _, t := range timings {
		fmt.Printf("%-8s d=%-5d %-12s D=%-6d %.4fs per map (%.0f rows/s)\n", t.Dataset, t.Dim, t.Rule, t.D, t.Mean, t.RowsPerSecond)
	}
	if _, err := experiment.WriteQuadFig3("docs/figures", timings); err != nil {
		log.Fatal(err)
	}
}

// WriteQuadFig3 draws the figure (log-log: seconds against d, one line per rule) and writes its table and the
// timings beside it.
func ExampleWriteQuadFig3() {
	dir, err := os.MkdirTemp("", "quad-fig3")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	timings := []experiment.Timing{
		{Dataset: "letter", Dim: 16, Rule: "g", N: 1, D: 34, Rows: 1000, Runs: 3, Mean: 0.0011, CI95: [2]float64{0.001, 0.0012}},
		{Dataset: "letter", Dim: 16, Rule: "sr-butterfly", N: 1, D: 34, Rows: 1000, Runs: 3, Mean: 0.0009, CI95: [2]float64{0.0008, 0.001}},
		{Dataset: "leukemia", Dim: 7129, Rule: "g", N: 1, D: 14260, Rows: 1000, Runs: 3, Mean: 2.5, CI95: [2]float64{2.4, 2.6}},
		{Dataset: "leukemia", Dim: 7129, Rule: "sr-butterfly", N: 1, D: 14260, Rows: 1000, Runs: 3, Mean: 0.21, CI95: [2]float64{0.2, 0.22}},
	}
	paths, err := experiment.WriteQuadFig3(dir, timings)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "quad-fig3.csv"))
	fmt.Print(string(csv))
	// Output:
	// quad-fig3.png
	// quad-fig3.csv
	// quad-fig3.json
	// series,x,y,lo,hi
	// g,16,0.0011,0.001,0.0012
	// g,7129,2.5,2.4,2.6
	// sr-butterfly,16,0.0009,0.0008,0.001
	// sr-butterfly,7129,0.21,0.2,0.22
}
