package nystrom

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/rffkit/rff/internal/blocks"
	"github.com/rffkit/rff/internal/size"
	"github.com/rffkit/rff/kernel"
)

// A Selector chooses M landmarks among the rows of a data set.
type Selector interface {
	// Name is the selector's command-line name ("uniform", "kmeans++", "leverage").
	Name() string
	// Select returns the indices of M distinct rows of X (n×d, row-major), chosen with the random stream of seed:
	// the same arguments give the same indices on every run and core count (on one linear-algebra backend). k is
	// the kernel the landmarks are for; selectors that do not need it ignore it.
	Select(k kernel.Kernel, X []float64, n, d, M int, seed uint64) ([]int, error)
}

// Random streams of the selectors (the second argument of rand.NewPCG), so that one seed gives independent draws to
// different selectors.
const (
	streamUniform  = 0x6e79_0001
	streamKMeansPP = 0x6e79_0002
	streamLeverage = 0x6e79_0003
)

// Uniform chooses M rows uniformly at random without replacement: the classical Nyström method, and the centres
// FALKON's preconditioner is designed for.
type Uniform struct{}

// Name returns "uniform".
func (Uniform) Name() string { return "uniform" }

// Select returns M distinct row indices, uniformly at random among the subsets of size M, in increasing order.
func (Uniform) Select(k kernel.Kernel, X []float64, n, d, M int, seed uint64) ([]int, error) {
	if err := checkSelect("uniform", k, X, n, d, M); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, streamUniform))
	return uniformSample(rng, n, M), nil
}

// uniformSample returns M distinct indices of [0, n) (a partial Fisher–Yates shuffle), sorted.
func uniformSample(rng *rand.Rand, n, M int) []int {
	if M >= n {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	// A partial shuffle over a sparse map of displaced entries: O(M) memory.
	moved := make(map[int]int, M)
	at := func(i int) int {
		if v, ok := moved[i]; ok {
			return v
		}
		return i
	}
	out := make([]int, M)
	for i := range M {
		j := i + rng.IntN(n-i)
		vi, vj := at(i), at(j)
		out[i] = vj
		moved[j] = vi
	}
	slices.Sort(out)
	return out
}

// checkSelect validates the arguments every selector shares.
func checkSelect(name string, k kernel.Kernel, X []float64, n, d, M int) error {
	if k == nil {
		return fmt.Errorf("nystrom: %s selection: nil kernel", name)
	}
	if n < 1 {
		return fmt.Errorf("nystrom: %s selection: no rows", name)
	}
	if M < 1 || M > n {
		return fmt.Errorf("nystrom: %s selection: M = %d landmarks must be between 1 and the %d rows", name, M, n)
	}
	return blocks.CheckX("nystrom: "+name+" selection", X, n, d)
}

// Gather returns the rows idx of X (n×d) as a len(idx)×d matrix: the landmarks chosen by a Selector.
func Gather(X []float64, n, d int, idx []int) ([]float64, error) {
	if d < 1 || n < 0 || !size.Is(len(X), n, d) {
		return nil, fmt.Errorf("nystrom.Gather: len X = %d is not n×d = %d×%d", len(X), n, d)
	}
	out := make([]float64, len(idx)*d)
	for r, i := range idx {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("nystrom.Gather: index %d out of range [0, %d)", i, n)
		}
		copy(out[r*d:(r+1)*d], X[i*d:(i+1)*d])
	}
	return out, nil
}

// SelectorByName returns the selector called name: "uniform", "kmeans++" (alias "kmeanspp") or "leverage" (with
// the automatic λ of Leverage).
func SelectorByName(name string) (Selector, error) {
	switch name {
	case "uniform":
		return Uniform{}, nil
	case "kmeans++", "kmeanspp":
		return KMeansPP{}, nil
	case "leverage", "rls":
		return Leverage{}, nil
	}
	return nil, fmt.Errorf("nystrom: unknown landmark selection %q (have uniform, kmeans++, leverage)", name)
}
