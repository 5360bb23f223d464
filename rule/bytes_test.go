package rule

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestDrawBytes: the estimate covers what a draw of one block and a projection of one row allocate (but for small
// bookkeeping), its held part
// is at least the realization's points or parameters, and it is not a gross overestimate (within 3× of the
// allocation for the rules that draw d×d rotations, whose scratch dominates).
func TestDrawBytes(t *testing.T) {
	machineMemory() // read once per process (a Draw checks its estimate against it), not part of a draw's memory
	for _, c := range []struct {
		r    Rule
		d, D int
		even bool
	}{
		{G{}, 100, 50, true}, {QMC{}, 40, 100, true}, {GQ{}, 40, 100, true},
		{ORF{}, 200, 1, true}, {ORF{}, 200, 200, true},
		{SR{Rotation: Haar}, 200, 1, true}, {SR{Rotation: Haar}, 200, 1, false},
		{SORF{}, 200, 1, true}, {SORF{Blocks: 5}, 100, 300, true},
		{SR{}, 200, 1, true}, {SR{}, 200, 500, false},
	} {
		held, scratch := DrawBytes(c.r, c.d, c.D, c.even)
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		p, err := c.r.Draw(c.d, c.D, c.even, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		p.Project(make([]float64, p.Len()), make([]float64, c.d), 1)
		runtime.ReadMemStats(&b)
		got := int64(b.TotalAlloc - a.TotalAlloc - uint64(8*(p.Len()+c.d))) // less the slices of the projection
		// Within 10% and 8 KiB: headers, the random source and the small arrays the estimate leaves out.
		if float64(got) > 1.1*float64(held+scratch)+8<<10 || held < int64(8*p.Len()) {
			t.Errorf("%s, d = %d, D = %d: estimated %d + %d bytes, allocated %d", c.r.Name(), c.d, c.D, held, scratch, got)
		}
		if dp, ok := p.(*densePoints); ok && held < int64(8*len(dp.W)) {
			t.Errorf("%s: held %d bytes, the points take %d", c.r.Name(), held, 8*len(dp.W))
		}
		if _, orf := c.r.(ORF); (orf || c.r == SR{Rotation: Haar}) && held+scratch > 3*got {
			t.Errorf("%s, d = %d, D = %d: estimated %d + %d bytes, 3 times the %d allocated", c.r.Name(), c.d, c.D, held, scratch, got)
		}
	}
	// Sizes beyond any realization saturate instead of overflowing; sizes below 1 cost nothing.
	for _, r := range []Rule{G{}, ORF{}, SORF{}, SR{}, SR{Rotation: Haar}} {
		if held, scratch := DrawBytes(r, 1<<24, math.MaxInt, false); held != math.MaxInt64/2 || scratch < 0 {
			t.Errorf("%s: %d + %d bytes for MaxInt points", r.Name(), held, scratch)
		}
		for _, d := range []int{1<<62 + 1, math.MaxInt} { // past the int powers of two: no loop, no overflow
			if held, scratch := DrawBytes(r, d, 1, true); held != math.MaxInt64/2 || scratch < 0 {
				t.Errorf("%s: %d + %d bytes in dimension %d", r.Name(), held, scratch, d)
			}
		}
		if held, scratch := DrawBytes(r, 0, 10, true); held != 0 || scratch != 0 {
			t.Errorf("%s: %d + %d bytes in dimension 0", r.Name(), held, scratch)
		}
	}
}

// TestDrawBeyondMemory: a draw whose estimate exceeds the machine's memory is refused before anything is allocated,
// for every rule — after the rule's own checks, whose messages say more — and a draw that fits is not.
func TestDrawBeyondMemory(t *testing.T) {
	defer func(f func() int64) { machineMemory = f }(machineMemory)
	machineMemory = func() int64 { return 4 << 20 } // 4 MiB
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range []Rule{G{}, ORF{}, SORF{}, QMC{}, GQ{}, SR{}, SR{Rotation: Haar}} {
		if _, err := r.Draw(100, 1000000, true, rng); err == nil || !strings.Contains(err.Error(), "more than this machine's memory") {
			t.Errorf("%s: a million points in dimension 100 with 4 MiB: %v", r.Name(), err)
		}
		if _, err := r.Draw(4, 16, true, rng); err != nil {
			t.Errorf("%s: a small draw: %v", r.Name(), err)
		}
	}
	if _, err := (SORF{Blocks: 1 << 40}).Draw(3, 8, true, rng); err == nil || !strings.Contains(err.Error(), "Hadamard blocks") {
		t.Errorf("the rule's own limit first: %v", err)
	}
}
