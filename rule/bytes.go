package rule

import (
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/size"
)

// haarFloats is the number of float64 values a Haar rotation of dimension d allocates, in units of d²: the Gaussian
// matrix and its QR factorization, Q, R and the sign-fixed copy, and the factorization's work arrays (measured: 6.2).
const haarFloats = 7

// DrawBytes estimates, before anything is drawn, the memory of r.Draw(d, D, even, ·) and of one Project call on the
// realization it returns: held is what the realization keeps (its points, or a structured rule's parameters, and
// its weights); scratch is the most it allocates besides at once: for orf and sr-haar the d×d arrays of a Haar
// rotation, which they draw whole even for a single point (about 7·d² values), and for sr-haar its simplex products;
// for sorf and sr-butterfly the buffers of a block of rows they project (O(d) per row of the block). Both are
// bytes, saturating at math.MaxInt64/2 instead of overflowing; a rule of another type is estimated as a dense
// realization of D points.
func DrawBytes(r Rule, d, D int, even bool) (held, scratch int64) {
	if d < 1 || D < 1 {
		return 0, 0
	}
	dd, n := float64(d), float64(D)
	var h, s float64 // in float64 values
	switch r := r.(type) {
	case ORF:
		h = n*dd + n
		s = haarFloats * dd * dd
	case SORF:
		k := r.Blocks
		if k <= 0 {
			k = 3
		}
		p := nextPow2(d)
		blocks := math.Ceil(n / p)
		h = blocks*float64(k)*p + n // the sign vectors and the weights
		s = 2 * p * batch           // a block of rows and its transform
	case SR:
		m, per := dd+1, dd+1
		if !even {
			per *= 2
		}
		rules := math.Ceil(n / per) // r.Rules, without its overflow for a D near math.MaxInt
		pts := rules * per
		h = pts + rules*m // the weights and the radii
		if r.Rotation == Haar {
			h += pts * dd
			s = haarFloats*dd*dd + 2*dd*m // the rotation, the simplex and its product with the rotation
		} else {
			p := nextPow2(d)
			// Per rule three butterflies (cosines and sines, a permutation, random signs); drawing one needs a unit
			// vector of n values; projecting, four d×batch blocks.
			h += rules * rotationFactors * (2*(p-1) + 2*dd)
			s = p + (4*dd+1)*batch
		}
	default: // G, QMC, GQ and any other rule: the dense points
		h = n*dd + n
	}
	return floatBytes(h), floatBytes(s)
}

// floatBytes is the bytes of v float64 values, saturating at math.MaxInt64/2.
func floatBytes(v float64) int64 {
	if b := 8 * v; b < math.MaxInt64/2 {
		return int64(b)
	}
	return math.MaxInt64 / 2
}

// nextPow2 is the smallest power of two ≥ d ≥ 1 as a float64: structured.NextPow2 without its int range, for
// estimates that must not overflow (or loop) for any d.
func nextPow2(d int) float64 { return math.Exp2(float64(bits.Len(uint(max(d, 1) - 1)))) }

// machineMemory is dataset.MachineMemory, read once; tests replace it.
var machineMemory = sync.OnceValue(dataset.MachineMemory)

// checkMemory refuses, once r's own parameters are known to be valid and before anything is allocated, a draw whose
// estimate (DrawBytes) exceeds the machine's memory and swap: allocating it would end in the runtime's fatal
// out-of-memory error rather than an error (a structured rule's vectors grow with d rounded up to a power of two,
// whatever D).
func checkMemory(r Rule, d, D int, even bool) error {
	mem := machineMemory()
	if mem <= 0 {
		return nil
	}
	if held, scratch := DrawBytes(r, d, D, even); held+scratch > mem {
		return fmt.Errorf("rule %s: %d points in dimension %d need about %s, more than this machine's memory and swap (%s)",
			r.Name(), D, d, size.Format(held+scratch), size.Format(mem))
	}
	return nil
}
