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
		// The reader tells its size: a short payload is refused before it is read.
		{good[:len(good)-1], []string{"m.idx: truncated or corrupt IDX file: its header claims an array [3 2] of 1-byte elements (6 B), but only 5 bytes follow the header"}},
		{encodeIDX(idxInt32, []int{2}, []float64{1, 2})[:13], []string{"m.idx: truncated or corrupt IDX file", "[2] of 4-byte elements (8 B), but only 5 bytes"}},
		{encodeIDX(idxFloat32, []int{3}, []float64{1, math.NaN(), 3}), []string{"m.idx: element 1: NaN/Inf not allowed"}},
		{encodeIDX(idxFloat64, []int{2}, []float64{math.Inf(-1), 3}), []string{"m.idx: element 0: NaN/Inf not allowed"}},
		{encodeIDX(idxUint8, []int{1 << 16, 1 << 16}, nil), []string{"m.idx: truncated or corrupt IDX file: its header claims an array [65536 65536] of 1-byte elements (4 GiB), but only 0 bytes follow the header"}},
		{encodeIDX(idxUint8, []int{1<<32 - 1, 1<<32 - 1, 1<<32 - 1}, nil), []string{"m.idx: IDX dimensions [4294967295 4294967295 4294967295] are too large"}},
		{encodeIDX(idxUint8, slices.Repeat([]int{1 << 20}, 255), nil), []string{"m.idx: IDX dimensions [1048576 1048576 1048576 1048576 1048576 1048576 1048576 1048576 … 255 dimensions in all] are too large"}},
		{encodeIDX(idxUint8, slices.Repeat([]int{1}, 200), nil), []string{"array [1 1 1 1 1 1 1 1 … 200 dimensions in all] of 1-byte elements"}},
		// bytes after the array: a damaged header, or files joined
		{append(slices.Clone(good), 0), []string{"m.idx: more bytes follow the IDX array [3 2] than its header claims"}},
		{append(slices.Clone(good), good...), []string{"m.idx: more bytes follow the IDX array [3 2] than its header claims"}},
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
	_, err = LoadIDX(writeTemp(t, "long.idx.gz", gz(t, append(slices.Clone(good), 7, 7))), "")
	checkErr(t, err, "long.idx.gz: more bytes follow the IDX array [3 2] than its header claims")
}

// TestIDXClaimedSize: an uncompressed IDX file shorter than the array its header claims is refused as truncated or
// corrupt before anything is allocated for it, whatever the budget; a gzip file, whose content size is unknown, is
// held to the budget with the claimed dimensions in the message, and is found truncated as it is read.
func TestIDXClaimedSize(t *testing.T) {
	huge := append(encodeIDX(idxUint8, []int{1 << 16, 1 << 16}, nil), 17, 42, 200) // claims 4 GiB, holds 3 bytes
	small := encodeIDX(idxInt16, []int{3, 2}, []float64{-300, 21, 1000, -7, 513, 99})
	cut := small[:len(small)-3]                  // 4.5 of 6 elements
	long := append(slices.Clone(small), 1, 2, 3) // bytes after the array: refused
	labels := encodeIDX(idxUint8, []int{3}, []float64{20, 31, 250})
	for _, c := range []struct {
		name   string
		read   func(t *testing.T) error
		want   string
		budget int64 // want a *BudgetError with this budget
	}{
		{name: "plain file, no budget", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "h.idx", huge), Options{MaxBytes: -1})
			return err
		}, want: "h.idx: truncated or corrupt IDX file: its header claims an array [65536 65536] of 1-byte elements (4 GiB), but only 3 bytes follow the header"},
		{name: "plain file, small budget", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "h.idx", huge), Options{MaxBytes: 1 << 20})
			return err
		}, want: "h.idx: truncated or corrupt IDX file: its header claims an array [65536 65536]"},
		{name: "plain labels file", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "i.idx", small), Options{Labels: writeTemp(t, "l.idx", labels[:len(labels)-1]), MaxBytes: -1})
			return err
		}, want: "l.idx: truncated or corrupt IDX file: its header claims an array [3] of 1-byte elements (3 B), but only 2 bytes follow the header"},
		{name: "sized reader", read: func(t *testing.T) error {
			_, _, err := Options{MaxBytes: -1}.ReadIDX(bytes.NewReader(cut), "r.idx")
			return err
		}, want: "r.idx: truncated or corrupt IDX file: its header claims an array [3 2] of 2-byte elements (12 B), but only 9 bytes follow the header"},
		{name: "gzip file over the budget", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "h.idx.gz", gz(t, huge)), Options{MaxBytes: 1 << 20})
			return err
		}, want: "h.idx.gz: the IDX array [65536 65536] (as its header claims) needs at least 34361835520 bytes (32 GiB)", budget: 1 << 20}, // X and its column names
		{name: "gzip file within the budget", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "c.idx.gz", gz(t, cut)), Options{MaxBytes: -1})
			return err
		}, want: "c.idx.gz: truncated IDX file: [3 2] needs 6 elements, got 4"},
		{name: "reader of unknown size", read: func(t *testing.T) error {
			_, _, err := Options{MaxBytes: -1}.ReadIDX(onlyReader{bytes.NewReader(cut)}, "u.idx")
			return err
		}, want: "u.idx: truncated IDX file: [3 2] needs 6 elements, got 4"},
		{name: "trailing bytes", read: func(t *testing.T) error {
			_, err := Load(writeTemp(t, "t.idx", long), Options{MaxBytes: -1, Format: FormatIDX})
			return err
		}, want: "t.idx: more bytes follow the IDX array [3 2] than its header claims"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			alloc := allocDuring(func() { err = c.read(t) })
			if alloc > 1<<20 {
				t.Errorf("allocated %d bytes", alloc)
			}
			switch {
			case c.want == "":
				if err != nil {
					t.Fatal(err)
				}
			case c.budget > 0:
				checkErr(t, err, c.want, "; set Options.MaxBytes to raise it")
				if be := budgetError(err); be == nil || be.Budget != c.budget {
					t.Errorf("%v: want a *BudgetError with a budget of %d", err, c.budget)
				}
			default:
				checkErr(t, err, c.want)
				if budgetError(err) != nil {
					t.Errorf("a budget error: %v", err)
				}
			}
		})
	}
}
