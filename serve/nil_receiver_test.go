package serve

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: a nil or zero Server (not made by New) is described by zero values and its methods return errors
// or return at once, instead of panicking; Serve also refuses a nil context or listener.
func TestNilReceiver(t *testing.T) {
	var nilServer *Server
	misusetest.CheckZero(t, []zeroValue{
		{"Handler nil", func() any { return nilServer.Handler() }, nil},
		{"Handler zero", func() any { return (&Server{}).Handler() }, nil},
		{"Options nil", func() any { return nilServer.Options() }, Options{}},
		{"Models nil", func() any { return nilServer.Models() }, []string(nil)},
		{"Models zero", func() any { return (&Server{}).Models() }, []string(nil)},
		{"HTTPServer nil", func() any { return nilServer.HTTPServer() }, (*http.Server)(nil)},
		{"HTTPServer zero", func() any { return (&Server{}).HTTPServer() }, (*http.Server)(nil)},
		// Watch returns at once instead of polling: without the check it panics at its first tick.
		{"Watch nil", func() any { nilServer.Watch(context.Background(), time.Millisecond); return true }, true},
		{"Watch zero", func() any { (&Server{}).Watch(context.Background(), time.Millisecond); return true }, true},
	})
	s, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var noCtx context.Context // the nil context a caller may pass by mistake
	misusetest.Check(t, []misusetest.Case{
		{"Reload nil", func() error { return nilServer.Reload() }, "nil or zero Server"},
		{"Reload zero", func() error { return (&Server{}).Reload() }, "nil or zero Server"},
		{"Serve nil", func() error { return nilServer.Serve(ctx, ln, nil) }, "nil or zero Server"},
		{"Serve zero", func() error { return (&Server{}).Serve(ctx, ln, nil) }, "nil or zero Server"},
		{"Serve nil context", func() error { return s.Serve(noCtx, ln, nil) }, "nil context"},
		{"Serve nil listener", func() error { return s.Serve(ctx, nil, nil) }, "nil listener"},
	})
	misusetest.CheckZero(t, []zeroValue{
		{"Watch nil context", func() any { s.Watch(noCtx, time.Millisecond); return true }, true},
	})
}
