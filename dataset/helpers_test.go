package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gz compresses b.
func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeTemp writes b to a file called name in a fresh temporary directory.
func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// encodeIDX writes values in IDX format with element type typ.
func encodeIDX(typ byte, dims []int, vals []float64) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, typ, byte(len(dims))})
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, uint32(d))
	}
	for _, v := range vals {
		switch typ {
		case idxUint8:
			b.WriteByte(uint8(v))
		case idxInt8:
			b.WriteByte(byte(int8(v)))
		case idxInt16:
			binary.Write(&b, binary.BigEndian, int16(v))
		case idxInt32:
			binary.Write(&b, binary.BigEndian, int32(v))
		case idxFloat32:
			binary.Write(&b, binary.BigEndian, float32(v))
		case idxFloat64:
			binary.Write(&b, binary.BigEndian, v)
		}
	}
	return b.Bytes()
}

// checkErr fails unless err is a one-line error containing every want.
func checkErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans several lines: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
}

// checkData checks the invariants every successfully read Data satisfies.
func checkData(t testing.TB, d *Data) {
	t.Helper()
	if d.N < 1 || d.D < 1 || len(d.X) != d.N*d.D {
		t.Fatalf("N=%d D=%d len(X)=%d", d.N, d.D, len(d.X))
	}
	if len(d.Names) != d.D {
		t.Fatalf("len(Names)=%d, D=%d", len(d.Names), d.D)
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("X[%d] = %v", i, v)
		}
	}
	if d.Y == nil {
		if d.Labels != nil || d.TargetName != "" {
			t.Fatalf("no Y but Labels %v, TargetName %q", d.Labels, d.TargetName)
		}
		return
	}
	if len(d.Y) != d.N {
		t.Fatalf("len(Y)=%d, N=%d", len(d.Y), d.N)
	}
	for i, v := range d.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("Y[%d] = %v", i, v)
		}
		if d.Labels != nil && (v != math.Trunc(v) || v < 0 || int(v) >= len(d.Labels)) {
			t.Fatalf("Y[%d] = %v is not an index into %d labels", i, v, len(d.Labels))
		}
	}
	for k := 1; k < len(d.Labels); k++ {
		if d.Labels[k-1] >= d.Labels[k] {
			t.Fatalf("Labels not sorted and distinct: %q", d.Labels)
		}
	}
}

// setMaxDense sets maxDense and returns a function that restores it.
func setMaxDense(n int) func() {
	old := maxDense
	maxDense = n
	return func() { maxDense = old }
}
