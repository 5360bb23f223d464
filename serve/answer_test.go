package serve

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rffkit/rff"
)

// answerBytes bounds the length of every answer: numbers at their longest shortest form, every row's label the
// longest, an id that escapes at six bytes per byte, for every set of outputs.
func TestAnswerBytes(t *testing.T) {
	dir := copyModels(t, "cls-onehot=cls", "ridge-sr=reg", "cls-logistic=logit", "nystrom-uncertainty=std")
	for _, name := range []string{"cls", "reg", "logit", "std"} {
		data, err := os.ReadFile(filepath.Join(dir, name+Ext))
		if err != nil {
			t.Fatal(err)
		}
		e, err := loadEntry(name, data, 0)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for c, l := range e.labels {
			if len(l) > len(e.labels[longest]) {
				longest = c
			}
		}
		for _, n := range []int{1, 7, 100} {
			for mask := 1; mask < 32; mask++ {
				want := outputSet{predictions: mask&1 != 0, labels: mask&2 != 0, scores: mask&4 != 0, probabilities: mask&8 != 0, std: mask&16 != 0}
				if !e.classifier() && (want.labels || want.scores) || !e.logistic() && want.probabilities || !e.uncertain() && want.std {
					continue
				}
				p := &rff.Prediction{N: n, Outputs: e.outputs, Values: make([]float64, n*e.outputs)}
				for i := range p.Values {
					p.Values[i] = -2.2250738585072014e-308 // 24 bytes, the longest shortest form
				}
				if e.classifier() {
					p.Classes = make([]int, n)
					for i := range p.Classes {
						p.Classes[i] = longest
					}
				}
				req := &request{id: strings.Repeat("\x01", 400), hasID: true}
				got := len(appendInferResponse(nil, e, req, p, p.Values, p.Values, want))
				if bound := answerBytes(e, req, n, want); int64(got) > bound {
					t.Errorf("%s, %d rows, outputs %+v: the answer has %d bytes, the bound %d", name, n, want, got, bound)
				}
			}
		}
	}
}

// An answer that could be longer than MaxBodyBytes is refused with 413 before the rows are predicted; the same rows
// asking only for the labels are answered.
func TestAnswerTooLarge(t *testing.T) {
	const limit = 4096
	_, ts := newTestServer(t, copyModels(t, "cls-onehot=cls"), Options{MaxBodyBytes: limit})
	url := ts.URL + "/v2/models/cls/infer"
	const n = 40 // 3 classes: two tensors of 3 numbers per row, up to 150 bytes, over 4096 for 40 rows
	X := make([]float64, 2*n)
	for i := range X {
		X[i] = float64(i%7) / 3
	}
	all := matrixBody(X, n, 2, "FP64")
	code, h, b := do(t, ts.Client(), "POST", url, all)
	checkError(t, "all outputs", code, h, b, http.StatusRequestEntityTooLarge, "the answer to 40 rows would take up to",
		"more than the 4096 an answer may hold", "name only the outputs you need")
	labels := bytes.Replace(all, []byte(`{"id":"req-1",`), []byte(`{"id":"req-1","outputs":[{"name":"labels"}],`), 1)
	code, _, b = do(t, ts.Client(), "POST", url, labels)
	if code != http.StatusOK {
		t.Fatalf("labels only: %d %s", code, b)
	}
	if len(b) > limit {
		t.Fatalf("labels only: an answer of %d bytes", len(b))
	}
}
