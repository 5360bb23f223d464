package study

import (
	"fmt"
	"strings"

	"github.com/rffkit/rff/kernel"
)

// DerivCase is one kernel derivative ∂^{p,q}k = ∂^{|p|}/∂x^p ∂^{|q|}/∂y^q k(x,y); nil multi-indices are zero.
type DerivCase struct {
	P []int `json:"p"`
	Q []int `json:"q"`
}

// String writes the case in the notation of ParseDerivCase, e.g. "e1:e1+e2" or "2e1:0".
func (c DerivCase) String() string { return multiIndexString(c.P) + ":" + multiIndexString(c.Q) }

func multiIndexString(p []int) string {
	var parts []string
	for i, v := range p {
		switch {
		case v == 1:
			parts = append(parts, fmt.Sprintf("e%d", i+1))
		case v > 1:
			parts = append(parts, fmt.Sprintf("%de%d", v, i+1))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "+")
}

// ParseDerivCase reads a case "p:q" for inputs of dimension d, each multi-index written as a sum of unit vectors
// with optional multiplicities, or 0: "e1:0" is ∂/∂x₁, "e1:e2" is ∂²/∂x₁∂y₂, "2e1:0" is ∂²/∂x₁², "e1+e2:e1" is
// ∂³/∂x₁∂x₂∂y₁. The order |p| + |q| may not exceed kernel.MaxDerivOrder.
func ParseDerivCase(s string, d int) (DerivCase, error) {
	pt, qt, err := parseDerivTerms(s, d)
	if err != nil {
		return DerivCase{}, err
	}
	return DerivCase{P: multiIndex(pt, d), Q: multiIndex(qt, d)}, nil
}

// checkDerivCase checks a case as ParseDerivCase reads it, without building its multi-indices of length d.
func checkDerivCase(s string, d int) error {
	_, _, err := parseDerivTerms(s, d)
	return err
}

// derivTerm is k·e_i (i 0-based).
type derivTerm struct{ i, k int }

// parseDerivTerms reads the terms of the two multi-indices of a case and checks their order.
func parseDerivTerms(s string, d int) (p, q []derivTerm, err error) {
	ps, qs, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return nil, nil, fmt.Errorf("derivative case %q: want p:q, e.g. e1:0 or e1:e2", s)
	}
	if p, err = parseMultiIndexSum(ps, d); err != nil {
		return nil, nil, fmt.Errorf("derivative case %q: %w", s, err)
	}
	if q, err = parseMultiIndexSum(qs, d); err != nil {
		return nil, nil, fmt.Errorf("derivative case %q: %w", s, err)
	}
	order := 0
	for _, t := range append(append([]derivTerm(nil), p...), q...) {
		if t.k > kernel.MaxDerivOrder-order {
			return nil, nil, fmt.Errorf("derivative case %q: order above %d", s, kernel.MaxDerivOrder)
		}
		order += t.k
	}
	return p, q, nil
}

// multiIndex is the multi-index of length d that is the sum of terms.
func multiIndex(terms []derivTerm, d int) []int {
	out := make([]int, d)
	for _, t := range terms {
		out[t.i] += t.k
	}
	return out
}

func parseMultiIndexSum(s string, d int) ([]derivTerm, error) {
	s = strings.TrimSpace(s)
	if s == "0" || s == "" {
		return nil, nil
	}
	var out []derivTerm
	for _, term := range strings.Split(s, "+") {
		term = strings.TrimSpace(term)
		mult, idx, ok := strings.Cut(term, "e")
		if !ok {
			return nil, fmt.Errorf("term %q is not of the form [k]e<i>", term)
		}
		k := 1
		if mult != "" {
			if _, err := fmt.Sscanf(mult, "%d", &k); err != nil || k < 1 || fmt.Sprint(k) != mult {
				return nil, fmt.Errorf("bad multiplicity in %q", term)
			}
		}
		var i int
		if _, err := fmt.Sscanf(idx, "%d", &i); err != nil || fmt.Sprint(i) != idx {
			return nil, fmt.Errorf("bad coordinate in %q", term)
		}
		if i < 1 || i > d {
			return nil, fmt.Errorf("coordinate e%d outside 1…%d", i, d)
		}
		out = append(out, derivTerm{i - 1, k})
	}
	return out, nil
}

func multiOrder(p []int) int {
	n := 0
	for _, v := range p {
		n += v
	}
	return n
}
