package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rffkit/rff/internal/cliflag"
	"github.com/rffkit/rff/serve"
)

// serveListening, when set (by tests), is called with the address once the server listens and its signal handlers
// are installed.
var serveListening func(addr net.Addr)

// serveLoading, when set (by tests), is called once the address is bound, before the models load.
var serveLoading func()

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stdout, "--models DIR [--addr 127.0.0.1:8080] [flags]")
	dir := fs.String("models", "", "directory of model files: every NAME.rff is served as the model NAME")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks a free one)")
	maxBody := fs.String("max-body", "32MiB", "largest request body (bytes, or with a unit: 32MiB, 10MB); larger requests get 413")
	maxRows := fs.Int("max-rows", 100000, "most rows in one inference request; more get 413")
	maxConc := fs.Int("max-concurrent", 0, "inference requests processed at once (default 2 × GOMAXPROCS)")
	maxQueue := fs.Int("max-queue", 0, "inference requests that may wait for a slot (default 8 × --max-concurrent; -1: none); beyond, 503 with Retry-After")
	queueTimeout := fs.Duration("queue-timeout", time.Second, "longest wait for an inference slot before 503")
	readTimeout := fs.Duration("read-timeout", 60*time.Second, "time to read a whole request")
	writeTimeout := fs.Duration("write-timeout", 60*time.Second, "time to answer, from the end of the request header")
	idleTimeout := fs.Duration("idle-timeout", 120*time.Second, "time an idle keep-alive connection is kept")
	drainTimeout := fs.Duration("drain-timeout", 30*time.Second, "on SIGTERM or SIGINT, time given to the requests in flight")
	shutdownDelay := fs.Duration("shutdown-delay", 0, "on SIGTERM or SIGINT, time the server goes on answering, with /v2/health/ready already 503, before it closes the port and drains (lets load balancers that poll readiness stop sending requests first; a second signal ends it; the delay and --drain-timeout together must fit in the orchestrator's grace period)")
	tokenFile := fs.String("token-file", "", "file holding a bearer token: requests other than the health checks must send \"Authorization: Bearer TOKEN\"; re-read on SIGHUP and with --watch (a missing or empty file keeps the old token)")
	tlsCert := fs.String("tls-cert", "", "certificate file (PEM) for HTTPS, with --tls-key")
	tlsKey := fs.String("tls-key", "", "private key file (PEM) for HTTPS, with --tls-cert")
	watch := fs.Bool("watch", false, "poll the model directory and reload the files whose size or modification time changed, or that were replaced (SIGHUP re-reads and hashes every file)")
	watchEvery := fs.Duration("watch-interval", 2*time.Second, "polling interval of --watch")
	logFormat := fs.String("log-format", "text", "log format on stderr: text or json")
	logLevel := fs.String("log-level", "info", "log level: debug (one line per request), info, warn or error")
	mem := registerMemory(fs.FlagSet)
	fs.Lookup("max-memory").Usage = "largest model file loaded, in bytes or with a unit (512MiB, 8GiB); a larger file, or one that does not start as a model file, is refused unread and logged, and so is a version-1 model whose map (redrawn from its seed) would need more memory; 0 = half of the memory available, -1 = no limit but the machine's memory and swap"
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usagef("--models is required")
	}
	body, err := parseBytes(*maxBody)
	if err != nil {
		return usagef("--max-body: %v", err)
	}
	switch {
	case *maxRows < 1:
		return usagef("--max-rows must be ≥ 1, got %d", *maxRows)
	case *maxConc < 0:
		return usagef("--max-concurrent must be ≥ 0 (0: the default), got %d", *maxConc)
	case *maxQueue < -1:
		return usagef("--max-queue must be ≥ -1 (-1: no waiting requests), got %d", *maxQueue)
	case *shutdownDelay < 0:
		return usagef("--shutdown-delay must be ≥ 0, got %v", *shutdownDelay)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"queue-timeout", *queueTimeout}, {"read-timeout", *readTimeout}, {"write-timeout", *writeTimeout},
		{"idle-timeout", *idleTimeout}, {"drain-timeout", *drainTimeout}, {"watch-interval", *watchEvery}} {
		if d.v <= 0 {
			return usagef("--%s must be positive", d.name)
		}
	}
	if flagSet(fs, "watch-interval") && !*watch {
		return usagef("--watch-interval is the polling interval of --watch; give --watch too, or leave it out")
	}
	if (*tlsCert == "") != (*tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usagef("--log-level: %q is not debug, info, warn or error", *logLevel)
	}
	hopts := &slog.HandlerOptions{Level: level}
	var logger *slog.Logger
	switch *logFormat {
	case "text":
		logger = slog.New(slog.NewTextHandler(stderr, hopts))
	case "json":
		logger = slog.New(slog.NewJSONHandler(stderr, hopts))
	default:
		return usagef("--log-format: %q is not text or json", *logFormat)
	}
	opts := serve.Options{MaxBodyBytes: body, MaxRows: *maxRows, MaxConcurrent: *maxConc, MaxQueue: *maxQueue,
		QueueTimeout: *queueTimeout, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout,
		IdleTimeout: *idleTimeout, DrainTimeout: *drainTimeout, ShutdownDelay: *shutdownDelay, Logger: logger, Version: Version, MaxModelBytes: budgetOf(*mem)}
	opts.ReadHeaderTimeout = min(*readTimeout, 10*time.Second)
	opts.TokenFile = *tokenFile // re-read on SIGHUP and, with --watch, when it changes
	var tlsConfig *tls.Config
	if *tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}

	if _, err := net.ResolveTCPAddr("tcp", *addr); err != nil { // a malformed address
		return usagef("--addr %s: %v", *addr, err)
	}
	// The signals are caught before anything else: a SIGHUP or SIGTERM while the models load (the port already
	// open) waits for the loading to end — then reloads, or exits 0 — instead of killing the process.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	// The address is bound before the models load: a port in use fails at once, with nothing logged.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return usagef("--addr %s: %v", *addr, err)
	}
	defer ln.Close() // on the errors below; Serve closes it otherwise, and a second Close is harmless
	if serveLoading != nil {
		serveLoading()
	}
	s, err := serve.New(*dir, opts)
	if errors.Is(err, serve.ErrTokenFile) {
		return usagef("--token-file: %v (write one token, no spaces, into the file)", err)
	}
	if err != nil {
		return fmt.Errorf("--models: %w", err)
	}
	if len(s.Models()) == 0 && !*watch {
		return usagef("--models %s holds no model that loads (NAME%s files; the log says why); add --watch to wait for one", *dir, serve.Ext)
	}

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan struct{}) // closed when Serve has returned
	defer close(served)
	go func() {
		stopping := false
		for {
			select {
			case <-served:
				return
			case sig := <-sigs:
				switch {
				case sig == syscall.SIGHUP && !stopping:
					logger.Info("SIGHUP: reloading the model directory and the token file")
					_ = s.Reload() // the files that failed are logged
				case sig == syscall.SIGHUP:
					logger.Info("SIGHUP ignored: shutting down")
				case !stopping:
					logger.Info("signal received", "signal", sig.String())
					stopping = true
					stop()
				case s.SkipShutdownDelay(): // a second SIGTERM or SIGINT: no more waiting for the load balancer
					logger.Info("second signal: shutdown delay ended", "signal", sig.String())
				default:
					logger.Info("second signal: already draining the requests in flight", "signal", sig.String(), "timeout", drainTimeout.String())
				}
			}
		}
	}()
	if *watch {
		go s.Watch(ctx, *watchEvery)
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	o := s.Options()
	logger.Info("listening", "url", scheme+"://"+ln.Addr().String(), "models", s.Models(),
		"max_concurrent", o.MaxConcurrent, "max_queue", o.MaxQueue, "auth", o.Token != "" || o.TokenFile != "")
	if serveListening != nil {
		serveListening(ln.Addr())
	}
	return s.Serve(ctx, ln, tlsConfig)
}

// parseBytes reads a positive byte count, written as for --max-memory (cliflag.ParseMemory): 1048576, 32MiB, 10MB,
// 1.5GiB.
func parseBytes(s string) (int64, error) {
	v, err := cliflag.ParseMemory(s)
	if err != nil || v < 1 || v > 1<<62 {
		return 0, fmt.Errorf("%q is not a byte count such as 1048576, 32MiB or 10MB", s)
	}
	return v, nil
}
