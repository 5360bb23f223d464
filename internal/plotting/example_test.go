package plotting_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/internal/plotting"
)

// Save a log-log figure of an error against the number of points, with
// error bars, as PNG; the same call with ".svg" or ".pdf" writes that format.
func ExampleSave() {
	dir, err := os.MkdirTemp("", "plotting-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	f := plotting.Figure{
		Title:  "Kernel approximation error",
		XLabel: "D (number of points; 2D features)",
		YLabel: "relative error",
		LogX:   true,
		LogY:   true,
		Series: []plotting.Series{{
			Name: "iid Gaussian",
			X:    []float64{64, 128, 256, 512},
			Y:    []float64{0.12, 0.085, 0.06, 0.042},
			Lo:   []float64{0.09, 0.066, 0.047, 0.034},
			Hi:   []float64{0.15, 0.104, 0.073, 0.05},
		}},
	}
	path := filepath.Join(dir, "error.png")
	if err := plotting.Save(path, f); err != nil {
		log.Fatal(err)
	}
	fi, err := os.Stat(path)
	fmt.Println(fi.Name(), err == nil && fi.Size() > 0)
	// Output: error.png true
}

// The table behind a figure: one row per point, lo and hi empty when a
// series has no interval.
func ExampleWriteCSV() {
	f := plotting.Figure{Series: []plotting.Series{
		{Name: "G", X: []float64{16, 32}, Y: []float64{0.25, 0.18}, Lo: []float64{0.2, 0.15}, Hi: []float64{0.3, 0.21}},
		{Name: "SR-butterfly", X: []float64{16, 32}, Y: []float64{0.03, 0.008}},
	}}
	if err := plotting.WriteCSV(os.Stdout, f); err != nil {
		log.Fatal(err)
	}
	// Output:
	// series,x,y,lo,hi
	// G,16,0.25,0.2,0.3
	// G,32,0.18,0.15,0.21
	// SR-butterfly,16,0.03,,
	// SR-butterfly,32,0.008,,
}
