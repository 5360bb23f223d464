package study

import (
	"fmt"
	"testing"
)

func TestParseDerivCase(t *testing.T) {
	for _, c := range []struct {
		in   string
		d    int
		p, q []int
		str  string
	}{
		{"e1:0", 2, []int{1, 0}, []int{0, 0}, "e1:0"},
		{"e1:e1", 2, []int{1, 0}, []int{1, 0}, "e1:e1"},
		{" e1 : e2 ", 2, []int{1, 0}, []int{0, 1}, "e1:e2"},
		{"2e1:0", 1, []int{2}, []int{0}, "2e1:0"},
		{"e1+e3:e2+e2", 3, []int{1, 0, 1}, []int{0, 2, 0}, "e1+e3:2e2"},
	} {
		dc, err := ParseDerivCase(c.in, c.d)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if fmt.Sprint(dc.P) != fmt.Sprint(c.p) || fmt.Sprint(dc.Q) != fmt.Sprint(c.q) || dc.String() != c.str {
			t.Errorf("%q: p=%v q=%v %q, want %v %v %q", c.in, dc.P, dc.Q, dc.String(), c.p, c.q, c.str)
		}
	}
	for _, in := range []string{"e1", "e3:0", "e0:0", "x1:0", "e1:-e1", "0e1:0", "e1.5:0", "e:0", "ee1:0"} {
		if _, err := ParseDerivCase(in, 2); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// Derivative cases are written p:q with multi-indices as sums of unit vectors.
func ExampleParseDerivCase() {
	c, err := ParseDerivCase("e1:e2", 2)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.P, c.Q, c)
	// Output: [1 0] [0 1] e1:e2
}
