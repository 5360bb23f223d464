package rule

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStoreRestore: every rule's realization, stored and restored, projects the same bits, for even and odd
// integrands and dimensions that are and are not powers of two.
func TestStoreRestore(t *testing.T) {
	for _, name := range append(Names(), "gq:3") {
		for _, d := range []int{1, 3, 4, 7} {
			for _, even := range []bool{true, false} {
				r, _ := Parse(name)
				p, err := r.Draw(d, 20, even, rand.New(rand.NewPCG(3, uint64(d))))
				if err != nil {
					t.Fatal(err)
				}
				s := Store(p)
				q, err := Restore(s)
				if err != nil {
					t.Fatalf("%s d=%d: %v", name, d, err)
				}
				const rows = 5
				x := make([]float64, rows*d)
				for i := range x {
					x[i] = math.Sin(float64(i + 1))
				}
				a, b := make([]float64, rows*p.Len()), make([]float64, rows*q.Len())
				p.Project(a, x, rows)
				q.Project(b, x, rows)
				for i := range a {
					if a[i] != b[i] {
						t.Fatalf("%s d=%d even=%v: projection %d is %v restored, %v drawn", name, d, even, i, b[i], a[i])
					}
				}
				if q.Zero() != p.Zero() {
					t.Errorf("%s: zero node %v restored, %v drawn", name, q.Zero(), p.Zero())
				}
				wantKind := map[string]string{"sorf": "sorf", "sr-butterfly": "sr-butterfly"}[name]
				if wantKind == "" {
					wantKind = "dense"
				}
				if s.Kind != wantKind {
					t.Errorf("%s stored as %s", name, s.Kind)
				}
			}
		}
	}
}

// TestRestoreRejects: a stored form whose fields contradict each other is an error, never a panic.
func TestRestoreRejects(t *testing.T) {
	sr, _ := SR{}.Draw(3, 8, true, rand.New(rand.NewPCG(1, 1)))
	so, _ := SORF{}.Draw(3, 8, true, rand.New(rand.NewPCG(1, 1)))
	g, _ := G{}.Draw(3, 8, true, rand.New(rand.NewPCG(1, 1)))
	tests := []struct {
		name string
		p    Points
		edit func(s *Stored)
	}{
		{"unknown kind", g, func(s *Stored) { s.Kind = "spiral" }},
		{"short points", g, func(s *Stored) { s.Arrays["points"] = s.Arrays["points"][1:] }},
		{"NaN point", g, func(s *Stored) { s.Arrays["points"][0] = math.NaN() }},
		{"weights length", g, func(s *Stored) { s.Weights = s.Weights[1:] }},
		{"extra array", g, func(s *Stored) { s.Arrays["rho"] = []float64{1} }},
		{"sorf sign 0", so, func(s *Stored) { s.Arrays["signs"][0] = 0 }},
		{"sorf signs length", so, func(s *Stored) { s.Arrays["signs"] = s.Arrays["signs"][1:] }},
		{"sorf weight", so, func(s *Stored) { s.Weights[0] = 0.5 }},
		{"sr radius", sr, func(s *Stored) { s.Arrays["rho"][0] = -1 }},
		{"sr weight vs radius", sr, func(s *Stored) { s.Weights[0] *= 2 }},
		{"sr zero node", sr, func(s *Stored) { s.Zero += 0.1 }},
		{"sr permutation", sr, func(s *Stored) { s.Arrays["perm"][0] = s.Arrays["perm"][1] }},
		{"sr permutation range", sr, func(s *Stored) { s.Arrays["perm"][0] = 7 }},
		{"sr angle", sr, func(s *Stored) { s.Arrays["cos"][0] = 2 }},
		{"sr signs", sr, func(s *Stored) { s.Arrays["signs"][0] = 0.5 }},
		{"sr missing", sr, func(s *Stored) { delete(s.Arrays, "sin") }},
		{"points count", sr, func(s *Stored) { s.Len++ }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Store(tc.p)
			tc.edit(&s)
			if _, err := Restore(s); err == nil {
				t.Error("restored")
			}
		})
	}
}

// TestDrawMisuse: a missing random source, impossible sizes and dimensions too large for d×d rotations are errors.
func TestDrawMisuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, name := range append(Names(), "gq:3") {
		r, _ := Parse(name)
		if _, err := r.Draw(3, 4, true, nil); err == nil {
			t.Errorf("%s: nil random source accepted", name)
		}
		if _, err := r.Draw(1<<32, 1<<32, true, rng); err == nil {
			t.Errorf("%s: 2^64 values accepted", name)
		}
	}
	for _, r := range []Rule{ORF{}, SR{Rotation: Haar}} {
		if _, err := r.Draw(MaxSquareDim+1, 1, true, rng); err == nil {
			t.Errorf("%s: a %d×%d rotation accepted", r.Name(), MaxSquareDim+1, MaxSquareDim+1)
		}
	}
}

// TestNilPoints: Dense and Store describe nil points (nil, or a nil pointer in the interface) by zero values instead
// of dereferencing them, and Restore refuses what Store gives for them.
func TestNilPoints(t *testing.T) {
	var typed *densePoints
	for _, p := range []Points{nil, typed} {
		if w := Dense(p); w != nil {
			t.Errorf("Dense(%#v) = %v", p, w)
		}
		s := Store(p)
		if s.Len != 0 || s.Arrays != nil {
			t.Errorf("Store(%#v) = %+v", p, s)
		}
		if _, err := Restore(s); err == nil {
			t.Errorf("Restore accepted the store of %#v", p)
		}
	}
}
