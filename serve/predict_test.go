package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rffkit/rff"
)

// Cutting a request into chunks gives the bits of one PredictRows call on all rows, for every kind of model and row
// counts around the chunk size, and so does every row sent as a request of its own; the class labels are the same
// too.
func TestPredictChunksSameBits(t *testing.T) {
	for _, name := range []string{"ridge-sr", "ridge-g", "ridge-sorf", "ridge-arccos", "hermite", "cls-onehot",
		"cls-simplex", "cls-logistic", "exact", "ovk-curl", "ovk-dec", "ovk-div", "nystrom-ridge", "cls-nystrom"} {
		t.Run(name, func(t *testing.T) {
			s, err := New(copyModels(t, name+"=m"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			e := s.models.Load().get("m")
			if e == nil {
				t.Fatal("model not loaded")
			}
			for _, n := range []int{1, 200, chunkRows - 1, chunkRows, chunkRows + 1, 3*chunkRows + 5, 1000, 2049} {
				X := randomRows(uint64(n), n, e.dim)
				want, err := e.model.PredictRows(X, n)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.predict(context.Background(), e.model, X, n, e.dim)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%d rows", n)
				if got.N != n || got.Outputs != want.Outputs {
					t.Fatalf("%s: N %d outputs %d, want %d and %d", what, got.N, got.Outputs, n, want.Outputs)
				}
				sameBits(t, what, got.Values, want.Values)
				if !slices.Equal(got.Labels, want.Labels) || !slices.Equal(got.Classes, want.Classes) {
					t.Fatalf("%s: classes differ", what)
				}
				if n == 200 { // every row as a request of its own
					P := want.Outputs
					for i := range n {
						one, err := s.predict(context.Background(), e.model, X[i*e.dim:(i+1)*e.dim], 1, e.dim)
						if err != nil {
							t.Fatal(err)
						}
						sameBits(t, fmt.Sprintf("row %d of %d alone", i+1, n), one.Values, want.Values[i*P:(i+1)*P])
					}
				}
			}
		})
	}
}

// Large requests answered at the same time over HTTP are predicted in chunks by the server's workers and answer
// the bits of PredictRows; every chunk token is given back.
func TestPredictChunksConcurrent(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "cls-onehot=cls"), Options{})
	m := loadGolden(t, "cls-onehot")
	d := len(m.Info().Inputs)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 500 + 37*g
			X := randomRows(uint64(100+g), n, d)
			want, _ := m.PredictRows(X, n)
			r := infer(t, ts.Client(), ts.URL, "cls", matrixBody(X, n, d, "FP64"))
			got, _ := r.floats(t, OutputPredictions)
			sameBits(t, fmt.Sprintf("request %d", g), got, want.Values)
			labels, _ := r.strings(t, OutputLabels)
			if !slices.Equal(labels, want.Labels) {
				t.Errorf("request %d: labels differ", g)
			}
		}()
	}
	wg.Wait()
	if len(s.chunks) != 0 || cap(s.chunks) != runtime.GOMAXPROCS(0) {
		t.Errorf("chunk tokens: %d held of %d, want 0 of GOMAXPROCS = %d", len(s.chunks), cap(s.chunks), runtime.GOMAXPROCS(0))
	}
}

// A request with several bad rows is answered with the first chunk's error, as one PredictRows call reports the
// first bad row — not whichever chunk failed first in time — naming the row of the request, not of its chunk.
func TestPredictChunksFirstError(t *testing.T) {
	s, err := New(copyModels(t, "ridge-sr=m"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := s.models.Load().get("m")
	n := 16 * chunkRows
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, first := range []int{200, 3*chunkRows + 10} {
		X := randomRows(7, n, e.dim)
		for r := first; r < n; r += 100 {
			X[r*e.dim] = 1.7e308 // finite, but its features overflow
		}
		want := fmt.Sprintf("row %d: ", first+1)
		for range 40 {
			_, err := s.predict(context.Background(), e.model, X, n, e.dim)
			if re, ok := errors.AsType[*rff.RowError](err); !ok || re.Row != first+1 || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("error %v, want the first chunk's, naming row %d of the request", err, first+1)
			}
		}
	}
}

// A client that leaves while its large request is being predicted stops the prediction: the chunks not yet started
// are skipped (here every chunk waits for a worker the test holds, so none can start), the request gives back its
// slot and is recorded with code 499, and no chunk token stays held.
func TestPredictClientLeaves(t *testing.T) {
	s, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{MaxConcurrent: 1})
	for range cap(s.chunks) { // every worker busy
		s.chunks <- struct{}{}
	}
	release := func() {
		for len(s.chunks) > 0 {
			<-s.chunks
		}
	}
	defer release()
	e := s.models.Load().get("reg")
	n := 4 * chunkRows
	body := matrixBody(randomRows(3, n, e.dim), n, e.dim, "FP64")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v2/models/reg/infer", bytes.NewReader(body))
		if resp, err := ts.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, "the request to reach its rows", func() bool { return counterValue(t, s, "rff_serve_in_flight_requests", nil) == 1 })
	cancel()
	<-done
	waitFor(t, "the request to be recorded as 499", func() bool {
		return counterValue(t, s, "rff_serve_requests_total", map[string]string{"route": "infer", "model": "reg", "code": "499"}) == 1
	})
	if len(s.slots) != 0 {
		t.Errorf("%d request slots still held", len(s.slots))
	}
	if len(s.chunks) != cap(s.chunks) {
		t.Errorf("%d chunk tokens held, want only the test's %d", len(s.chunks), cap(s.chunks))
	}
	release()
	// The server answers the next request in full.
	X := randomRows(4, n, e.dim)
	want, _ := e.model.PredictRows(X, n)
	got, _ := infer(t, ts.Client(), ts.URL, "reg", matrixBody(X, n, e.dim, "FP64")).floats(t, OutputPredictions)
	sameBits(t, "the next request", got, want.Values)
}
