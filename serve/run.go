package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// HTTPServer returns an http.Server for the handler with the timeouts of the options, for a caller that runs it
// itself (nil for a nil or zero Server).
func (s *Server) HTTPServer() *http.Server {
	if !s.ok() {
		return nil
	}
	return &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// SkipShutdownDelay ends the ShutdownDelay of a graceful shutdown under way (the listener then closes and the
// requests in flight drain), as a second SIGTERM or SIGINT does for rff serve, and reports whether a delay was under
// way; called before a shutdown, it makes that shutdown — and every later one of the Server — skip its delay. It
// does nothing for a nil or zero Server.
func (s *Server) SkipShutdownDelay() bool {
	if !s.ok() {
		return false
	}
	under := s.delaying.Load()
	s.hurryOne.Do(func() { close(s.hurry) })
	return under
}

// Serve serves HTTP on ln (HTTPS when tlsConfig is not nil: it must hold the certificate) until ctx is done, then
// shuts down gracefully: the readiness check turns false, requests are still served for ShutdownDelay, the listener
// closes, and the requests in flight finish (for at most DrainTimeout) before Serve returns nil. Readiness is the
// Server's: while one Serve shuts down, the Server is not ready on any listener; once it has returned, a Serve on
// another listener (or a new one) is ready again. It returns an error
// when serving fails or the drain times out, and for a nil or zero Server, a nil ctx or a nil ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tlsConfig *tls.Config) error {
	switch {
	case !s.ok():
		return errNoServer
	case ctx == nil:
		return errors.New("serve: Serve: nil context")
	case ln == nil:
		return errors.New("serve: Serve: nil listener")
	}
	hs := s.HTTPServer()
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			cfg := tlsConfig.Clone()
			if cfg.MinVersion == 0 {
				cfg.MinVersion = tls.VersionTLS12
			}
			hs.TLSConfig = cfg
			errc <- hs.ServeTLS(ln, "", "")
			return
		}
		errc <- hs.Serve(ln)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Add(1) // until Serve returns: a Server serving elsewhere, or served anew, is ready again
	defer s.draining.Add(-1)
	if d := s.opts.ShutdownDelay; d > 0 {
		s.log.Info("shutting down: not ready, serving until the delay is over", "delay", d.String())
		// Keep-alive connections are closed after their next answer (Connection: close): their clients reconnect,
		// which a load balancer can steer elsewhere, instead of sending a request on a connection the closing
		// port would drop unanswered.
		hs.SetKeepAlivesEnabled(false)
		t := time.NewTimer(d)
		s.delaying.Store(true)
		select {
		case err := <-errc: // serving failed during the delay
			t.Stop()
			s.delaying.Store(false)
			return err
		case <-s.hurry:
			t.Stop()
			s.log.Info("shutting down: delay ended early")
		case <-t.C:
		}
		s.delaying.Store(false)
	}
	s.log.Info("shutting down: draining requests in flight", "timeout", s.opts.DrainTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.DrainTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		_ = hs.Close()
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	s.log.Info("shut down")
	return nil
}
