package main

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// panelTitles returns the titles of the panels of a report page, after checking that it is well-formed (every
// element closed, every attribute quoted) and loads nothing: no script, and no src or href at all.
func panelTitles(t *testing.T, page string) (titles []string, svgs int) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(page))
	dec.Strict = true
	inTitle := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the report is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "h2":
				inTitle = true
				titles = append(titles, "")
			case "svg":
				svgs++
			case "script", "img", "link", "iframe":
				t.Errorf("the report holds a <%s>", tok.Name.Local)
			}
			for _, a := range tok.Attr {
				if a.Name.Local == "src" || a.Name.Local == "href" {
					t.Errorf("<%s %s=%q>", tok.Name.Local, a.Name.Local, a.Value)
				}
			}
		case xml.EndElement:
			inTitle = inTitle && tok.Name.Local != "h2"
		case xml.CharData:
			if inTitle {
				titles[len(titles)-1] += string(tok)
			}
		}
	}
	return titles, svgs
}

func readReport(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report: %v", err)
	}
	return string(b)
}

func TestFitReportRegression(t *testing.T) {
	train, test := writeTask(t, false)
	dir := t.TempDir()
	mpath, rpath := filepath.Join(dir, "m.rff"), filepath.Join(dir, "fit.html")
	code, _, errOut := runCLI("fit", "--data", train, "--test-data", test, "--out", mpath, "-D", "64", "--tune", "--uncertainty", "--report", rpath)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(mpath); err != nil {
		t.Fatalf("no model: %v", err)
	}
	page := readReport(t, rpath)
	titles, svgs := panelTitles(t, page)
	want := []string{"Tuning: GCV over σ and λ", "Predicted vs true", "Residuals", "Interval calibration", "Model", "Data and timings", "Test scores"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Errorf("sections %q, want %q", titles, want)
	}
	if svgs != 4 {
		t.Errorf("%d figures, want 4", svgs)
	}
	for _, s := range []string{"inside 90% intervals", "test R²", filepath.Base(train), "sr-butterfly", "standardize", "300"} {
		if !strings.Contains(page, s) {
			t.Errorf("the report does not show %q", s)
		}
	}
	// The tuning figure has one line per σ scored (7 by default), or more where a line leaves the plot and returns.
	tuning := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindString(page)
	if n := strings.Count(tuning, "<polyline"); n < 7 {
		t.Errorf("%d lines in the tuning figure, want one per σ", n)
	}
}

func TestFitReportClassification(t *testing.T) {
	train, test := writeTask(t, true)
	rpath := filepath.Join(t.TempDir(), "fit.html")
	code, _, errOut := runCLI("fit", "--data", train, "--test-data", test, "--task", "classification", "--out", filepath.Join(t.TempDir(), "m.rff"), "-D", "64", "--report", rpath)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	page := readReport(t, rpath)
	titles, svgs := panelTitles(t, page)
	want := []string{"Confusion matrix", "Tuning", "Model", "Data and timings", "Test scores by class"}
	if strings.Join(titles, "|") != strings.Join(want, "|") || svgs != 1 {
		t.Errorf("sections %q and %d figures, want %q and 1", titles, svgs, want)
	}
	for _, s := range []string{"test accuracy", ">neg<", ">pos<", "were not tuned"} {
		if !strings.Contains(page, s) {
			t.Errorf("the report does not show %q", s)
		}
	}
}

// A logistic classifier's report adds the reliability diagram of its probabilities, with the test log loss and the
// expected calibration error; the solver line names what its residual measures.
func TestFitReportLogistic(t *testing.T) {
	train, test := writeTask(t, true)
	rpath := filepath.Join(t.TempDir(), "fit.html")
	code, _, errOut := runCLI("fit", "--data", train, "--test-data", test, "--task", "classification", "--loss", "logistic",
		"--lambda", "1e-3", "--out", filepath.Join(t.TempDir(), "m.rff"), "-D", "64", "--report", rpath)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	page := readReport(t, rpath)
	titles, svgs := panelTitles(t, page)
	want := []string{"Confusion matrix", "Probability calibration", "Tuning", "Model", "Data and timings", "Test scores by class"}
	if strings.Join(titles, "|") != strings.Join(want, "|") || svgs != 2 {
		t.Errorf("sections %q and %d figures, want %q and 2", titles, svgs, want)
	}
	for _, s := range []string{"test log loss", "calibration error", "overconfident", "lbfgs,", "largest gradient entry"} {
		if !strings.Contains(page, s) {
			t.Errorf("the report does not show %q", s)
		}
	}
	// stopped short by --max-iter: the page says so
	code, _, errOut = runCLI("fit", "--data", train, "--test-data", test, "--task", "classification", "--loss", "logistic",
		"--lambda", "1e-3", "--max-iter", "2", "--out", filepath.Join(t.TempDir(), "m.rff"), "-D", "64", "--report", rpath)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	if page := readReport(t, rpath); !strings.Contains(page, "Solver: L-BFGS stopped after 2 iterations") {
		t.Error("the report of a fit stopped short does not say so")
	}
}

func TestFitReportWithoutTestData(t *testing.T) {
	train, _ := writeTask(t, false)
	rpath := filepath.Join(t.TempDir(), "fit.html")
	code, _, errOut := runCLI("fit", "--data", train, "--out", filepath.Join(t.TempDir(), "m.rff"), "-D", "32", "--cv", "3", "--lambdas", "1e-6:1e-1:6", "--report", rpath)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, errOut)
	}
	page := readReport(t, rpath)
	titles, svgs := panelTitles(t, page)
	want := []string{"λ by cross-validation", "Test data", "Model", "Data and timings"}
	if strings.Join(titles, "|") != strings.Join(want, "|") || svgs != 1 {
		t.Errorf("sections %q and %d figures, want %q and 1", titles, svgs, want)
	}
	if !strings.Contains(page, "No --test-data file was given") {
		t.Error("the report does not say that it has no test data")
	}
}

// TestFitReportRefused checks that a --report path that would overwrite an input or the model, or that lies in a
// missing directory, is refused before the fit, and that nothing is written then.
func TestFitReportRefused(t *testing.T) {
	train, test := writeTask(t, false)
	dir := t.TempDir()
	mpath := filepath.Join(dir, "m.rff")
	for _, c := range []struct {
		report, want string
	}{
		{train, "--report " + train + " is also an input file"},
		{test, "--report " + test + " is also an input file"},
		{mpath, "is also the --out model file"},
		{filepath.Join(dir, "missing", "fit.html"), "--report " + filepath.Join(dir, "missing", "fit.html") + ": the directory"},
		{dir, "--report " + dir + " is a directory"},
	} {
		code, _, errOut := runCLI("fit", "--data", train, "--test-data", test, "--out", mpath, "-D", "16", "--report", c.report)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--report %s: exit %d, %q; want exit 2 and one line with %q", c.report, code, errOut, c.want)
		}
		if _, err := os.Stat(mpath); err == nil {
			t.Fatalf("--report %s: the model was written", c.report)
		}
	}
}
