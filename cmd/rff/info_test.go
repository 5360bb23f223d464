package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rffkit/rff"
)

// rff info describes a model file as the library reads it: the summary of Model.String, the inputs, the targets or
// classes, and what the model can predict besides its values (a posterior, class probabilities); --json holds the
// file's length and the library's Info unchanged. A missing flag, a missing file and a file that is no model are
// refused with one line and exit 2, nothing on stdout.
func TestInfo(t *testing.T) {
	const golden = "../../testdata/v2"
	for _, c := range []struct {
		name string
		want []string
	}{
		{"nystrom-uncertainty", []string{"inputs (3): temp, pressure, humidity", "targets (1): power", "uncertainty: a posterior"}},
		{"cls-logistic", []string{"classes (3): setosa, versicolor, virginica", "class probabilities: rff predict --probabilities"}},
		{"ridge-sr", []string{"format version 2", "regression: kernel"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(golden, c.name+".rff")
			m, err := rff.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCLI("info", "--model", path)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range append(c.want, m.String()) {
				if !strings.Contains(out, w) {
					t.Errorf("the description lacks %q:\n%s", w, out)
				}
			}
			if c.name == "ridge-sr" && (strings.Contains(out, "uncertainty") || strings.Contains(out, "probabilities")) {
				t.Errorf("a model without a posterior or probabilities described with them:\n%s", out)
			}
			code, out, errOut = runCLI("info", "--model", path, "--json")
			if code != 0 {
				t.Fatalf("--json: exit %d: %s", code, errOut)
			}
			var r infoReport
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			fi, _ := os.Stat(path)
			if r.Model != path || r.Bytes != fi.Size() || r.Summary != m.String() || !reflect.DeepEqual(r.Info, m.Info()) {
				t.Errorf("--json: %+v, want the file %s of %d bytes and the library's description", r, path, fi.Size())
			}
		})
	}
	notModel := filepath.Join(t.TempDir(), "x.rff")
	if err := os.WriteFile(notModel, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"info"}, "--model is required"},
		{[]string{"info", "--model", filepath.Join(t.TempDir(), "none.rff")}, "no such file"},
		{[]string{"info", "--model", notModel}, "not an rff model file"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line with %q", c.args, code, out, errOut, c.want)
		}
	}
}
