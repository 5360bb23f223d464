// Command rff maps data through random and quadrature-based kernel features and measures how well they
// approximate the kernel. Run "rff help" for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rffkit/rff/internal/atomicfile"
	"github.com/rffkit/rff/internal/cliflag"
	"github.com/rffkit/rff/internal/linalg"
)

// usageError is a command-line mistake: one line on stderr, exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"demo", "compare every rule on built-in data (no files needed, under a minute)", runDemo},
		{"approx", "kernel-approximation study on a dataset (the quadrature paper's protocol)", runApprox},
		{"fit", "train a ridge model on random features (or exact kernel ridge) and save it", runFit},
		{"predict", "predict with a saved model", runPredict},
		{"eval", "score a saved model on labelled data", runEval},
		{"info", "describe a saved model: what it predicts from which inputs, kernel, map, λ, preprocessing", runInfo},
		{"serve", "serve the models of a directory over HTTP (Open Inference Protocol v2, Prometheus metrics)", runServe},
		{"bound", "evaluate a theorem's error bound: the error for D points, or the D needed for an error", runBound},
		{"generate", "write a synthetic dataset (curl-field, multitask) as CSV", runGenerate},
		{"repro", "reproduce a paper's figure on real data sets read from $RFF_DATA (rff repro -h lists them)", runRepro},
		{"bench", "measure the backend (GEMM, Gram GFLOP/s), map throughput per rule and fit time by phase", runBench},
		{"version", "print the version, Go runtime and linear-algebra backend", runVersion},
		{"help", "show this help", nil},
	}
}

func main() {
	// First, before other goroutines run: OpenBLAS (or pure Go, as RFF_BLAS says).
	if err := linalg.UseEnv(); err != nil {
		fmt.Fprintf(os.Stderr, "rff: %s\n", oneLine(err.Error()))
		os.Exit(2)
	}
	if len(os.Args) > 1 && os.Args[1] != "serve" && os.Args[1] != "repro" { // they handle the signals themselves
		removeTempsOnSignal(os.Args[1])
	}
	quietBrokenPipe()
	exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// exit ends the process with code — unless a signal is ending the command: its handler then reports it and exits
// with the signal's code, and exit waits for that.
func exit(code int) {
	if atomicfile.Interrupted() {
		select {}
	}
	os.Exit(code)
}

// quietBrokenPipe turns a write to a closed pipe (rff predict … | head) into an error the command sees, instead of
// the runtime ending the process at once: the command then stops without replacing any file it was writing, and
// run exits as a process killed by SIGPIPE does, with 128 + 13 and nothing on stderr.
func quietBrokenPipe() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // the write fails with EPIPE; the signal is dropped
}

// removeTempsOnSignal ends the process on SIGINT or SIGTERM after removing the temporary files of the writes in
// progress, so that an interrupted command leaves every output file as it was and nothing beside it. The exit code
// is 128 + the signal's number, as a shell reports a process the signal killed.
func removeTempsOnSignal(cmd string) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		atomicfile.Interrupt()
		fmt.Fprintf(os.Stderr, "rff %s: interrupted (%v)\n", cmd, sig)
		code := 128 + 2
		if s, ok := sig.(syscall.Signal); ok {
			code = 128 + int(s)
		}
		os.Exit(code)
	}()
}

// run executes the command line and returns the process exit code: 0 on success, 2 on any error.
//
// A failed write to stdout (a full disk) is an error too: the output is incomplete. A closed pipe ends the command
// quietly with 128 + 13 (SIGPIPE's number), as it ends the shell's tools.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" { // rff help CMD: the command's own help
		args = []string{args[1], "-h"}
	}
	if len(args) == 0 { // a usage error, as for go and git: the usage on stderr, exit 2
		printUsage(stderr)
		return 2
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "rff help: give one command, as in \"rff help fit\"\n")
			return 2
		}
		printUsage(stdout)
		return 0
	}
	out := &cliflag.CheckedWriter{W: stdout}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1)) // a command's limitHeap lasts as long as it
	for _, c := range commands() {
		if c.name == args[0] && c.run != nil {
			err := c.run(args[1:], out, stderr)
			if errors.Is(err, flag.ErrHelp) {
				err = nil
			}
			// Whoever reads stdout has gone: as the shell's tools do, quietly — unless the command failed otherwise.
			if errors.Is(out.Err, syscall.EPIPE) && (err == nil || errors.Is(err, syscall.EPIPE)) {
				return 128 + 13
			}
			if err == nil && out.Err != nil {
				err = fmt.Errorf("writing the output: %w", out.Err)
			}
			if err != nil {
				if atomicfile.Interrupted() { // a write failed because a signal is ending the command: its handler says so
					return 2
				}
				fmt.Fprintf(stderr, "rff %s: %s\n", c.name, cliflag.Message(err, nil))
				return 2
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "rff: unknown command %q (run \"rff help\")\n", args[0])
	return 2
}

// printOutput writes what a command prints, rendered in full beforehand, to stdout; a failure is the command's
// error, returned before the files the command stages (an atomicfile.Batch) replace anything.
func printOutput(stdout io.Writer, text []byte) error {
	if _, err := stdout.Write(text); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "rff — random and quadrature features for kernel methods")
	fmt.Fprintln(w, "\nUsage: rff <command> [flags]   (rff <command> -h for the flags of a command)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
}

// cmdFlags is a command's flag set; errors are returned as values (one line) and help goes to stdout on -h only.
type cmdFlags struct {
	*flag.FlagSet
	stdout   io.Writer
	synopsis string
}

func newFlags(name string, stdout io.Writer, synopsis string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // the flag package calls Usage on every parse error; help is printed on -h only
	return &cmdFlags{fs, stdout, synopsis}
}

// parseFlags parses args and turns flag errors and stray arguments into one-line usage errors.
func parseFlags(fs *cmdFlags, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(fs.stdout, "Usage: rff %s %s\n\nFlags (one or two dashes):\n", fs.Name(), fs.synopsis)
			fs.SetOutput(fs.stdout)
			fs.PrintDefaults()
			return err
		}
		return usageError{flagValueError(fs.FlagSet, err)}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if f := fs.Lookup("max-memory"); f != nil {
		if m, ok := f.Value.(*memoryFlag); ok {
			limitHeap(budgetOf(*m))
		}
	}
	return nil
}

// badFlagValue and badBoolFlag match the flag package's errors for a value the flag does not take.
var (
	badFlagValue = regexp.MustCompile(`^invalid value "(.*)" for flag -(\S+): (.*)$`)
	badBoolFlag  = regexp.MustCompile(`^invalid boolean value "(.*)" for -(\S+): .*$`)
)

// flagValueError rewrites the flag package's "invalid value "abc" for flag -D: parse error" as a line that names
// the flag as it is written and says what it takes: `-D: "abc" is not a whole number`. Other errors are returned as
// they are.
func flagValueError(fs *flag.FlagSet, err error) string {
	name, value, why := "", "", ""
	if m := badFlagValue.FindStringSubmatch(err.Error()); m != nil {
		value, name, why = m[1], m[2], m[3]
	} else if m := badBoolFlag.FindStringSubmatch(err.Error()); m != nil {
		value, name, why = m[1], m[2], "parse error"
	} else {
		return err.Error()
	}
	if v, uerr := strconv.Unquote(`"` + value + `"`); uerr == nil { // the flag package quoted it (%q)
		value = v
	}
	f := fs.Lookup(name)
	if f == nil {
		return err.Error()
	}
	if len(name) > 1 {
		name = "--" + name
	} else {
		name = "-" + name
	}
	want := ""
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64:
			want = "a whole number"
		case uint, uint64:
			want = "a whole number ≥ 0"
		case float64:
			want = "a number"
		case time.Duration:
			want = "a duration such as 30s or 2m"
		case bool:
			want = "true or false"
		}
	}
	switch {
	case want != "" && why == "parse error":
		return fmt.Sprintf("%s: %q is not %s", name, value, want)
	case want != "" && why == "value out of range":
		return fmt.Sprintf("%s: %q is out of range for %s", name, value, want)
	}
	if strings.Contains(why, strconv.Quote(value)) { // a flag of the command's own type says what is wrong
		return fmt.Sprintf("%s: %s", name, why)
	}
	return fmt.Sprintf("%s %s: %s", name, value, why)
}

// limitHeap makes the memory budget b the Go runtime's soft memory limit for the rest of the command (run restores
// the previous one), unless the environment sets GOMEMLIMIT: the budget checks count what a command keeps, and
// the limit makes the collector free what it dropped before the heap outgrows the budget — with the default pacing
// the heap may reach twice what is live.
func limitHeap(b int64) {
	if b > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(b)
	}
}
