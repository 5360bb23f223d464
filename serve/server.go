package serve

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rffkit/rff/dataset"
)

// The names of the tensors a server reads and writes.
const (
	InputName         = "input"       // the [n, d] input tensor (any name is accepted for it)
	OutputPredictions = "predictions" // [n, p] FP64: the model's outputs (class scores for a classifier)
	OutputLabels      = "labels"      // [n] BYTES: the predicted class names (classifiers)
	OutputScores      = "scores"      // [n, k] FP64: the class scores (classifiers; the same values as predictions)
	// OutputProbabilities is [n, k] FP64: the class probabilities of a classifier fitted with the logistic loss, the
	// softmax of its scores (rff.Prediction.Probabilities), answered when a request names it; other models have none.
	OutputProbabilities = "probabilities"
	// OutputStd is [n, p] FP64: the predictive standard deviation of each prediction of a regression model fitted
	// with uncertainty, noise included (rff.Model.PredictStd with noise), answered when a request names it; other
	// models have none.
	OutputStd = "std"
)

// Options configure a Server. The zero value of a field means its default.
type Options struct {
	// MaxBodyBytes is the largest request body accepted (default 32 MiB); a larger one is answered 413. A body is
	// read before its request takes an inference slot, into memory that grows as its bytes arrive; the bodies held
	// at once (being received, waiting for a slot or being processed) total at most MaxConcurrent × MaxBodyBytes
	// bytes received, and a request whose body would exceed that is answered 503 with a Retry-After header. It also
	// bounds an answer, which is held whole while it is sent: a request whose answer could be longer (its rows times
	// the values of the outputs it asks for, each at its longest) is answered 413.
	MaxBodyBytes int64
	// MaxRows is the largest number of rows in one inference request (default 100000); more are answered 413.
	MaxRows int
	// MaxConcurrent is the number of inference requests processed (decoded, predicted and answered) at once
	// (default 2 × GOMAXPROCS). A request takes its slot only once its whole body has arrived, so clients that
	// send slowly do not hold slots.
	MaxConcurrent int
	// MaxQueue is the number of inference requests that may wait for a free slot (default 8 × MaxConcurrent;
	// negative: none wait). A request that finds the queue full, or waits longer than QueueTimeout, is answered
	// 503 with a Retry-After header, so a saturated server sheds load instead of queueing it without bound.
	MaxQueue int
	// QueueTimeout is the longest a request waits for a slot (default 1 s).
	QueueTimeout time.Duration
	// Token, when set, is the bearer token every request but the health checks must present
	// ("Authorization: Bearer TOKEN"); it is compared in constant time.
	Token string
	// TokenFile, when set instead of Token, is a file holding the bearer token (one word; surrounding white space
	// is ignored). New fails when it cannot be read; Reload re-reads it, and Watch when its size or modification
	// time changes or it is replaced by another file, so a rotated token takes effect without a restart. A file
	// that is missing, unreadable, empty or holds more than one word on a reload keeps the token in force (logged
	// and returned by Reload): a failed rotation never opens the server up.
	TokenFile string
	// Timeouts of the HTTP server built by Serve: reading a request's header (default 10 s) and whole request
	// (default 60 s), writing the response (default 60 s, counted from the end of the request header), and
	// keeping an idle connection (default 120 s); DrainTimeout bounds the graceful shutdown (default 30 s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout, DrainTimeout time.Duration
	// ShutdownDelay is how long Serve goes on serving once ctx is done, with the readiness check already false,
	// before it closes the listener and drains (default 0: at once). A load balancer that polls the readiness
	// check (a Kubernetes Service, for one) stops sending new requests during the delay, instead of having them
	// refused by a closed port; answers during the delay close their keep-alive connections (Connection: close), so
	// that clients reconnect rather than send a request the closing port would drop. SkipShutdownDelay ends it early.
	ShutdownDelay time.Duration
	// MaxModelBytes is the largest model file loaded (default: half of the memory available, as the rff command's
	// default budget); a larger file, or one whose first bytes are not a model file's, is refused without reading
	// the rest (logged and returned by Reload), and a good model of the same name stays in service. It bounds as
	// well the memory of redrawing the map of a version-1 file, which stores only its seed (rff.ReadAtMost): such a
	// model is refused before its map is drawn.
	MaxModelBytes int64
	// Logger receives the server's structured logs (default: discarded).
	Logger *slog.Logger
	// Version is the server version reported by GET /v2.
	Version string
}

func (o *Options) defaults() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 32 << 20
	}
	if o.MaxRows <= 0 {
		o.MaxRows = 100000
	}
	if o.MaxModelBytes <= 0 {
		o.MaxModelBytes = dataset.DefaultMaxBytes()
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = 2 * runtime.GOMAXPROCS(0)
	}
	switch {
	case o.MaxQueue == 0:
		o.MaxQueue = 8 * o.MaxConcurrent
	case o.MaxQueue < 0:
		o.MaxQueue = 0
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.QueueTimeout, time.Second)
	def(&o.ReadHeaderTimeout, 10*time.Second)
	def(&o.ReadTimeout, 60*time.Second)
	def(&o.WriteTimeout, 60*time.Second)
	def(&o.IdleTimeout, 120*time.Second)
	def(&o.DrainTimeout, 30*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// Server serves the models of one directory over HTTP (Open Inference Protocol v2, REST). It is safe for
// concurrent use; Reload and Watch swap its models while it serves.
type Server struct {
	dir     string
	opts    Options
	log     *slog.Logger
	metrics *metrics
	handler http.Handler

	models   atomic.Pointer[modelSet]
	reloadMu sync.Mutex
	seen     map[string]stamp // the directory as the last reload found it (guarded by reloadMu)
	// loaded is, for each model in service, the stamp of its file when the model was read from it or its bytes
	// were last hashed and found the same (guarded by reloadMu): a reload of Watch does not read again a file that
	// still has that stamp.
	loaded map[string]stamp

	slots    chan struct{} // one per inference request being processed
	bodyMax  int64         // the bytes of request bodies held at once: MaxConcurrent × MaxBodyBytes (see readBody)
	bodyHeld atomic.Int64  // the bytes of request bodies held now
	reading  atomic.Int64  // inference requests whose body is being received
	chunks   chunkWorkers  // one per chunk of rows of a large request being predicted (see predict)
	waiting  atomic.Int64  // inference requests waiting for a slot
	draining atomic.Int32  // the graceful shutdowns under way (of Serve calls): not ready while any is
	hurry    chan struct{} // closed by SkipShutdownDelay
	hurryOne sync.Once
	delaying atomic.Bool // a shutdown delay is under way

	token atomic.Pointer[tokenState] // the bearer token in force (replaced under reloadMu)

	bodies  sync.Pool // *[]byte request bodies
	inputs  sync.Pool // *[]float64 input matrices
	answers sync.Pool // *[]byte response bodies
}

// New returns a server of the models in dir (every file NAME.rff, served as NAME), loaded and checked. It fails
// only when dir cannot be read, or Options.TokenFile (or both Token and TokenFile) is wrong; a model file that
// fails to load is logged and left out (Reload tells which).
func New(dir string, opts Options) (*Server, error) {
	opts.defaults()
	if dir == "" {
		return nil, errors.New("serve.New: no model directory given")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if _, err := os.ReadDir(dir); err != nil {
		return nil, err
	}
	s := &Server{dir: dir, opts: opts, log: opts.Logger, metrics: newMetrics(),
		slots: make(chan struct{}, opts.MaxConcurrent), chunks: newChunkWorkers(), hurry: make(chan struct{})}
	s.bodyMax = opts.MaxBodyBytes * int64(opts.MaxConcurrent)
	if s.bodyMax/int64(opts.MaxConcurrent) != opts.MaxBodyBytes { // overflow
		s.bodyMax = math.MaxInt64
	}
	if err := s.initToken(); err != nil {
		return nil, err
	}
	s.models.Store(&modelSet{byName: map[string]*entry{}})
	s.metrics.register(s)
	s.handler = s.routes()
	s.reloadMu.Lock()
	_ = s.reload(false) // the files that failed are logged
	s.reloadMu.Unlock()
	return s, nil
}

// ok reports whether s was made by New.
func (s *Server) ok() bool { return s != nil && s.handler != nil }

// errNoServer is the error of a method called on a nil or zero Server.
var errNoServer = errors.New("serve: nil or zero Server (use New)")

// Handler returns the HTTP handler of the server: the protocol's endpoints under /v2 and the Prometheus metrics
// under /metrics (nil for a nil or zero Server).
func (s *Server) Handler() http.Handler {
	if !s.ok() {
		return nil
	}
	return s.handler
}

// Options returns the options in force, defaults filled in (the zero Options for a nil Server).
func (s *Server) Options() Options {
	if s == nil {
		return Options{}
	}
	return s.opts
}
