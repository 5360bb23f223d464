package serve

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, in a registry of its own (several servers may live in one
// process). The model label takes only the names of models being served ("" otherwise), so requests cannot grow
// the number of series.
type metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec   // route, model, code
	errors       *prometheus.CounterVec   // route, model, code (code ≥ 400)
	latency      *prometheus.HistogramVec // route, model: request handling time
	predict      *prometheus.HistogramVec // model: the prediction alone
	rows         *prometheus.CounterVec   // model
	rejected     prometheus.Counter       // inference requests shed with 503
	inFlight     prometheus.Gauge         // inference requests holding a slot
	loaded       prometheus.Gauge
	reloads      *prometheus.CounterVec // result
	loadErrors   prometheus.Counter
	tokenReloads *prometheus.CounterVec // result: rotated, unchanged or error
	panics       prometheus.Counter
}

func newMetrics() *metrics {
	const ns = "rff_serve_"
	buckets := []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	return &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "requests_total",
			Help: "HTTP requests by route, model and status code."}, []string{"route", "model", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "errors_total",
			Help: "HTTP requests answered with a status code of 400 or more, by route, model and code."},
			[]string{"route", "model", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: ns + "request_duration_seconds",
			Help: "Time from the request to the response written, by route and model.", Buckets: buckets},
			[]string{"route", "model"}),
		predict: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: ns + "predict_duration_seconds",
			Help: "Time spent predicting a request's rows (one batch), by model.", Buckets: buckets},
			[]string{"model"}),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "rows_predicted_total",
			Help: "Rows predicted, by model."}, []string{"model"}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{Name: ns + "rejected_total",
			Help: "Inference requests shed with 503: every slot busy and the queue full or too slow, or the request bodies held at their budget."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: ns + "in_flight_requests",
			Help: "Inference requests being processed."}),
		loaded: prometheus.NewGauge(prometheus.GaugeOpts{Name: ns + "models_loaded",
			Help: "Models being served."}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "reloads_total",
			Help: "Reads of the model directory, by result (ok, or error when a file failed)."}, []string{"result"}),
		loadErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: ns + "model_load_errors_total",
			Help: "Model files that failed to load or check."}),
		tokenReloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "token_reloads_total",
			Help: "Re-reads of the bearer token file, by result (rotated, unchanged, or error: the previous token stays in force)."},
			[]string{"result"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{Name: ns + "panics_total",
			Help: "Handler panics recovered (answered 500)."}),
	}
}

func (m *metrics) register(s *Server) {
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.predict, m.rows, m.rejected, m.inFlight, m.loaded,
		m.reloads, m.loadErrors, m.tokenReloads, m.panics,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rff_serve_queued_requests",
		Help: "Inference requests waiting for a slot."}, func() float64 { return float64(s.waiting.Load()) }))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "rff_serve_receiving_requests",
		Help: "Inference requests whose body is being received (they hold no slot yet)."},
		func() float64 { return float64(s.reading.Load()) }))
}

// forget removes the series of a model no longer served, so that a server whose models come and go under new names
// does not keep a series for every name it ever served (a request still in flight on it may record one more).
func (m *metrics) forget(model string) {
	l := prometheus.Labels{"model": model}
	m.requests.DeletePartialMatch(l)
	m.errors.DeletePartialMatch(l)
	m.latency.DeletePartialMatch(l)
	m.predict.DeletePartialMatch(l)
	m.rows.DeletePartialMatch(l)
}

// observe records a finished request.
func (m *metrics) observe(route, model string, code int, seconds float64) {
	c := strconv.Itoa(code)
	m.requests.WithLabelValues(route, model, c).Inc()
	if code >= 400 {
		m.errors.WithLabelValues(route, model, c).Inc()
	}
	m.latency.WithLabelValues(route, model).Observe(seconds)
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
