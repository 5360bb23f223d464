package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// gzBomb returns a valid gzip file whose content is text repeated copies times: copies gzip members of text each
// (RFC 1952 allows any number), so that a file of about copies × (20 + len(text)/1000) bytes inflates to
// copies × len(text) bytes, and the trailer states only the size of the last member. With last, a final empty
// member makes the trailer state 0.
func gzBomb(t testing.TB, text []byte, copies int, last bool) []byte {
	t.Helper()
	var member bytes.Buffer
	w, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	w.Write(text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := bytes.Repeat(member.Bytes(), copies)
	if last {
		out = append(out, gz(t, nil)...)
	}
	return out
}

// allocDuring returns the bytes allocated on the heap while f runs (runtime.MemStats.TotalAlloc, which bounds
// the growth of the heap at its peak).
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkBudgetErr fails unless err is a one-line *BudgetError for the file name (with a line when line is set)
// under a budget of limit bytes, whose message says how to raise it; it returns the error.
func checkBudgetErr(t *testing.T, err error, name string, limit int64, what string) *BudgetError {
	t.Helper()
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("error %v (%T), want a *BudgetError", err, err)
	}
	if be.Budget != limit || !strings.HasPrefix(be.Name, name) || !strings.Contains(be.What, what) {
		t.Errorf("BudgetError %+v, want file %q, budget %d, what %q", be, name, limit, what)
	}
	if be.Bytes != 0 && be.Bytes <= limit {
		t.Errorf("BudgetError needs %d bytes, not more than the budget of %d", be.Bytes, limit)
	}
	checkErr(t, err, name, "memory budget of", "set Options.MaxBytes to raise it")
	if m := be.Message("raise it with --max-memory"); m != strings.Replace(err.Error(), "set Options.MaxBytes to raise it", "raise it with --max-memory", 1) {
		t.Errorf("Message: %q", m)
	}
	return be
}

// TestBudgetGzipBomb: a small gzip file that inflates to far more than the budget is refused quickly, having
// allocated about what the budget allows and no more, whichever way the excess shows: the gzip trailer, the
// data parsed, or the bytes inflated.
func TestBudgetGzipBomb(t *testing.T) {
	const limit = 16 << 20
	opt := Options{MaxBytes: limit}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	rows := bytes.Repeat([]byte("0,0,0\n"), 1<<20/6) // 1 MiB of rows (2 features and a target each)
	svm := bytes.Repeat([]byte("1 1:0\n"), 1<<20/6)
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	idx := append(encodeIDX(idxUint8, []int{1 << 20, 1024}, nil), make([]byte, 1<<20-12)...) // claims 8 GiB of floats

	for _, c := range []struct {
		name string
		file []byte
		opt  Options
		what string
		// alloc bounds the bytes allocated: the arrays grown by doubling up to the budget (at most twice the
		// budget in all), plus the buffers of the readers.
		alloc uint64
	}{
		// 1 GiB of rows in 1024 members of 1 MiB; the trailer states 0 bytes, so the data parsed decides.
		{"rows.csv.gz", gzBomb(t, rows, 1024, true), opt, "the parsed data", 2*limit + 4<<20},
		{"rows.libsvm.gz", gzBomb(t, svm, 1024, true), opt, "the parsed data", 2*limit + 4<<20},
		// 1 GiB of blank lines: nothing is parsed, the bytes inflated decide.
		{"blank.csv.gz", gzBomb(t, blank, 1024, true), opt, "the decompressed input", 4 << 20},
		// One member of 64 MiB: its trailer says so, and the file is refused before it is read.
		{"one.csv.gz", gz(t, bytes.Repeat(rows, 64)), opt, "the decompressed input (as its gzip trailer states)", 1 << 20},
		// An IDX header that claims more than the budget: refused before the elements are read.
		{"big-idx1-ubyte.gz", gzBomb(t, idx, 1, true), Options{MaxBytes: limit, Format: FormatIDX}, "the IDX array [1048576 1024]", 1 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(c.name, c.file)
			if len(c.file) > 2<<20 {
				t.Fatalf("the bomb is %d bytes, not small", len(c.file))
			}
			var err error
			start := time.Now()
			alloc := allocDuring(func() { _, err = Load(p, c.opt) })
			elapsed := time.Since(start)
			checkBudgetErr(t, err, p, limit, c.what)
			if alloc > c.alloc {
				t.Errorf("allocated %d bytes (%s) before refusing, want at most %d (budget %d)", alloc, formatBytes(int64(alloc)), c.alloc, int64(limit))
			}
			// Inflating and parsing the whole gigabyte takes tens of seconds; the budget stops it after 16 MiB.
			if elapsed > 20*time.Second {
				t.Errorf("refused after %v", elapsed)
			}
			t.Logf("%v, %s allocated: %v", elapsed, formatBytes(int64(alloc)), err)
		})
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestBudgetInflatedBytes: the readers stop reading a reader of unknown size as soon as it has given more bytes
// than the budget (here the data parsed stays small: blank lines and comments).
func TestBudgetInflatedBytes(t *testing.T) {
	const limit = 4 << 20
	for _, c := range []struct {
		name, text string
		read       func(io.Reader, string) error
	}{
		{"x.csv", "\n", func(r io.Reader, name string) error {
			_, err := Options{MaxBytes: limit}.ReadCSV(r, name)
			return err
		}},
		{"x.libsvm", "# a comment\n", func(r io.Reader, name string) error {
			_, err := Options{MaxBytes: limit}.ReadLibSVM(r, name)
			return err
		}},
		{"x.idx", "", func(r io.Reader, name string) error {
			_, _, err := Options{MaxBytes: limit}.ReadIDX(r, name)
			return err
		}},
	} {
		body := bytes.Repeat([]byte(c.text), (16<<20)/max(1, len(c.text)))
		if c.name == "x.idx" { // 32 MiB of uint8 elements, 8 bytes each once read: refused from the header
			body = encodeIDX(idxUint8, []int{4 << 20, 8}, nil)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz(t, body)))
		if err != nil {
			t.Fatal(err)
		}
		cr := &countingReader{r: zr}
		err = c.read(cr, c.name)
		what := "the input"
		if c.name == "x.idx" {
			what = "the IDX array [4194304 8]"
		}
		checkBudgetErr(t, err, c.name, limit, what)
		if cr.n > limit+64<<10 {
			t.Errorf("%s: read %d bytes, budget %d", c.name, cr.n, limit)
		}
	}
}

// TestBudgetKnownSize: a plain file, or a reader that tells its size, larger than the budget is refused before
// anything is read.
func TestBudgetKnownSize(t *testing.T) {
	body := []byte(strings.Repeat("1,2,3\n", 100_000))
	p := writeTemp(t, "big.csv", body)
	opt := Options{MaxBytes: 100_000}
	_, err := Load(p, opt)
	be := checkBudgetErr(t, err, p, 100_000, "the input")
	if be.Bytes != int64(len(body)) || be.Name != p {
		t.Errorf("BudgetError %+v, want the file size %d", be, len(body))
	}
	r := bytes.NewReader(body)
	_, err = opt.ReadCSV(r, "r.csv")
	checkBudgetErr(t, err, "r.csv", 100_000, "the input")
	if r.Len() != len(body) {
		t.Errorf("%d bytes read before refusing", len(body)-r.Len())
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = opt.ReadLibSVM(f, p)
	checkBudgetErr(t, err, p, 100_000, "the input")
	if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
		t.Errorf("%d bytes read before refusing", off)
	}
}

// TestBudgetBoundary: data whose arrays need more than the budget is refused; twice what they need (the most
// doubling can waste) loads the same data as no limit does.
func TestBudgetBoundary(t *testing.T) {
	var sb strings.Builder
	for i := range 5000 {
		sb.WriteString(strings.Repeat("1.5,", 9))
		sb.WriteString([]string{"cat", "dog", "7"}[i%3] + "\n")
	}
	text := sb.String()
	want, err := Options{MaxBytes: -1}.ReadCSV(strings.NewReader(text), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	// X, the class indices, and the raw targets with their offsets.
	need := int64(len(want.X))*8 + int64(want.N)*8 + int64(want.N)*(3+8)
	_, err = Options{MaxBytes: int64(len(want.X)) * 8}.ReadCSV(strings.NewReader(text), "x.csv")
	checkBudgetErr(t, err, "x.csv:", int64(len(want.X))*8, "the parsed data")
	// A budget below the input size is refused, whatever the data.
	_, err = Options{MaxBytes: int64(len(text)) - 1}.ReadCSV(strings.NewReader(text), "x.csv")
	checkBudgetErr(t, err, "x.csv", int64(len(text))-1, "the input")
	got, err := Options{MaxBytes: max(2*need+4096, int64(len(text)))}.ReadCSV(strings.NewReader(text), "x.csv")
	if err != nil {
		t.Fatalf("budget of twice the %d bytes needed: %v", need, err)
	}
	if !equal(got.X, want.X) || !equal(got.Y, want.Y) || strings.Join(got.Labels, ",") != "7,cat,dog" {
		t.Errorf("within the budget: got %v labels %v, want %v", got.Y[:6], got.Labels, want.Y[:6])
	}

	// LibSVM: the dense matrix is checked before it is allocated.
	svm := "1 1:1\n-1 3000:2\n"
	_, err = Options{MaxBytes: 2 * 3000 * 8}.ReadLibSVM(strings.NewReader(svm), "s.libsvm")
	checkBudgetErr(t, err, "s.libsvm", 2*3000*8, "densifying 2 rows × 3000 features")
	// X and the names of its columns, with room for the sparse entries and labels.
	if d, err := (Options{MaxBytes: 2*3000*8 + 3000*nameCost + 1024}).ReadLibSVM(strings.NewReader(svm), "s.libsvm"); err != nil || d.D != 3000 {
		t.Errorf("the dense size: %v", err)
	}

	// IDX: the array the header describes is checked before its elements are read; the labels file of Load
	// shares the budget.
	img := encodeIDX(idxUint8, []int{100, 10}, make([]float64, 1000))
	lab := encodeIDX(idxUint8, []int{100}, make([]float64, 100))
	pi, pl := writeTemp(t, "i.idx", img), writeTemp(t, "l.idx", lab)
	_, _, err = Options{MaxBytes: 8*1000 - 1}.ReadIDX(bytes.NewReader(img), "i.idx")
	checkBudgetErr(t, err, "i.idx", 8*1000-1, "the IDX array [100 10]")
	if x, _, err := (Options{MaxBytes: 8 * 1000}).ReadIDX(bytes.NewReader(img), "i.idx"); err != nil || len(x) != 1000 {
		t.Errorf("a budget of exactly the array: %v", err)
	}
	xNames := int64(8*1000 + 10*nameCost) // X and the names of its 10 columns
	_, err = Load(pi, Options{MaxBytes: xNames - 1})
	checkBudgetErr(t, err, pi, xNames-1, "the IDX array [100 10]")
	_, err = Load(pi, Options{Labels: pl, MaxBytes: xNames})
	checkBudgetErr(t, err, pl, xNames, "the IDX array [100]")
	if d, err := Load(pi, Options{Labels: pl, MaxBytes: xNames + 8*100}); err != nil || len(d.Y) != 100 {
		t.Errorf("a budget of exactly X, its names and Y: %v", err)
	}
}

// TestBudgetLines: a line may take at most 1/64 of the budget.
func TestBudgetLines(t *testing.T) {
	long := "1,2\n" + strings.Repeat("9", 100_000) + ",1\n"
	_, err := Options{MaxBytes: 1 << 20}.ReadCSV(strings.NewReader(long), "x.csv")
	be := checkBudgetErr(t, err, "x.csv:2", 1<<20, "line longer than 16384 bytes")
	if be.Name != "x.csv:2" || be.Bytes != 0 {
		t.Errorf("BudgetError %+v", be)
	}
	if _, err := (Options{MaxBytes: 8 << 20}).ReadCSV(strings.NewReader(long), "x.csv"); err == nil || budgetError(err) != nil {
		t.Errorf("a line within 1/64 of the budget: error %v, want the parse error of the too-long number", err)
	}
	// A wide first line: the fields of the first rows stay within the budget.
	wide := strings.Repeat("0,", 1<<14) + "0\n"
	var d *Data
	alloc := allocDuring(func() { d, err = Options{MaxBytes: 4 << 20}.ReadCSV(strings.NewReader(wide+wide), "w.csv") })
	if err != nil || d.D != 1<<14 {
		t.Fatalf("wide rows: %v", err)
	}
	if alloc > 4<<20 {
		t.Errorf("%d bytes allocated for two rows of %d bytes, budget %d", alloc, len(wide), 4<<20)
	}
}

// TestBudgetCSVStream: the stream applies the budget to each block, not to the file.
func TestBudgetCSVStream(t *testing.T) {
	const limit = 1 << 20
	text := gzBomb(t, bytes.Repeat([]byte("1,2,3,4\n"), 1<<14), 64, false) // 8 MiB of rows, 24+16 bytes each
	p := writeTemp(t, "s.csv.gz", text)
	s, err := Options{MaxBytes: limit}.OpenCSVStream(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var big error
	alloc := allocDuring(func() { _, big = s.Next(1 << 20) })
	checkBudgetErr(t, big, p+":", limit, "a block of 1048576 rows")
	if alloc > 2*limit+1<<20 {
		t.Errorf("allocated %d bytes before refusing, budget %d", alloc, limit)
	}
	if _, err := s.Next(10); err != big {
		t.Errorf("after a budget error, Next returns %v", err)
	}

	s2, err := Options{MaxBytes: limit}.OpenCSVStream(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	n := 0
	for {
		b, err := s2.Next(10_000)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += b.N
	}
	if n != 64<<14 {
		t.Errorf("streamed %d rows, want %d", n, 64<<14)
	}
}

func TestDefaultMaxBytes(t *testing.T) {
	d := DefaultMaxBytes()
	if d < minDefaultMaxBytes {
		t.Errorf("DefaultMaxBytes() = %d, below the floor %d", d, minDefaultMaxBytes)
	}
	if avail := availableMemory(); avail > 0 && d != max(avail/2, minDefaultMaxBytes) && math.Abs(float64(d-avail/2)) > 0.2*float64(avail) {
		t.Errorf("DefaultMaxBytes() = %d, available %d", d, avail)
	}
	if limitOf(-1) != CapBudget(-1) || limitOf(5) != 5 || limitOf(0) < minDefaultMaxBytes {
		t.Errorf("limitOf: %d %d %d", limitOf(-1), limitOf(5), limitOf(0))
	}
	mi := writeTemp(t, "meminfo", []byte("MemTotal:       24684092 kB\nMemFree:  1 kB\nMemAvailable:   24052488 kB\n"))
	if got := memAvailable(mi); got != 24052488<<10 {
		t.Errorf("memAvailable = %d", got)
	}
	for _, bad := range []string{"MemTotal: 5 kB\n", "MemAvailable: x kB\n", "MemAvailable: 5 MB\n", "MemAvailable:\n"} {
		if got := memAvailable(writeTemp(t, "meminfo", []byte(bad))); got != -1 {
			t.Errorf("memAvailable(%q) = %d, want -1", bad, got)
		}
	}
	if got := memAvailable(filepath.Join(t.TempDir(), "none")); got != -1 {
		t.Errorf("memAvailable of a missing file = %d", got)
	}
}

// TestCapBudget: no limit, or a budget above what the machine has, stands for the machine's memory and swap; the
// machine's figure is MemTotal + SwapTotal.
func TestCapBudget(t *testing.T) {
	m := MachineMemory()
	if m <= 0 {
		if CapBudget(-1) != math.MaxInt64 || CapBudget(1<<50) != 1<<50 {
			t.Errorf("with the machine's memory unknown: %d %d", CapBudget(-1), CapBudget(1<<50))
		}
		t.Skip("the machine's memory is not known here")
	}
	if total := meminfo("/proc/meminfo", "MemTotal:"); m > total+max(0, meminfo("/proc/meminfo", "SwapTotal:")) || m <= 0 {
		t.Errorf("MachineMemory() = %d, MemTotal %d", m, total)
	}
	for _, c := range []struct{ b, want int64 }{{-1, m}, {m + 1, m}, {math.MaxInt64, m}, {m, m}, {m - 1, m - 1}, {5, 5}} {
		if got := CapBudget(c.b); got != c.want {
			t.Errorf("CapBudget(%d) = %d, want %d", c.b, got, c.want)
		}
	}
	mi := writeTemp(t, "meminfo", []byte("MemTotal:       24684092 kB\nSwapTotal:       1024 kB\n"))
	if got := meminfo(mi, "MemTotal:"); got != 24684092<<10 {
		t.Errorf("MemTotal = %d", got)
	}
	if got := meminfo(mi, "SwapTotal:"); got != 1024<<10 {
		t.Errorf("SwapTotal = %d", got)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1 << 10: "1 KiB", 1536: "1.5 KiB", 16 << 20: "16 MiB", 16<<20 + 1: "16 MiB",
		12045168640: "11.2 GiB", 34359738368: "32 GiB", 1 << 62: "4 EiB",
	} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestGrowTransient: grow allocates the new array while the old one is live, so at every growth the two arrays
// together fit the budget, and the error comes exactly when the elements asked for and the old array do not.
func TestGrowTransient(t *testing.T) {
	for _, limit := range []int64{64, 1000, 4096, 1 << 20} {
		b := &budget{name: "x", limit: limit}
		var s []float64
		for {
			old := cap(s)
			t2, err := grow(b, s, 1, 1, "the parsed data")
			if err != nil {
				if fits := 8*int64(len(s)+1)+8*int64(old) <= limit; fits {
					t.Fatalf("limit %d: refused %d elements beside the old %d, which fit: %v", limit, len(s)+1, old, err)
				}
				break
			}
			if cap(t2) != old {
				if transient := 8 * int64(old+cap(t2)); transient > limit {
					t.Fatalf("limit %d: growing %d → %d elements holds %d bytes at once", limit, old, cap(t2), transient)
				}
				if b.used != 8*int64(cap(t2)) {
					t.Fatalf("limit %d: %d bytes charged for %d elements", limit, b.used, cap(t2))
				}
			}
			s = append(t2, 1)
		}
		if len(s) == 0 {
			t.Fatalf("limit %d: nothing fitted", limit)
		}
	}
}

// TestGrowCollects: the arrays grow allocates, the live ones and the old copies it has given up, never take more
// than the budget between two collections: grow has the garbage collected first when they would. It collects only
// near the budget — a few times as an array grows to it, never for a load far below it.
func TestGrowCollects(t *testing.T) {
	defer func(f func()) { freeMemory = f }(freeMemory)
	var collections int
	var since int64 // bytes allocated since the last collection
	freeMemory = func() { collections, since = collections+1, 0 }
	for _, limit := range []int64{64, 1000, 4096, 3<<20 + 5, 1 << 24, 3 << 22} {
		collections, since = 0, 0
		b := &budget{name: "x", limit: limit}
		var s []float64
		for {
			old := cap(s)
			t2, err := grow(b, s, 1, 1, "the parsed data")
			if err != nil {
				break
			}
			if cap(t2) != old {
				if since += 8 * int64(cap(t2)); since > limit {
					t.Fatalf("limit %d: %d bytes allocated since the last collection", limit, since)
				}
			}
			s = append(t2, 1)
		}
		if collections > 3 {
			t.Errorf("limit %d: %d collections as one array grew to the budget", limit, collections)
		}
	}

	collections = 0
	var csv strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&csv, "%d,%d,%d,label%d\n", i, i+1, i+2, i%5)
	}
	if _, err := (Options{MaxBytes: 64 << 20}).ReadCSV(strings.NewReader(csv.String()), "x.csv"); err != nil {
		t.Fatal(err)
	}
	if collections != 0 {
		t.Errorf("a load far below its budget collected %d times", collections)
	}
}
