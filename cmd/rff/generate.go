package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/atomicfile"
)

func runGenerate(args []string, stdout, stderr io.Writer) error {
	name := "<" + strings.Join(dataset.Generators(), "|") + ">"
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) == 0 || (args[0] != "-h" && args[0] != "--help" && args[0] != "-help") {
			for _, a := range args {
				if slices.Contains(dataset.Generators(), a) { // named, but after the flags
					return usagef("name the generator before the flags: rff generate %s %s", a, strings.Join(slices.DeleteFunc(slices.Clone(args), func(s string) bool { return s == a }), " "))
				}
			}
			return usagef("name a generator: %s", strings.Join(dataset.Generators(), ", "))
		}
		args = append([]string{name}, args...) // help: the flags of every generator
	}
	name, args = args[0], args[1:]
	fs := newFlags("generate "+name, stdout, "--n N [--seed S] [--noise s] [--out FILE]")
	n := fs.Int("n", 1000, "number of rows")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same field and the same inputs)")
	noise := fs.Float64("noise", 0, "standard deviation of the Gaussian noise added to the targets")
	out := fs.String("out", "", "CSV file to write atomically (default stdout); the header names the columns x1…,y1…")
	mem := registerMemory(fs.FlagSet)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return usagef("--n must be at least 1, got %d", *n)
	}
	// The rows (at most 24 columns for the generators here); the CSV text is streamed to the file.
	if err := checkMemory(*mem, float64(*n)*24*8, fmt.Sprintf("%d rows", *n), "--n"); err != nil {
		return err
	}
	if *out != "" {
		if err := checkOutput(*out); err != nil {
			return err
		}
	}
	g, err := dataset.Generate(name, *n, *seed, *noise)
	if err != nil {
		return usageError{err.Error()}
	}
	if *out == "" {
		return g.WriteCSV(stdout)
	}
	return atomicfile.WriteWith(*out, g.WriteCSV)
}
