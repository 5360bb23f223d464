package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Route names, the "route" label of the metrics.
const (
	routeHealth   = "health"
	routeServer   = "server"
	routeMetadata = "metadata"
	routeReady    = "ready"
	routeInfer    = "infer"
	routeMetrics  = "metrics"
	routeOther    = "other"
)

// handlerFunc handles a request and returns the model label for the metrics: the name of the model it answered
// for, or "" (unknown names are not labels).
type handlerFunc func(w http.ResponseWriter, r *http.Request) string

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern, route, method string, public bool, h handlerFunc) {
		mux.Handle(pattern, s.wrap(route, method, public, h))
	}
	handle("/v2/health/live", routeHealth, http.MethodGet, true, s.live)
	handle("/v2/health/ready", routeHealth, http.MethodGet, true, s.ready)
	handle("/v2", routeServer, http.MethodGet, false, s.serverMetadata)
	handle("/v2/models/{name}", routeMetadata, http.MethodGet, false, s.modelMetadata)
	handle("/v2/models/{name}/versions/{version}", routeMetadata, http.MethodGet, false, s.modelMetadata)
	handle("/v2/models/{name}/ready", routeReady, http.MethodGet, false, s.modelReady)
	handle("/v2/models/{name}/versions/{version}/ready", routeReady, http.MethodGet, false, s.modelReady)
	handle("/v2/models/{name}/infer", routeInfer, http.MethodPost, false, s.infer)
	handle("/v2/models/{name}/versions/{version}/infer", routeInfer, http.MethodPost, false, s.infer)
	metricsHandler := s.metrics.handler()
	handle("/metrics", routeMetrics, http.MethodGet, false, func(w http.ResponseWriter, r *http.Request) string {
		metricsHandler.ServeHTTP(w, r)
		return ""
	})
	handle("/", routeOther, "", false, func(w http.ResponseWriter, r *http.Request) string {
		writeError(w, errorf(http.StatusNotFound, "no such endpoint: %s %s", r.Method, clip([]byte(r.URL.Path))))
		return ""
	})
	return s.canonicalPaths(mux)
}

// canonicalPaths answers 400 to a request whose path, as sent, is not in canonical form (a "." or ".." segment, an
// empty segment, or no leading slash) instead of the redirect http.ServeMux would send: the API has no such paths, and a
// redirect is neither JSON nor, for POST, followed by most clients.
// The refusal is counted in the metrics and logged like any answer, under the route "other".
func (s *Server) canonicalPaths(next http.Handler) http.Handler {
	refuse := s.wrap(routeOther, "", true, func(w http.ResponseWriter, r *http.Request) string {
		writeError(w, nonCanonical(r.URL.EscapedPath()))
		return ""
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if nonCanonical(r.URL.EscapedPath()) != nil {
			refuse.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// nonCanonical returns the error of a path p, as the client sent it (an escaped slash is part of a segment: a model
// name), that is not in canonical form, or nil.
func nonCanonical(p string) *apiError {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	dots := false // a segment "." or ".." spelled with escapes, %2e%2e
	for _, seg := range strings.Split(p, "/") {
		if u, err := url.PathUnescape(seg); err == nil && (u == "." || u == "..") {
			dots = true
		}
	}
	if c != p || dots || !strings.HasPrefix(p, "/") {
		return errorf(http.StatusBadRequest, "the path %s is not in canonical form (no \".\" or \"..\" or empty segments): "+
			"send paths such as /v2/models/NAME/infer", quote(p))
	}
	if strings.Contains(strings.ToLower(p), "%2f") { // "x%2Finfer" would be one segment, a model name with a slash
		return errorf(http.StatusBadRequest, "the path %s holds an escaped slash (%%2F): no model name has one "+
			"(names are file names); send paths such as /v2/models/NAME/infer", quote(p))
	}
	return nil
}

// recorder remembers the status code a handler wrote.
type recorder struct {
	http.ResponseWriter
	code int
}

// WriteHeader records the first status code written and passes it on.
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write records the implicit status 200 when no status was written before, and passes b on.
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Unwrap returns the wrapped ResponseWriter, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// wrap adds to a handler what every endpoint has: recovery from panics (answered 500, logged with the stack, which
// never reaches the client), the method check (405), the bearer token unless public (401), metrics and a debug log.
func (s *Server) wrap(route, method string, public bool, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		model := ""
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.metrics.panics.Inc()
				s.log.Error("panic in a handler", "route", route, "path", r.URL.Path, "panic", fmt.Sprint(v),
					"stack", string(debug.Stack()))
				if rec.code == 0 {
					writeError(rec, errorf(http.StatusInternalServerError, "internal error"))
				} else {
					rec.code = http.StatusInternalServerError
				}
			}
			code := rec.code
			if code == 0 {
				code = http.StatusOK
			}
			elapsed := time.Since(start)
			s.metrics.observe(route, model, code, elapsed.Seconds())
			if s.log.Enabled(r.Context(), slog.LevelDebug) {
				s.log.LogAttrs(r.Context(), slog.LevelDebug, "request", slog.String("method", r.Method),
					slog.String("path", r.URL.Path), slog.Int("code", code), slog.String("model", model),
					slog.Duration("duration", elapsed), slog.String("remote", r.RemoteAddr))
			}
		}()
		if method != "" && r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
			rec.Header().Set("Allow", method)
			writeError(rec, errorf(http.StatusMethodNotAllowed, "%s is not allowed here (use %s)", clip([]byte(r.Method)), method))
			return
		}
		if !public && !s.authorized(r) {
			rec.Header().Set("WWW-Authenticate", `Bearer realm="rff"`)
			writeError(rec, errorf(http.StatusUnauthorized, "missing or wrong bearer token"))
			return
		}
		model = h(rec, r)
	})
}

// writeJSON writes v as the JSON body of a response with the given code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	writeBody(w, code, append(b, '\n'))
}

func writeBody(w http.ResponseWriter, code int, b []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeError answers with the error's code and {"error": message}.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.code, map[string]string{"error": e.msg})
}

func (s *Server) live(w http.ResponseWriter, r *http.Request) string {
	writeJSON(w, http.StatusOK, map[string]bool{"live": true})
	return ""
}

// ready is true when at least one model is served and no shutdown is under way.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) string {
	switch {
	case s.draining.Load() > 0:
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "error": "shutting down"})
	case len(s.models.Load().names) == 0:
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "error": "no model loaded"})
	default:
		writeJSON(w, http.StatusOK, map[string]bool{"ready": true})
	}
	return ""
}

func (s *Server) serverMetadata(w http.ResponseWriter, r *http.Request) string {
	writeJSON(w, http.StatusOK, map[string]any{"name": "rff", "version": s.opts.Version, "extensions": []string{}})
	return ""
}

// lookup finds the model a request names (and its version, when the path has one) in the models served now.
func (s *Server) lookup(r *http.Request) (*entry, *apiError) {
	name := r.PathValue("name")
	e := s.models.Load().get(name)
	if e == nil {
		return nil, errorf(http.StatusNotFound, "unknown model %s", quote(clip([]byte(name))))
	}
	if v := r.PathValue("version"); v != "" && v != e.version {
		return nil, errorf(http.StatusNotFound, "model %s has no version %s (serving %s)", quote(name), quote(clip([]byte(v))), e.version)
	}
	return e, nil
}

func (s *Server) modelMetadata(w http.ResponseWriter, r *http.Request) string {
	e, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return ""
	}
	writeBody(w, http.StatusOK, e.meta)
	return e.name
}

func (s *Server) modelReady(w http.ResponseWriter, r *http.Request) string {
	e, err := s.lookup(r)
	if err != nil {
		writeError(w, err)
		return ""
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": e.name, "ready": true})
	return e.name
}

// acquire takes an inference slot, waiting in the bounded queue for at most QueueTimeout; false: shed the request.
func (s *Server) acquire(r *http.Request) bool {
	select {
	case s.slots <- struct{}{}:
		return true
	default:
	}
	if s.waiting.Add(1) > int64(s.opts.MaxQueue) {
		s.waiting.Add(-1)
		return false
	}
	defer s.waiting.Add(-1)
	t := time.NewTimer(s.opts.QueueTimeout)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-r.Context().Done():
		return false
	}
}

// checkEncoding refuses a body with a Content-Encoding (415): the server reads JSON as sent, and a compressed body
// would otherwise be reported as malformed JSON.
func checkEncoding(w http.ResponseWriter, r *http.Request) *apiError {
	for _, v := range r.Header.Values("Content-Encoding") {
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" && !strings.EqualFold(c, "identity") {
				w.Header().Set("Accept-Encoding", "identity")
				return errorf(http.StatusUnsupportedMediaType, "Content-Encoding %s is not supported: send the JSON uncompressed, without a Content-Encoding header",
					quote(clip([]byte(c))))
			}
		}
	}
	return nil
}

// firstChunk is the memory given to a body before its bytes arrive (unless a pooled buffer has more): the buffer
// then grows as they do, so a client cannot make the server allocate by declaring a large Content-Length.
const firstChunk = 4 << 10

// timeoutAnswerTime is how long the 408 answer to a body that did not arrive in time may take to be written.
const timeoutAnswerTime = 5 * time.Second

// readBody reads the request body into b, a pooled buffer, refusing more than MaxBodyBytes (413). The buffer grows
// as the bytes arrive, doubling (to at most twice what was received, beyond firstChunk), and the bytes received
// count against the server's budget of body bytes (MaxConcurrent × MaxBodyBytes): a body that would exceed it is
// refused with 503. held is the number of bytes counted, which the caller gives back (s.bodyHeld) once it is done
// with the body. A body that does not arrive within the read timeout is answered 408; no message holds the
// connection's addresses.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, b []byte) (_ []byte, held int64, _ *apiError) {
	maxBody := s.opts.MaxBodyBytes
	if r.ContentLength > maxBody {
		return b, 0, errorf(http.StatusRequestEntityTooLarge, "the request body has %d bytes; at most %d are taken", r.ContentLength, maxBody)
	}
	// Room for one byte more than the body can hold, so that the read past its end returns EOF (or, for a body
	// over MaxBodyBytes, MaxBytesReader's error) without a larger buffer.
	limit := maxBody
	if limit < math.MaxInt64 {
		limit++
	}
	if r.ContentLength >= 0 {
		limit = r.ContentLength + 1
	}
	if u, ok := w.(interface{ Unwrap() http.ResponseWriter }); ok {
		w = u.Unwrap() // the server's own writer: MaxBytesReader then closes the connection after a body too large
	}
	body := http.MaxBytesReader(w, r.Body, maxBody)
	b = b[:0]
	for {
		if len(b) == cap(b) {
			c := min(max(2*int64(cap(b)), firstChunk), limit)
			if c <= int64(len(b)) { // not reached: the readers stop before the limit
				c = int64(len(b)) + 1
			}
			nb := make([]byte, len(b), c)
			copy(nb, b)
			b = nb
		}
		n, err := body.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		held += int64(n)
		if s.bodyHeld.Add(int64(n)) > s.bodyMax {
			return b, held, errorf(http.StatusServiceUnavailable, "the server is at capacity (request bodies in memory); retry later")
		}
		if err == io.EOF {
			return b, held, nil
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			var netErr net.Error
			switch {
			case errors.As(err, &tooLarge):
				return b, held, errorf(http.StatusRequestEntityTooLarge, "the request body has more than %d bytes", maxBody)
			case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
				// The write deadline (WriteTimeout from the start of the request) has passed too when it is no longer
				// than the read timeout: give the answer time to leave, or the client sees only a closed connection.
				_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeoutAnswerTime))
				return b, held, errorf(http.StatusRequestTimeout, "the request body did not arrive within the read timeout: send it faster, or send less per request")
			case errors.Is(err, io.ErrUnexpectedEOF) && r.ContentLength < 0:
				return b, held, errorf(http.StatusBadRequest, "the request body ended before its last chunk: send the whole body")
			case errors.Is(err, io.ErrUnexpectedEOF):
				return b, held, errorf(http.StatusBadRequest, "the request body ended after %d of the %d bytes its Content-Length announced: send the whole body",
					len(b), r.ContentLength)
			default:
				s.log.Debug("reading a request body failed", "remote", r.RemoteAddr, "err", err)
				return b, held, errorf(http.StatusBadRequest, "the request body could not be read (the connection failed): send the request again")
			}
		}
	}
}
