package serve

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
)

// TestLoadFileMemory: a model file is streamed into the model, never held whole: loading allocates about the file's
// length once, and an unchanged file found again by a reload is hashed, not decoded (next to nothing allocated).
func TestLoadFileMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime allocates besides")
	}
	X := make([]float64, 1500*3)
	Y := make([]float64, 1500)
	for i := range Y {
		for j := range 3 {
			X[3*i+j] = math.Sin(float64(7*i + 3*j + 1))
		}
		Y[i] = math.Cos(X[3*i]) + X[3*i+1]*X[3*i+2]
	}
	m, err := rff.Fit(rff.Config{Points: 512, Rule: "g", Lambda: 1e-3, Sigma: 1, Uncertainty: true}, &dataset.Data{X: X, Y: Y, N: 1500, D: 3})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.rff")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(fi.Size()) // the F×F posterior factor, 8 MiB, is most of it
	s, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocated := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	var e *entry
	got := allocated(func() { e, _, err = s.loadFile("big", path, nil) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first load: %d bytes for a %d-byte file", got, size)
	if bound := size + size/16 + 2<<20; got > bound {
		t.Errorf("loading a %d-byte model allocated %d bytes (%.2f×), want at most %d", size, got, float64(got)/float64(size), bound)
	}
	var again *entry
	got = allocated(func() { again, _, err = s.loadFile("big", path, e) })
	if err != nil || again != e {
		t.Fatalf("reloading the unchanged file: %v, same entry %v", err, again == e)
	}
	if got > 1<<20 {
		t.Errorf("reloading the unchanged file allocated %d bytes", got)
	}
}
