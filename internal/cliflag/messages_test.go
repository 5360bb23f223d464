package cliflag

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The library's internal "package.Function: " prefixes are taken out of the command's one-line messages, wherever
// they appear in the chain; other text with dots and colons stays.
func TestStripInternal(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"learn.NewPosterior: output 1: the targets are too small", "output 1: the targets are too small"},
		{"the median heuristic for σ: kernel.MedianSigma: all 3 sampled rows are equal", "the median heuristic for σ: all 3 sampled rows are equal"},
		{"--solver cg: vector.Ridge.Fit: learn.Ridge.Solve: no convergence", "--solver cg: no convergence"},
		{"train.csv:3: column 2: \"x\" is not a number", "train.csv:3: column 2: \"x\" is not a number"},
		{"model.rff: version 9 is newer: upgrade rff", "model.rff: version 9 is newer: upgrade rff"},
		{"rff.Fit: x", "rff.Fit: x"}, // the root package's names are public API: left alone
		{"learn.ridge: lower case is not a prefix", "learn.ridge: lower case is not a prefix"},
		// files named like a library function keep their names
		{"model.RFF: model file is truncated", "model.RFF: model file is truncated"},
		{"learn.Data:3: column 2: 1e300 is too large", "learn.Data:3: column 2: 1e300 is too large"},
		{"reading learn.Data: learn.Features: x", "reading learn.Data: x"},
	} {
		if got := StripInternal(c.in); got != c.want {
			t.Errorf("StripInternal(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// internalNames holds every "package.Function" that the library's messages start with: a string literal of the
// library's sources that begins with one is in the list, so that stripInternal removes it.
func TestInternalNamesComplete(t *testing.T) {
	literal := regexp.MustCompile(`"((?:approx|bound|dataset|feature|kernel|learn|linalg|model|nystrom|ovk|rule|structured|vector)\.[A-Z]\w*(?:\.[A-Z]\w*)*)`)
	seen := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "cmd" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			filepath.Base(path) == "messages.go" && filepath.Base(filepath.Dir(path)) == "cliflag" { // the list itself
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			seen[m[1]] = true
			if !internalNames[m[1]] {
				t.Errorf("%s: the message prefix %q is not in internalNames", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range internalNames { // a name no message uses any more is stale
		if !seen[name] {
			t.Errorf("internalNames lists %q, which no message of the library starts with", name)
		}
	}
}
