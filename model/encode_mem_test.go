package model

import (
	"bytes"
	"runtime"
	"testing"
)

// TestEncodeOneBuffer: Encode allocates the file's bytes once, at their size — not a growing buffer (which holds
// up to twice the file while it copies) and a copy of every array — so that a model with a large array (a
// posterior's F×F factor) is held about twice, not four times, while it is written; and its bytes are the layout's.
func TestEncodeOneBuffer(t *testing.T) {
	const P = 50000 // points: Theta alone is 2P×2 values, 1.6 MB
	m := sample()
	m.Header.Points, m.Header.Features = P, 2*P
	m.Theta, m.Probe = make([]float64, 2*P*2), make([]float64, 2*P)
	m.Points = map[string][]float64{"points": make([]float64, P*2)}
	m.Scale, m.Weights = make([]float64, P), make([]float64, P)
	for i := range m.Theta {
		m.Theta[i] = float64(i)
	}
	for i := range P {
		m.Scale[i], m.Weights[i] = 0.5, 1/float64(P)
	}
	want := encodeRaw(t, m)
	var got []byte
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	got, err := Encode(m)
	runtime.ReadMemStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("Encode's bytes differ from the layout")
	}
	if alloc := b.TotalAlloc - a.TotalAlloc; alloc > uint64(len(got))+64<<10 {
		t.Errorf("Encode allocated %d bytes for a file of %d", alloc, len(got))
	}
}
