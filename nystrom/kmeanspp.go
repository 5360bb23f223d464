package nystrom

import (
	"math"
	"math/rand/v2"

	"github.com/rffkit/rff/internal/parallel"
	"github.com/rffkit/rff/kernel"
)

// KMeansPP chooses landmarks by k-means++ seeding (Arthur & Vassilvitskii 2007, "k-means++: the advantages of careful
// seeding") in the input space: the first landmark is a row drawn uniformly, and each next one is drawn with
// probability proportional to D²(x), the squared Euclidean distance from x to the nearest landmark already chosen.
// Far-apart landmarks spread over the data, which is what makes a Nyström approximation good (Zhang, Tsang & Kwok
// 2008 use k-means centres for the same reason). Rows at distance 0 from a landmark are never drawn while others
// remain; when every remaining row coincides with a landmark, the next ones are drawn uniformly among the rows not
// yet chosen (the map then drops the repeated directions, see [Map]).
//
// The cost is O(n·M·d) operations (the distances to each new landmark, in parallel over the rows) and O(n) memory.
type KMeansPP struct{}

// Name returns "kmeans++".
func (KMeansPP) Name() string { return "kmeans++" }

// kmBlock is the number of rows whose distances one work item updates.
const kmBlock = 512

// Select returns the indices of M distinct rows in the order they were chosen.
func (KMeansPP) Select(k kernel.Kernel, X []float64, n, d, M int, seed uint64) ([]int, error) {
	if err := checkSelect("kmeans++", k, X, n, d, M); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, streamKMeansPP))
	chosen := make([]bool, n)
	out := make([]int, 0, M)
	dist := make([]float64, n)
	first := rng.IntN(n)
	out, chosen[first] = append(out, first), true
	nb := (n + kmBlock - 1) / kmBlock
	update := func(c int, init bool) {
		xc := X[c*d : (c+1)*d]
		parallel.For(nb, 0, func(b int) {
			for i := b * kmBlock; i < min(n, (b+1)*kmBlock); i++ {
				xi := X[i*d : (i+1)*d]
				var s float64
				for j, v := range xi {
					t := v - xc[j]
					s += t * t
				}
				if init || s < dist[i] {
					dist[i] = s
				}
			}
		})
	}
	update(first, true)
	for len(out) < M {
		var total float64
		for _, v := range dist {
			total += v
		}
		next := -1
		switch {
		case math.IsInf(total, 1):
			// Squared distances beyond the largest float64 (finite inputs near 1e154 apart): D² sampling gives them
			// all the weight, and ties them; draw uniformly among them (the cumulative sum could not reach u).
			var inf []int
			for i, v := range dist {
				if math.IsInf(v, 1) {
					inf = append(inf, i)
				}
			}
			next = inf[rng.IntN(len(inf))]
		case total > 0:
			u := rng.Float64() * total
			var cum float64
			last := -1
			for i, v := range dist {
				if v <= 0 {
					continue
				}
				last = i
				cum += v
				if cum > u {
					next = i
					break
				}
			}
			if next < 0 { // u rounded up to the total
				next = last
			}
		default:
			// Every row left coincides with a landmark: draw uniformly among the rows not yet chosen.
			r := rng.IntN(n - len(out))
			for i, c := range chosen {
				if c {
					continue
				}
				if r == 0 {
					next = i
					break
				}
				r--
			}
		}
		out, chosen[next] = append(out, next), true
		dist[next] = 0
		if len(out) < M {
			update(next, false)
		}
	}
	return out, nil
}
