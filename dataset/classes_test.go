package dataset

import (
	"math"
	"slices"
	"testing"
)

func TestClasses(t *testing.T) {
	num := &Data{N: 4, Y: []float64{10, 2, 2.5, 10}}
	c := ClassesOf(num)
	if !slices.Equal(c.Labels, []string{"2", "2.5", "10"}) { // numeric order, not "10" < "2"
		t.Fatalf("labels %v", c.Labels)
	}
	if k, err := c.Code(num); err != nil || !slices.Equal(k, []int{2, 0, 1, 2}) {
		t.Errorf("codes %v %v", k, err)
	}
	if k, ok := c.Class("2.50"); !ok || k != 1 {
		t.Errorf("raw 2.50: %d %v", k, ok)
	}
	str := &Data{N: 3, Y: []float64{1, 0, 1}, Labels: []string{"cat", "dog"}}
	if k, err := ClassesOf(str).Code(str); err != nil || !slices.Equal(k, []int{1, 0, 1}) {
		t.Errorf("string codes %v %v", k, err)
	}
	if _, err := ClassesNamed([]string{"cat"}).Code(str); err == nil {
		t.Error("an unseen label was coded")
	}
}

// TestClassesSignedZero: the targets 0 and −0 are one numeric class, named "0", whichever a file writes (the class
// was named "-0" and the label "0" was then not found: 'label "0" was not seen in training').
func TestClassesSignedZero(t *testing.T) {
	c := NewClasses([]string{"-0", "0", "1"}, true)
	if !slices.Equal(c.Labels, []string{"0", "1"}) {
		t.Fatalf("labels %q, want [0 1]", c.Labels)
	}
	for _, s := range []string{"0", "-0", "0.0", "-0e5"} {
		if k, ok := c.Class(s); !ok || k != 0 {
			t.Errorf("Class(%q) = %d, %v", s, k, ok)
		}
	}
	d := &Data{N: 3, D: 1, X: []float64{1, 2, 3}, Y: []float64{math.Copysign(0, -1), 0, 1}}
	if got, err := ClassesOf(d).Code(d); err != nil || !slices.Equal(got, []int{0, 0, 1}) {
		t.Errorf("Code = %v, %v", got, err)
	}
}
