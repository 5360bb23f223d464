package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rffkit/rff/internal/progress"
	"github.com/rffkit/rff/internal/study"
)

// runRepro runs one study of the registry of internal/study: its flags come from its settings, it runs with a
// progress bar on stderr, writes its figures into --out and prints its table (or, with --json, one JSON object).
func runRepro(args []string, stdout, stderr io.Writer) error {
	var names []string
	for _, e := range study.All() {
		names = append(names, e.Name)
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprintln(stdout, "Usage: rff repro <study> [flags]   (rff repro <study> -h for its flags)\n\nStudies:")
			for _, e := range study.All() {
				fmt.Fprintf(stdout, "  %-15s %s\n", e.Name, e.Summary)
			}
			return nil
		}
		return usagef("name a study: %s", strings.Join(names, ", "))
	}
	e, ok := study.Find(args[0])
	if !ok {
		return usagef("unknown study %q (have %s)", args[0], strings.Join(names, ", "))
	}
	s := e.New()
	fs := newFlags("repro "+e.Name, stdout, "[flags]")
	out := fs.String("out", "docs/figures", "directory for the figures (PNG, with the data of each as CSV beside it)")
	asJSON := fs.Bool("json", false, "print the study's results as JSON on stdout instead of a table (the data "+
		"of its table and figures; the keys depend on the study)")
	maxMemory := registerMemory(fs.FlagSet)
	if err := study.Bind(fs.FlagSet, s); err != nil {
		return err
	}
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return usagef("%s: %v", e.Name, err)
	}
	need := s.Memory()
	if !(need >= 0) { // NaN: an estimate that cannot be trusted is over every budget
		need = math.Inf(1)
	}
	if err := checkMemory(*maxMemory, need, e.Name, s.MemoryFlags()); err != nil {
		return err
	}
	if strings.TrimSpace(*out) == "" {
		return usagef("--out must name a directory for the figures")
	}
	// The directory is made before the run (a run that could not write its figures would be lost), and removed again,
	// if it was made here and is still empty, when the run fails.
	_, statErr := os.Stat(*out)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return usagef("--out %s: %v", *out, err)
	}
	wrote := false
	if os.IsNotExist(statErr) {
		defer func() {
			if !wrote {
				os.Remove(*out) // only if empty
			}
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	bar := progress.New(stderr, e.Name, s.Steps())
	s.SetProgress(func() { bar.Add(1) })
	start := time.Now()
	res, err := s.Run(ctx)
	bar.Done()
	if err != nil {
		return fmt.Errorf("%s: %w", e.Name, err)
	}
	seconds := time.Since(start).Seconds()
	paths, err := res.Write(*out)
	wrote = len(paths) > 0
	if err != nil {
		return err
	}
	if *asJSON {
		rep, err := reproReport(e.Name, res, paths, seconds)
		if err != nil {
			return err
		}
		return json.NewEncoder(stdout).Encode(rep)
	}
	if err := res.Summarize(stdout); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "figures: %s (%.1f s)\n", strings.Join(paths, ", "), seconds)
	return err
}

// reproReport is the JSON object of rff repro --json: the result's own fields (numbers kept as written) with the
// study's name, the figures and the wall time.
func reproReport(name string, res study.Result, figures []string, seconds float64) (map[string]any, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	rep := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&rep); err != nil {
		return nil, err
	}
	rep["study"], rep["figures"], rep["seconds"] = name, figures, seconds
	return rep, nil
}
