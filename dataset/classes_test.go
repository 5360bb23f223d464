package dataset

import (
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
