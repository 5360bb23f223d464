package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/rffkit/rff/internal/linalg"
)

// Version is the release of rff.
const Version = "0.1.0"

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stdout, "[--json]")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	info := map[string]any{
		"version":    Version,
		"go":         runtime.Version(),
		"os_arch":    runtime.GOOS + "/" + runtime.GOARCH,
		"backend":    linalg.Info().String(),
		"blas":       linalg.Info(),
		"gomaxprocs": runtime.GOMAXPROCS(0),
	}
	if err := linalg.Info().Err; err != nil { // the backend asked for could not be used
		info["blas_error"] = err.Error()
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == "gonum.org/v1/gonum" {
				info["gonum"] = dep.Version
			}
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(info)
	}
	fmt.Fprintf(stdout, "rff %s (%s, %s, GOMAXPROCS %d)\nbackend: %s\n", Version, info["go"], info["os_arch"], info["gomaxprocs"], info["backend"])
	if bi := linalg.Info(); bi.Note != "" {
		fmt.Fprintf(stdout, "note: %s\n", bi.Note)
	}
	if bi := linalg.Info(); bi.Err != nil {
		fmt.Fprintf(stdout, "error: %v\n", bi.Err)
	}
	return nil
}
