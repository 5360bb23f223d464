// Package serve serves rff models over HTTP with the REST API of the Open Inference Protocol (version 2, the
// protocol of KServe and Triton), safely under load and bad input.
//
//	s, err := serve.New("models/", serve.Options{Logger: slog.Default()})
//	ln, err := net.Listen("tcp", "127.0.0.1:8080")
//	err = s.Serve(ctx, ln, nil) // the options' timeouts, and a graceful shutdown when ctx is done
//
// (s.HTTPServer() is an http.Server with the options' read, write and idle timeouts, for a caller that runs it
// itself; s.Handler() has none of them, and an http.Server without timeouts lets slow clients hold connections.)
//
// Every file NAME.rff of the directory is served as the model NAME. The endpoints answer JSON:
//
//	GET  /v2/health/live                → {"live": true}
//	GET  /v2/health/ready               → {"ready": true} (503 before a model is loaded and once Serve's shutdown
//	                                       has begun; the listener closes after Options.ShutdownDelay, default at
//	                                       once, and new connections are then refused)
//	GET  /v2                            → {"name": "rff", "version": …, "extensions": []}
//	GET  /v2/models/NAME                → metadata: inputs, outputs, versions, and the model's description under "rff"
//	GET  /v2/models/NAME/ready          → {"name": NAME, "ready": true}
//	POST /v2/models/NAME/infer          → predictions
//	GET  /metrics                       → Prometheus metrics (text format)
//
// The model paths also take /versions/VERSION after NAME, where VERSION is the one the metadata lists (the first
// 16 hex digits of the SHA-256 of the model file).
//
// An inference request holds its rows either as one tensor of shape [n, d] (any name; "input" in the metadata),
// or as one tensor per input column, named after the column, of shape [n] or [n, 1]; the column names are the
// model's ("rff".inputs in the metadata). Datatypes FP64 and FP32; data row-major, flat or nested exactly as the
// shape (an [n, d] tensor as n arrays of d numbers: ragged or otherwise nested arrays are refused). A key the server
// reads may appear once in its object (other keys, such as "parameters", are skipped unread). The body is JSON as
// sent, without a Content-Encoding:
//
//	{"inputs": [{"name": "input", "shape": [2, 3], "datatype": "FP64", "data": [1, 2, 3, 4, 5, 6]}]}
//	{"inputs": [{"name": "input", "shape": [2, 3], "datatype": "FP64", "data": [[1, 2, 3], [4, 5, 6]]}]}
//	{"inputs": [{"name": "temp", "shape": [2], "datatype": "FP64", "data": [1, 4]}, …one per column…]}
//
// The response holds the tensor "predictions", [n, p] FP64: the model's outputs, equal bit for bit to
// rff.Model.PredictRows on the same rows (numbers are written in the shortest form that reads back exactly);
// for a classifier also "labels", [n] BYTES, the predicted class names, and "scores", [n, k] FP64, the class
// scores (the same values as predictions: k scores, or the k−1 simplex coordinates of a simplex-coded model). A
// request may name the outputs it wants ("outputs": [{"name": "labels"}]); a classifier fitted with the logistic
// loss also has "probabilities", [n, k] FP64, the class probabilities (the softmax of the scores,
// rff.Prediction.Probabilities), answered only when named; a regression model fitted with uncertainty has "std",
// [n, p] FP64, the predictive standard deviations with the noise (rff.Model.PredictStd), answered only when named
// (each costs F² per row). The request's "id" is echoed, and "model_version" says
// which version of the model answered.
//
// Errors are answered with their status code and {"error": "…"} naming the input at fault: 400 for malformed JSON,
// duplicate keys, unsupported datatypes, wrong shapes or nesting, unknown inputs, NaN or infinite values, and paths
// that are not canonical (".", ".." or empty segments, an escaped slash %2F, which no model name holds); 401 for
// a missing or wrong bearer token (Options.Token; the health checks need none); 404 for an unknown model, version
// or path; 405 for a wrong method; 408 for a body that does not arrive within the read timeout; 413 for a body over
// Options.MaxBodyBytes, more rows than Options.MaxRows, or an answer that could be longer than MaxBodyBytes; 415
// for a body with a Content-Encoding; 503 with Retry-After when every inference slot is busy and the bounded queue
// is full, or the bodies held at once would exceed MaxConcurrent × MaxBodyBytes bytes (a request whose client left
// while it waited is recorded in the metrics as 499; one whose client leaves while its rows are predicted stops at
// the next chunk of 256 rows and is recorded as 499 too). A request's body is read
// before it takes an inference slot, so clients that send slowly hold no slot. No panic reaches a client, and
// responses never hold stacks, file paths or network addresses. Errors of the HTTP protocol itself (a malformed
// request line, headers over 64 KiB, an unsupported Transfer-Encoding) are answered by net/http, in plain text.
//
// Reload (and Watch, which polls the directory) swaps the set of models atomically: a new or changed file is loaded
// and checked completely first, a file that fails leaves the previous model in service, and a request in flight
// finishes on the model it started with. Reload reads and hashes every model file; Watch reads only the files whose
// size or modification time changed (or, on Unix, that were replaced by another file), so that a change to a small
// model does not cost re-reading a large one. With Options.TokenFile they also re-read the bearer token, so a
// rotated token takes effect without a restart; a token file that is missing or unusable keeps the token in force.
package serve
