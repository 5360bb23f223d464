package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rffkit/rff"
)

// infoReport is what rff info --json prints.
type infoReport struct {
	Model   string   `json:"model"`   // the file
	Bytes   int64    `json:"bytes"`   // its length
	Summary string   `json:"summary"` // the one-line description of rff.Model.String
	Info    rff.Info `json:"info"`
}

// runInfo describes a model file: what it predicts from which inputs, its kernel, map, λ and preprocessing, and
// whether it holds a posterior — read and checked as predict reads it, without any data.
func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", stdout, "--model FILE [--json]")
	var mf modelFlags
	fs.StringVar(&mf.path, "model", "", "model file written by rff fit")
	mf.data.mem = registerMemory(fs.FlagSet)
	asJSON := fs.Bool("json", false, "print one JSON object: the file, its length in bytes, the one-line summary and the model's description (info)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if mf.path == "" {
		return usagef("--model is required")
	}
	m, err := mf.load()
	if err != nil {
		return err
	}
	r := infoReport{Model: mf.path, Bytes: -1, Summary: m.String(), Info: m.Info()}
	if fi, err := os.Stat(mf.path); err == nil && fi.Mode().IsRegular() {
		r.Bytes = fi.Size()
	}
	var b bytes.Buffer
	if *asJSON {
		if err := json.NewEncoder(&b).Encode(r); err != nil {
			return err
		}
		return printOutput(stdout, b.Bytes())
	}
	in := r.Info
	size := ""
	if r.Bytes >= 0 {
		size = rff.FormatBytes(r.Bytes) + ", "
	}
	fmt.Fprintf(&b, "%s (%sformat version %d)\n%s\n", r.Model, size, in.Version, r.Summary)
	fmt.Fprintf(&b, "inputs (%d): %s\n", len(in.Inputs), strings.Join(in.Inputs, ", "))
	switch {
	case len(in.Labels) > 0:
		fmt.Fprintf(&b, "classes (%d): %s\n", len(in.Labels), strings.Join(in.Labels, ", "))
	case len(in.Targets) > 0:
		fmt.Fprintf(&b, "targets (%d): %s\n", len(in.Targets), strings.Join(in.Targets, ", "))
	}
	if in.Uncertainty {
		fmt.Fprintf(&b, "uncertainty: a posterior (rff predict --std and --samples)\n")
	}
	if in.Loss == "logistic" {
		fmt.Fprintf(&b, "class probabilities: rff predict --probabilities\n")
	}
	fmt.Fprintf(&b, "seed %d\n", in.Seed)
	return printOutput(stdout, b.Bytes())
}
