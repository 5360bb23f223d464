package serve

import (
	"net/http"
	"strconv"
	"time"

	"github.com/rffkit/rff/learn"
)

// infer answers POST /v2/models/{name}/infer: the request's rows are decoded straight into one pooled n×d matrix,
// predicted (in chunks of rows when there are many: see predict) with the bits of one call of the model's
// PredictRows, and the outputs written as tensors.
func (s *Server) infer(w http.ResponseWriter, r *http.Request) string {
	e, aerr := s.lookup(r) // the model as it is now: a reload from here on does not change it for this request
	if aerr != nil {
		writeError(w, aerr)
		return ""
	}
	if aerr := checkEncoding(w, r); aerr != nil {
		writeError(w, aerr)
		return e.name
	}
	if _, binary := r.Header[binaryHeader]; binary { // present at all, whatever its values
		writeError(w, errorf(http.StatusBadRequest, "the binary tensor data extension (%s) is not supported: send the tensors' data as JSON numbers", binaryHeader))
		return e.name
	}
	// The body is read before the request takes a slot: a client that sends it slowly holds its connection and the
	// bytes it sent, never a slot, which is held only while the request is decoded, predicted and answered.
	bp := getBytes(&s.bodies)
	defer s.bodies.Put(bp)
	s.reading.Add(1)
	body, held, aerr := s.readBody(w, r, *bp)
	s.reading.Add(-1)
	defer s.bodyHeld.Add(-held)
	*bp = body
	if aerr != nil {
		if aerr.code == http.StatusServiceUnavailable {
			s.metrics.rejected.Inc()
			w.Header().Set("Retry-After", "1")
		}
		writeError(w, aerr)
		return e.name
	}
	if !s.acquire(r) {
		if r.Context().Err() != nil { // not shed: the client left while it waited (recorded as 499, as proxies do)
			writeError(w, errorf(statusClientClosed, "the client closed the request while it waited for a slot"))
			return e.name
		}
		s.metrics.rejected.Inc()
		w.Header().Set("Retry-After", "1")
		writeError(w, errorf(http.StatusServiceUnavailable, "the server is at capacity; retry later"))
		return e.name
	}
	s.metrics.inFlight.Inc()
	defer func() {
		s.metrics.inFlight.Dec()
		<-s.slots
	}()

	xp := getFloats(&s.inputs)
	defer s.inputs.Put(xp)
	// The grammar pass keeps the numbers' values in the input buffer when they fit (never growing it), so that one
	// [n, d] FP64 tensor is read once.
	req, err := parseRequestInto(body, max(e.dim, 1), *xp)
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, "%v", err))
		return e.name
	}
	want, aerr := e.outputSet(req)
	if aerr != nil {
		writeError(w, aerr)
		return e.name
	}
	X, n, aerr := e.inputs(req, s.opts.MaxRows, *xp)
	if aerr != nil {
		writeError(w, aerr)
		return e.name
	}
	*xp = X
	if size := answerBytes(e, req, n, want); size > s.opts.MaxBodyBytes {
		writeError(w, errorf(http.StatusRequestEntityTooLarge, "the answer to %d rows would take up to %d bytes, more than the %d "+
			"an answer may hold (the request body limit): send fewer rows per request, or name only the outputs you need", n, size, s.opts.MaxBodyBytes))
		return e.name
	}

	start := time.Now()
	p, err := s.predict(r.Context(), e.model, X, n, e.dim)
	s.metrics.predict.WithLabelValues(e.name).Observe(time.Since(start).Seconds())
	if err != nil && r.Context().Err() != nil { // the client left: its rows are not predicted to the end (499)
		writeError(w, errorf(statusClientClosed, "the client closed the request while its rows were predicted"))
		return e.name
	}
	if err != nil {
		// The rows are finite and of the model's shape, which is all PredictRows asks of raw rows: what remains is
		// a value that overflows in the model's preprocessing or map, which its error names (row and stage).
		s.log.Warn("rows the model cannot predict", "model", e.name, "version", e.version, "rows", n, "err", err)
		writeError(w, errorf(http.StatusBadRequest, "the model cannot predict these rows: %v", err))
		return e.name
	}
	s.metrics.rows.WithLabelValues(e.name).Add(float64(n))

	ap := getBytes(&s.answers)
	defer s.answers.Put(ap)
	var probs []float64
	if want.probabilities {
		// Prediction.Probabilities of one PredictRows call; p may join several (predict's chunks).
		if probs, err = learn.Softmax(p.Values, p.N, p.Outputs); err != nil { // the scores are finite: not expected
			writeError(w, errorf(http.StatusInternalServerError, "class probabilities: %v", err))
			return e.name
		}
	}
	var std []float64
	if want.std {
		if std, err = s.predictStd(r.Context(), e.model, X, n, e.dim, e.outputs); err != nil {
			if r.Context().Err() != nil {
				writeError(w, errorf(statusClientClosed, "the client closed the request while its rows were predicted"))
				return e.name
			}
			s.log.Warn("rows the model cannot give standard deviations for", "model", e.name, "version", e.version, "rows", n, "err", err)
			writeError(w, errorf(http.StatusBadRequest, "the model cannot give the standard deviations of these rows: %v", err))
			return e.name
		}
	}
	out := appendInferResponse((*ap)[:0], e, req, p, probs, std, want)
	*ap = out
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	return e.name
}

// binaryHeader announces a request in the binary tensor data extension of the protocol, which the server does not
// implement: its body is JSON followed by raw bytes.
const binaryHeader = "Inference-Header-Content-Length"

// answerBytes bounds the length of the answer appendInferResponse writes for n rows of model e: every number at the
// longest of the shortest forms of a float64 (24 bytes, as in -2.2250738585072014e-308) and a comma, every label at
// the longest of the model's, and the id escaped at 6 bytes per byte at most. An answer is held whole in memory
// while it is sent, so it is bounded like a request body: a small request for many class scores of many rows would
// otherwise make an answer a hundred times its size.
func answerBytes(e *entry, req *request, n int, want outputSet) int64 {
	const number, fixed = 25, 512 // fixed: the model's name and version aside, the object's keys and tensor heads
	size := int64(fixed + len(e.quoted) + len(e.version))
	if req.hasID {
		size += 6 * int64(len(req.id))
	}
	var row int64
	if want.predictions {
		row += number * int64(e.outputs)
	}
	if want.scores {
		row += number * int64(e.outputs)
	}
	if want.probabilities {
		row += number * int64(e.outputs)
	}
	if want.std {
		row += number * int64(e.outputs)
	}
	if want.labels {
		row += int64(e.label) + 1
	}
	return size + int64(n)*row
}

// outputSet checks the outputs a request asks for (when it names none, all of the model's but "probabilities" and
// "std").
func (e *entry) outputSet(req *request) (outputSet, *apiError) {
	if req.outputs == nil {
		// The class probabilities and standard deviations only when asked for: answers of the other outputs keep
		// their size (a request near the body limit would otherwise be refused) and the standard deviations their
		// cost (F² per row), and clients that do not know them are not sent them.
		return outputSet{predictions: true, labels: e.classifier(), scores: e.classifier()}, nil
	}
	if len(req.outputs) == 0 { // predicting rows to answer none of them is a mistake, not a request
		return outputSet{}, errorf(http.StatusBadRequest, "\"outputs\" is empty: name the outputs you want, or leave the key out for the default ones (all but \"probabilities\" and \"std\")")
	}
	var o outputSet
	for _, name := range req.outputs {
		switch {
		case name == OutputPredictions:
			o.predictions = true
		case name == OutputLabels && e.classifier():
			o.labels = true
		case name == OutputScores && e.classifier():
			o.scores = true
		case name == OutputProbabilities && e.logistic():
			o.probabilities = true
		case name == OutputStd && e.uncertain():
			o.std = true
		default:
			have := quote(OutputPredictions)
			if e.classifier() {
				have += ", " + quote(OutputLabels) + ", " + quote(OutputScores)
			}
			if e.logistic() {
				have += ", " + quote(OutputProbabilities)
			}
			if e.uncertain() {
				have += ", " + quote(OutputStd)
			}
			return o, errorf(http.StatusBadRequest, "unknown output %s (model %s has %s)", quote(name), quote(e.name), have)
		}
	}
	return o, nil
}

// statusClientClosed is the status recorded for a request whose client went away before it was served (nginx's
// 499; nobody reads the answer).
const statusClientClosed = 499

// Pooled buffers: request bodies, input matrices and response bodies are reused across requests. The input
// matrices and response bodies are used while a request holds a slot, so their number is bounded by the slots and
// their size by MaxRows; the request bodies in use hold at most MaxConcurrent × MaxBodyBytes bytes received
// (readBody).
func getBytes(p interface{ Get() any }) *[]byte {
	if b, ok := p.Get().(*[]byte); ok {
		return b
	}
	return new([]byte)
}

func getFloats(p interface{ Get() any }) *[]float64 {
	if b, ok := p.Get().(*[]float64); ok {
		return b
	}
	return new([]float64)
}
