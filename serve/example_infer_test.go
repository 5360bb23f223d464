package serve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/serve"
)

// fitSine fits y = sin(3a) + b on 300 rows of [−1, 1]² and saves the model as dir/NAME.rff.
func fitSine(dir, name string) error {
	data := &dataset.Data{N: 300, D: 2, Names: []string{"a", "b"}, TargetName: "y"}
	for i := range data.N {
		a, b := math.Sin(float64(7*i)), math.Cos(float64(5*i))
		data.X = append(data.X, a, b)
		data.Y = append(data.Y, math.Sin(3*a)+b)
	}
	m, err := rff.Fit(rff.Config{Sigma: 1, Points: 128, Lambda: 1e-8, Seed: 1}, data)
	if err != nil {
		return err
	}
	return m.Save(filepath.Join(dir, name+".rff"))
}

// sineModels makes a temporary directory holding the model of fitSine as NAME.rff for each name (remove it when
// done).
func sineModels(names ...string) (string, error) {
	dir, err := os.MkdirTemp("", "models")
	if err != nil {
		return "", err
	}
	for _, name := range names {
		if err := fitSine(dir, name); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}

// New serves every NAME.rff file of a directory as the model NAME; here one model, asked for its metadata.
func ExampleNew() {
	dir, err := sineModels("sine")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	s, err := serve.New(dir, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/v2/models/sine")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var meta struct {
		Name   string `json:"name"`
		Inputs []struct {
			Name  string `json:"name"`
			Shape []int  `json:"shape"`
		} `json:"inputs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, meta.Name, meta.Inputs[0].Name, meta.Inputs[0].Shape)
	// Output: 200 sine input [-1 2]
}

// The handler answers the Open Inference Protocol: a POST to /v2/models/NAME/infer with the rows as one [n, d]
// tensor returns the predictions as an [n, p] tensor.
func ExampleServer_Handler() {
	dir, err := sineModels("sine")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := serve.New(dir, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()

	// One row, (a, b) = (0.2, 0.5): sin(0.6) + 0.5 ≈ 1.06.
	body := `{"inputs": [{"name": "input", "shape": [1, 2], "datatype": "FP64", "data": [0.2, 0.5]}]}`
	resp, err := http.Post(ts.URL+"/v2/models/sine/infer", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var out struct {
		Outputs []struct {
			Name  string    `json:"name"`
			Shape []int     `json:"shape"`
			Data  []float64 `json:"data"`
		} `json:"outputs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		fmt.Println(err)
		return
	}
	p := out.Outputs[0]
	fmt.Printf("%d %s %v %.1f\n", resp.StatusCode, p.Name, p.Shape, p.Data[0])

	// A malformed request is answered 400 with the error in JSON.
	resp, err = http.Post(ts.URL+"/v2/models/sine/infer", "application/json", strings.NewReader(`{"inputs": []}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output:
	// 200 predictions [1 1] 1.1
	// 400
}

// Models lists the models being served: files that are not NAME.rff are ignored, and a file that fails to load is
// left out (Reload returns its error).
func ExampleServer_Models() {
	dir, err := os.MkdirTemp("", "models")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"beta", "alpha"} {
		if err := fitSine(dir, name); err != nil {
			fmt.Println(err)
			return
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "README.txt"), []byte("not a model\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "broken.rff"), []byte("RFFMODEL"), 0o644)

	s, err := serve.New(dir, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Models())
	fmt.Println("reload fails on broken.rff:", strings.Contains(fmt.Sprint(s.Reload()), "broken"))
	// Output:
	// [alpha beta]
	// reload fails on broken.rff: true
}

// Serve runs the HTTP server on a listener with the options' timeouts until its context is done, then shuts down
// gracefully: here it answers a readiness check, and returns nil once cancelled.
func ExampleServer_Serve() {
	dir, err := sineModels("sine")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := serve.New(dir, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // port 0: any free port
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, nil) }()

	resp, err := http.Get("http://" + ln.Addr().String() + "/v2/health/ready")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println("ready:", resp.StatusCode)
	cancel() // as on SIGTERM: not ready, drain, return
	fmt.Println("Serve returned:", <-done)
	// Output:
	// ready: 200
	// Serve returned: <nil>
}

// Reload loads the directory again: a new file becomes a model, and a file that fails to load is reported while
// the models already served stay.
func ExampleServer_Reload() {
	dir, err := sineModels("a")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := serve.New(dir, serve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := fitSine(dir, "b"); err != nil {
		fmt.Println(err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.rff"), []byte("not a model"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	err = s.Reload()
	fmt.Println(s.Models(), err != nil)
	// Output: [a b] true
}

// With a ShutdownDelay, a cancelled Serve first goes on answering, not ready, so that a load balancer stops sending
// requests; SkipShutdownDelay (rff serve calls it on a second signal) ends the delay at once.
func ExampleServer_SkipShutdownDelay() {
	dir, err := sineModels("sine")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s, err := serve.New(dir, serve.Options{ShutdownDelay: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	url := "http://" + ln.Addr().String() + "/v2/health/ready"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, nil) }()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	status := func() int {
		resp, err := c.Get(url)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println("before:", status())
	cancel()
	for status() != http.StatusServiceUnavailable { // until the delay has begun: still answering, not ready
		time.Sleep(time.Millisecond)
	}
	fmt.Println("during the delay:", http.StatusServiceUnavailable)
	s.SkipShutdownDelay()
	fmt.Println("Serve returned:", <-done)
	// Output:
	// before: 200
	// during the delay: 503
	// Serve returned: <nil>
}
