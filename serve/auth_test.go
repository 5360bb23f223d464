package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"
)

// Every endpoint but the health checks needs the bearer token; a wrong one, another scheme or none is answered 401.
func TestBearerToken(t *testing.T) {
	const token = "s3cret-token"
	_, ts := newTestServer(t, copyModels(t, "ridge-sr=reg"), Options{Token: token})
	c := ts.Client()
	body := matrixBody([]float64{1, 2, 3}, 1, 3, "FP64")
	for _, path := range []string{"/v2/health/live", "/v2/health/ready"} {
		if code, _, b := do(t, c, "GET", ts.URL+path, nil); code != 200 {
			t.Errorf("%s without a token: %d %s", path, code, b)
		}
	}
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token, "Bearer s3cret-toke"} {
		for _, r := range []struct{ method, path string }{
			{"POST", "/v2/models/reg/infer"}, {"GET", "/v2/models/reg"}, {"GET", "/v2/models/reg/ready"},
			{"GET", "/v2"}, {"GET", "/metrics"}, {"GET", "/v2/models/nope"},
		} {
			var h []string
			if auth != "" {
				h = []string{"Authorization", auth}
			}
			code, hd, b := do(t, c, r.method, ts.URL+r.path, body, h...)
			checkError(t, r.path+" with "+auth, code, hd, b, 401, "bearer token")
			if hd.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: no WWW-Authenticate", r.path)
			}
		}
	}
	// Two Authorization headers are refused, whichever comes first and even when both hold the token.
	for _, pair := range [][2]string{{token, "wrong"}, {"wrong", token}, {token, token}} {
		code, hd, b := do(t, c, "POST", ts.URL+"/v2/models/reg/infer", body, "Authorization", "Bearer "+pair[0], "Authorization", "Bearer "+pair[1])
		checkError(t, "two Authorization headers "+pair[0]+", "+pair[1], code, hd, b, 401, "bearer token")
	}
	for _, auth := range []string{"Bearer " + token, "bearer " + token, "BEARER  " + token + " "} {
		infer(t, c, ts.URL, "reg", body, "Authorization", auth)
		if code, _, _ := do(t, c, "GET", ts.URL+"/metrics", nil, "Authorization", auth); code != 200 {
			t.Errorf("/metrics with %q: %d", auth, code)
		}
	}
}

// selfSigned returns a TLS certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rff test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// serveOn runs s.Serve on a loopback listener; stop cancels it and returns Serve's result.
func serveOn(t *testing.T, s *Server, cfg *tls.Config) (addr string, stop func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln, cfg) }()
	var once bool
	var result error
	stop = func() error {
		if !once {
			once = true
			cancel()
			result = <-errc
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return ln.Addr().String(), stop
}

// Serve with a certificate speaks HTTPS (TLS 1.2 at least) and the predictions are the same.
func TestTLS(t *testing.T) {
	s, err := New(copyModels(t, "cls-onehot=cls"), Options{Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	cert, pool := selfSigned(t)
	addr, stop := serveOn(t, s, &tls.Config{Certificates: []tls.Certificate{cert}})
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	base := "https://" + addr
	X := randomRows(4, 6, 2)
	want, _ := loadGolden(t, "cls-onehot").PredictRows(X, 6)
	r := infer(t, c, base, "cls", matrixBody(X, 6, 2, "FP64"), "Authorization", "Bearer tok")
	got, _ := r.floats(t, OutputPredictions)
	sameBits(t, "over TLS", got, want.Values)
	if code, _, _ := do(t, c, "GET", base+"/v2/models/cls", nil); code != 401 {
		t.Errorf("no token over TLS: %d", code)
	}
	old := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if _, err := old.Get(base + "/v2/health/live"); err == nil {
		t.Error("TLS 1.1 was accepted")
	}
	untrusting := &http.Client{Timeout: 10 * time.Second}
	if _, err := untrusting.Get(base + "/v2/health/live"); err == nil {
		t.Error("a client that does not trust the certificate connected")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
