package dataset

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/internal/numparse"
)

// Classes codes class labels as indices, the one way every fit does: string labels are sorted as strings; numeric
// targets are classes named by their shortest 'g' form ("1", "2.5") and sorted numerically.
type Classes struct {
	// Labels are the class names in index order.
	Labels  []string
	numeric bool
	index   map[string]int
}

// NewClasses returns the classes of the distinct raw targets raw (as read from a file); numeric says that every
// target is a number.
func NewClasses(raw []string, numeric bool) *Classes {
	c := &Classes{numeric: numeric, index: map[string]int{}}
	if numeric {
		vals := make([]float64, 0, len(raw))
		for _, s := range raw {
			v, _ := numparse.ParseField(strings.TrimSpace(s), 64)
			vals = append(vals, v)
		}
		slices.Sort(vals)
		for _, v := range slices.Compact(vals) {
			c.Labels = append(c.Labels, ClassNumber(v))
		}
	} else {
		c.Labels = slices.Compact(slices.Sorted(slices.Values(raw)))
	}
	for k, l := range c.Labels {
		c.index[l] = k
	}
	return c
}

// ClassesOf returns the classes of d's targets (nil for a nil d, which has none).
func ClassesOf(d *Data) *Classes {
	if d == nil {
		return nil
	}
	if d.Labels != nil {
		return NewClasses(d.Labels, false)
	}
	raw := make([]string, len(d.Y))
	for i, y := range d.Y {
		raw[i] = strconv.FormatFloat(y, 'g', -1, 64)
	}
	return NewClasses(raw, true)
}

// ClassesNamed returns classes with the given labels in index order (e.g. those stored in a model).
func ClassesNamed(labels []string) *Classes {
	c := &Classes{Labels: labels, index: make(map[string]int, len(labels))}
	for k, l := range labels {
		c.index[l] = k
	}
	return c
}

// Class returns the index of the raw target s (0, false for a nil Classes, which has none).
func (c *Classes) Class(s string) (int, bool) {
	if c == nil {
		return 0, false
	}
	if c.numeric {
		v, err := numparse.ParseField(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, false
		}
		s = ClassNumber(v)
	}
	k, ok := c.index[s]
	return k, ok
}

// Code returns the class index of every row of d, or an error naming the first row whose label is not a class. It
// returns an error for a nil Classes or Data, and for a Data with fewer targets than rows (N < 0 or N > len(Y)).
func (c *Classes) Code(d *Data) ([]int, error) {
	switch {
	case c == nil:
		return nil, errors.New("dataset: Classes.Code: nil classes")
	case d == nil:
		return nil, errors.New("dataset: Classes.Code: nil data")
	case d.N < 0 || d.N > len(d.Y):
		return nil, fmt.Errorf("dataset: Classes.Code: the data have %d targets for %d rows", len(d.Y), d.N)
	}
	out := make([]int, d.N)
	for i := range out {
		s := d.Target(i)
		k, ok := c.index[s]
		if !ok {
			return nil, fmt.Errorf("row %d: label %q was not seen in training (classes: %s)", i+1, s, strings.Join(c.Labels, ", "))
		}
		out[i] = k
	}
	return out, nil
}

// Target returns the target of row i as text: its label, or the number in its shortest 'g' form; "" for a row
// without a target (a nil Data, Y nil, or i out of range).
func (d *Data) Target(i int) string {
	if d == nil || i < 0 || i >= len(d.Y) {
		return ""
	}
	if d.Labels != nil {
		if k := d.Y[i]; k >= 0 && k < float64(len(d.Labels)) && k == math.Trunc(k) {
			return d.Labels[int(k)]
		}
		return fmt.Sprintf("(not a label index: %v)", d.Y[i]) // a hand-built Data; Code then refuses it
	}
	return ClassNumber(d.Y[i])
}

// ClassNumber is the name of the numeric class v: its shortest 'g' form, −0 named as 0 (the same class: numerically
// equal targets are one class, whichever zero a file writes).
func ClassNumber(v float64) string {
	if v == 0 {
		v = 0 // +0
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
