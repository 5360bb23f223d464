package serve

import (
	"bytes"
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rffkit/rff"
)

// benchModel is the model of the benchmarks: the file RFF_SERVE_MODEL names (scripts/bench-serve.sh fits one with
// d = 784 and sr-butterfly features), else a golden file.
func benchModel(b *testing.B) (dir, name string, m *rff.Model) {
	path := os.Getenv("RFF_SERVE_MODEL")
	if path == "" {
		path = filepath.Join(golden, "ridge-sr.rff")
	}
	m, err := rff.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	dir = b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.rff"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, "bench", m
}

// reportRows reports rows per second of wall time and milliseconds of CPU time (all threads) per 1000 rows, which
// other programs running on the machine disturb less.
func reportRows(b *testing.B, rows int, start time.Time, cpu0 float64) {
	b.ReportMetric(float64(b.N*rows)/time.Since(start).Seconds(), "rows/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(cpu*1e6/float64(b.N*rows), "cpu-ms/krow")
	}
}

// BenchmarkPredictRows is the in-process reference: one PredictRows call per batch.
func BenchmarkPredictRows(b *testing.B) {
	_, _, m := benchModel(b)
	d := len(m.Info().Inputs)
	for _, n := range []int{1, 1000} {
		X := randomRows(1, n, d)
		b.Run(map[int]string{1: "rows=1", 1000: "rows=1000"}[n], func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuSeconds()
			for i := 0; i < b.N; i++ {
				if _, err := m.PredictRows(X, n); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, n, start, cpu0)
		})
	}
}

// BenchmarkPredictChunks is what the server does with a batch: the rows cut into chunks of chunkRows, predicted by
// the server's chunk workers (compare with BenchmarkPredictRows, one call on all rows).
func BenchmarkPredictChunks(b *testing.B) {
	dir, name, m := benchModel(b)
	s, err := New(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	m = s.models.Load().get(name).model
	d := len(m.Info().Inputs)
	const n = 1000
	X := randomRows(1, n, d)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuSeconds()
	for i := 0; i < b.N; i++ {
		if _, err := s.predict(context.Background(), m, X, n, d); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, n, start, cpu0)
}

// BenchmarkHandler is one inference request through the whole handler (decode, predict, encode), without the
// network; the inputs have four decimals.
func BenchmarkHandler(b *testing.B) {
	dir, name, m := benchModel(b)
	d := len(m.Info().Inputs)
	s, err := New(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	for _, n := range []int{1, 1000} {
		X := randomRows(2, n, d)
		for i, v := range X { // four decimals, as data written by a program usually are
			X[i] = math.Round(v*1e4) / 1e4
		}
		body := matrixBody(X, n, d, "FP64")
		b.Run(map[int]string{1: "rows=1", 1000: "rows=1000"}[n], func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuSeconds()
			for i := 0; i < b.N; i++ {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("POST", "/v2/models/"+name+"/infer", bytes.NewReader(body)))
				if rec.Code != 200 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
			reportRows(b, n, start, cpu0)
		})
	}
}

// BenchmarkDecode is the request decoder alone: parsing a body of 1000 rows into the input matrix, for inputs with
// four decimals and with all 17 digits.
func BenchmarkDecode(b *testing.B) {
	dir, name, m := benchModel(b)
	d := len(m.Info().Inputs)
	data, _ := os.ReadFile(filepath.Join(dir, name+".rff"))
	e, err := loadEntry(name, data, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, digits := range []string{"4", "17"} {
		X := randomRows(3, 1000, d)
		if digits == "4" {
			for i, v := range X {
				X[i] = math.Round(v*1e4) / 1e4
			}
		}
		body := matrixBody(X, 1000, d, "FP64")
		buf := make([]float64, 1000*d)
		b.Run("digits="+digits, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuSeconds()
			for i := 0; i < b.N; i++ {
				req, err := parseRequest(body, d)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, aerr := e.inputs(req, 1000, buf); aerr != nil {
					b.Fatal(aerr)
				}
			}
			reportRows(b, 1000, start, cpu0)
		})
	}
}
