// Package datadir locates the real datasets (Powerplant, LETTER, USPS, MNIST, LEUKEMIA, digits) that tests,
// examples and reproduction studies read. The datasets are not part of the module: a fresh clone has none, and
// everything that needs them must skip cleanly when [Path] reports that a file is absent.
//
// The directory is the value of the environment variable RFF_DATA when it is set and not empty. Otherwise it is
// the directory shared/data beside the module root — the module root being the nearest directory, walking up from
// the working directory, whose go.mod declares the module github.com/rffkit/rff (or, if there is none, the
// nearest directory with any go.mod). Tests run in their package's directory, so the default is the same for every
// package of the module.
//
// The layout below the directory is one folder per dataset, with the files as their sources distribute them:
//
//	powerplant/Folds5x2_pp.csv
//	letter/letter-recognition.data
//	usps/usps_train_derived.csv.gz, usps/usps_test_derived.csv.gz
//	mnist/train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz, t10k-labels-idx1-ubyte.gz
//	leukemia/data_set_ALL_AML_train.csv, data_set_ALL_AML_independent.csv, actual.csv
//	digits/digits.csv.gz
package datadir

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// Env is the environment variable that overrides the data directory.
const Env = "RFF_DATA"

// modulePath is the module whose root anchors the default directory.
const modulePath = "github.com/rffkit/rff"

// Dir returns the data directory: $RFF_DATA if set and not empty, else shared/data beside the module root (see the
// package documentation). If no go.mod is found above the working directory, the default is taken relative to the
// working directory's parent. Dir does not check that the directory exists.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	root := moduleRoot()
	if root == "" {
		return filepath.Join("..", "shared", "data")
	}
	return filepath.Join(filepath.Dir(root), "shared", "data")
}

// Path joins elem to [Dir] and reports whether the result exists (as a file or a directory).
func Path(elem ...string) (string, bool) {
	p := filepath.Join(append([]string{Dir()}, elem...)...)
	_, err := os.Stat(p)
	return p, err == nil
}

// moduleRoot walks up from the working directory and returns the first directory whose go.mod declares
// modulePath, else the first directory with any go.mod, else "".
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	first := ""
	for {
		if name, ok := moduleName(filepath.Join(dir, "go.mod")); ok {
			if name == modulePath {
				return dir
			}
			if first == "" {
				first = dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return first
		}
		dir = parent
	}
}

// moduleName reads the module path declared by a go.mod file; ok is false when the file cannot be read.
func moduleName(gomod string) (name string, ok bool) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, found := strings.CutPrefix(line, "module"); found && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`), true
		}
	}
	return "", true
}
