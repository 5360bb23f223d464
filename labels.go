package rff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rffkit/rff/dataset"
)

// labelCoder maps raw target strings to class indices, the one way every fit codes classes: string labels are
// sorted as strings; numeric targets are classes named by their shortest 'g' form and sorted numerically.
type labelCoder struct {
	labels  []string
	numeric bool
	index   map[string]int // label → class
}

// newLabelCoder builds the coder of the distinct raw targets raw; numeric says that every target is a number.
func newLabelCoder(raw []string, numeric bool) *labelCoder {
	c := &labelCoder{numeric: numeric, index: map[string]int{}}
	if numeric {
		vals := make([]float64, 0, len(raw))
		for _, s := range raw {
			v, _ := strconv.ParseFloat(strings.TrimSpace(s), 64)
			vals = append(vals, v)
		}
		slices.Sort(vals)
		for _, v := range slices.Compact(vals) {
			c.labels = append(c.labels, strconv.FormatFloat(v, 'g', -1, 64))
		}
	} else {
		c.labels = slices.Compact(slices.Sorted(slices.Values(raw)))
	}
	for k, l := range c.labels {
		c.index[l] = k
	}
	return c
}

// coderOf returns the coder of a data set's targets.
func coderOf(data *dataset.Data) *labelCoder {
	if data.Labels != nil {
		return newLabelCoder(data.Labels, false)
	}
	raw := make([]string, len(data.Y))
	for i, y := range data.Y {
		raw[i] = strconv.FormatFloat(y, 'g', -1, 64)
	}
	return newLabelCoder(raw, true)
}

// class returns the class of the raw target s.
func (c *labelCoder) class(s string) (int, bool) {
	if c.numeric {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0, false
		}
		s = strconv.FormatFloat(v, 'g', -1, 64)
	}
	k, ok := c.index[s]
	return k, ok
}

// targetString is the raw target of row i of data.
func targetString(data *dataset.Data, i int) string {
	if data.Labels != nil {
		return data.Labels[int(data.Y[i])]
	}
	return strconv.FormatFloat(data.Y[i], 'g', -1, 64)
}

// classesOf codes the targets of data with the labels of a model.
func classesOf(data *dataset.Data, labels []string) ([]int, error) {
	idx := make(map[string]int, len(labels))
	for k, l := range labels {
		idx[l] = k
	}
	out := make([]int, data.N)
	for i := range out {
		s := targetString(data, i)
		k, ok := idx[s]
		if !ok {
			return nil, fmt.Errorf("row %d: label %q was not seen in training (labels: %s)", i+1, s, strings.Join(labels, ", "))
		}
		out[i] = k
	}
	return out, nil
}
