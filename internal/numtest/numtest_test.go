package numtest

import (
	"fmt"
	"math"
	"testing"
)

// TestRelDiff: values exact in binary (3-4-5 triangles), the b = 0 case, NaN propagation and mismatched lengths.
func TestRelDiff(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float64
		want float64
	}{
		{"equal", []float64{1, -2}, []float64{1, -2}, 0},
		{"3-4-5", []float64{3, 4 + 4}, []float64{0, 4}, 1.25}, // ‖(3, 4)‖/‖(0, 4)‖ = 5/4
		{"b = 0", []float64{3, 4}, []float64{0, 0}, 5},
		{"empty", nil, nil, 0},
		{"lengths", []float64{1}, []float64{1, 2}, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RelDiff(c.a, c.b); got != c.want {
				t.Errorf("RelDiff(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
	if got := RelDiff([]float64{math.NaN()}, []float64{1}); !math.IsNaN(got) {
		t.Errorf("RelDiff with a NaN = %v, want NaN", got)
	}
}

func ExampleRelDiff() {
	fmt.Println(RelDiff([]float64{3, 8}, []float64{0, 4}))
	// Output: 1.25
}
