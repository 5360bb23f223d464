package serve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/serve"
)

// A bearer token read from a file is rotated without a restart: Reload (SIGHUP for rff serve) re-reads the file,
// and a file that cannot be used keeps the token in force.
func ExampleOptions_tokenFile() {
	dir, _ := os.MkdirTemp("", "models")
	defer os.RemoveAll(dir)
	model, _ := os.ReadFile("../testdata/v2/ridge-sr.rff")
	_ = os.WriteFile(filepath.Join(dir, "reg.rff"), model, 0o644)
	tokenFile := filepath.Join(dir, "token")
	_ = os.WriteFile(tokenFile, []byte("first-token\n"), 0o600)

	s, err := serve.New(dir, serve.Options{TokenFile: tokenFile})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	status := func(token string) int {
		req, _ := http.NewRequest("GET", ts.URL+"/v2/models/reg", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println("first token:", status("first-token"))

	_ = os.WriteFile(tokenFile, []byte("second-token\n"), 0o600)
	fmt.Println("reload:", s.Reload())
	fmt.Println("first token:", status("first-token"), "second token:", status("second-token"))

	_ = os.Remove(tokenFile)
	fmt.Println("reload without the file fails:", s.Reload() != nil)
	fmt.Println("second token:", status("second-token"), "no token:", status(""))
	// Output:
	// first token: 200
	// reload: <nil>
	// first token: 401 second token: 200
	// reload without the file fails: true
	// second token: 200 no token: 401
}
