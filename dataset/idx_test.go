package dataset

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// idxValues returns n random values exactly representable in IDX type typ.
func idxValues(rng *rand.Rand, typ byte, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch typ {
		case idxUint8:
			v[i] = float64(rng.IntN(256))
		case idxInt8:
			v[i] = float64(rng.IntN(256) - 128)
		case idxInt16:
			v[i] = float64(rng.IntN(1<<16) - 1<<15)
		case idxInt32:
			v[i] = float64(int32(rng.Uint32()))
		case idxFloat32:
			v[i] = float64(float32(rng.NormFloat64() * 1e3))
		case idxFloat64:
			v[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		}
	}
	// The extremes of each integer type.
	switch typ {
	case idxUint8:
		v[0], v[n-1] = 0, 255
	case idxInt8:
		v[0], v[n-1] = -128, 127
	case idxInt16:
		v[0], v[n-1] = math.MinInt16, math.MaxInt16
	case idxInt32:
		v[0], v[n-1] = math.MinInt32, math.MaxInt32
	}
	return v
}

func TestIDXRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, typ := range []byte{idxUint8, idxInt8, idxInt16, idxInt32, idxFloat32, idxFloat64} {
		for _, dims := range [][]int{{7}, {5, 3}, {4, 2, 3}, {3, 1, 2, 2}, {70000, 2}} {
			n := 1
			for _, d := range dims {
				n *= d
			}
			vals := idxValues(rng, typ, n)
			raw := encodeIDX(typ, dims, vals)
			name := fmt.Sprintf("type %#02x dims %v", typ, dims)

			x, gotDims, err := ReadIDX(bytes.NewReader(raw), "mem.idx")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(gotDims, dims) || !slices.Equal(x, vals) {
				t.Fatalf("%s: got dims %v, values equal %v", name, gotDims, slices.Equal(x, vals))
			}
			// Through a reader that gives no size hint, in small pieces.
			x, _, err = ReadIDX(onlyReader{bytes.NewReader(raw)}, "mem.idx")
			if err != nil || !slices.Equal(x, vals) {
				t.Fatalf("%s, plain reader: err %v, values equal %v", name, err, slices.Equal(x, vals))
			}

			// LoadIDX on gzip files (with and without .gz in the name) and labels.
			rows := dims[0]
			labels := idxValues(rng, idxUint8, rows)
			img := writeTemp(t, "images-idx3-ubyte.gz", gz(t, raw))
			lab := writeTemp(t, "labels-idx1-ubyte", gz(t, encodeIDX(idxUint8, []int{rows}, labels)))
			d, err := Load(img, Options{Labels: lab})
			if err != nil {
				t.Fatalf("%s: Load: %v", name, err)
			}
			checkData(t, d)
			if d.N != rows || d.D != n/rows || !slices.Equal(d.X, vals) || !slices.Equal(d.Y, labels) || d.TargetName != "label" {
				t.Fatalf("%s: Load got %d×%d, X equal %v, Y equal %v", name, d.N, d.D, slices.Equal(d.X, vals), slices.Equal(d.Y, labels))
			}
			// Without labels, uncompressed.
			d, err = LoadIDX(writeTemp(t, "x.idx", raw), "")
			if err != nil || d.Y != nil || !slices.Equal(d.X, vals) {
				t.Fatalf("%s: LoadIDX without labels: err %v, Y %v", name, err, d.Y)
			}
		}
	}
}

// onlyReader hides every method but Read.
type onlyReader struct{ r *bytes.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1000)]) }

func TestIDXErrors(t *testing.T) {
	opt := Options{MaxBytes: 8 << 20}
	good := encodeIDX(idxUint8, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		raw  []byte
		want []string
	}{
		{nil, []string{"m.idx: empty file"}},
		{[]byte{0, 0}, []string{"m.idx: truncated IDX file (in the header)"}},
		{[]byte{1, 2, 3, 4, 5}, []string{"m.idx: bad IDX magic number 01 02 03 04"}},
		{[]byte{0, 0, 0x0A, 1, 0, 0, 0, 1, 0}, []string{"m.idx: bad IDX magic number 00 00 0a 01"}},
		{[]byte{0, 0, 8, 0}, []string{"m.idx: bad IDX magic number"}},
		{good[:9], []string{"m.idx: truncated IDX file (in the dimensions)"}},
		{good[:len(good)-1], []string{"m.idx: truncated IDX file", "[3 2] needs 6 elements, got 5"}},
		{encodeIDX(idxInt32, []int{2}, []float64{1, 2})[:13], []string{"m.idx: truncated IDX file", "got 1"}},
		{encodeIDX(idxFloat32, []int{3}, []float64{1, math.NaN(), 3}), []string{"m.idx: element 1: NaN/Inf not allowed"}},
		{encodeIDX(idxFloat64, []int{2}, []float64{math.Inf(-1), 3}), []string{"m.idx: element 0: NaN/Inf not allowed"}},
		{encodeIDX(idxUint8, []int{1 << 16, 1 << 16}, nil), []string{"m.idx: the IDX array [65536 65536] needs at least 34359738368 bytes (32 GiB), over the memory budget of 8388608 bytes (8 MiB); set Options.MaxBytes"}},
		{encodeIDX(idxUint8, []int{1<<32 - 1, 1<<32 - 1, 1<<32 - 1}, nil), []string{"m.idx: IDX dimensions [4294967295 4294967295 4294967295] are too large"}},
	} {
		_, _, err := opt.ReadIDX(bytes.NewReader(c.raw), "m.idx")
		checkErr(t, err, c.want...)
	}

	img := writeTemp(t, "img.idx", good)
	for _, c := range []struct {
		labels []byte
		want   []string
	}{
		{encodeIDX(idxUint8, []int{2}, []float64{1, 2}), []string{"lab.idx: has 2 labels, but", "img.idx has 3 items"}},
		{encodeIDX(idxUint8, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6}), []string{"lab.idx: a labels file must hold one value per item"}},
		{[]byte{9, 9, 9, 9}, []string{"lab.idx: bad IDX magic"}},
	} {
		_, err := LoadIDX(img, writeTemp(t, "lab.idx", c.labels))
		checkErr(t, err, c.want...)
	}
	_, err := LoadIDX(writeTemp(t, "empty.idx", encodeIDX(idxUint8, []int{0, 5}, nil)), "")
	checkErr(t, err, "empty.idx: no items")
	_, err = LoadIDX(writeTemp(t, "flat.idx", encodeIDX(idxUint8, []int{4, 0}, nil)), "")
	checkErr(t, err, "flat.idx: items have no values")
	_, err = LoadIDX(writeTemp(t, "cut.idx.gz", gz(t, good)[:20]), "")
	checkErr(t, err, "cut.idx.gz:")
}
