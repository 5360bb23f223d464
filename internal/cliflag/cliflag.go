// Package cliflag holds the flag types and output checks the rff and rff-beam commands share, so that both read
// their common flags alike and give the same messages.
package cliflag

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/rffkit/rff/kernel"
)

// Sigma is a --sigma flag (or --gamma, as γ = 1/(2σ²)): a positive finite number, or "auto" (stored as 0) for the
// command's default. A literal 0 is refused rather than taken for auto, and so is a value whose σ is below
// kernel.MinSigma (a γ above 1/(2·MinSigma²)), where σ² underflows and the kernels overflow.
type Sigma struct {
	V     *float64
	What  string // "bandwidth" or "γ"
	Given *bool  // set to true when the flag is given (auto included)
}

func (s Sigma) String() string {
	if s.V == nil || *s.V == 0 {
		return "auto"
	}
	return strconv.FormatFloat(*s.V, 'g', -1, 64)
}

func (s Sigma) Set(v string) error {
	if s.Given != nil {
		*s.Given = true
	}
	if strings.TrimSpace(v) == "auto" {
		*s.V = 0
		return nil
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("%q is not a %s (a positive number, or auto)", v, s.What)
	}
	if s.What == "γ" {
		if sigma := kernel.SigmaFromGamma(x); !(sigma >= kernel.MinSigma) {
			return fmt.Errorf("%q is too large a γ: σ = 1/√(2γ) = %g is below %.3g; give γ ≤ %.3g (or --sigma)", v, sigma,
				kernel.MinSigma, 1/(2*kernel.MinSigma*kernel.MinSigma))
		}
	} else if x < kernel.MinSigma {
		return fmt.Errorf("%q is too small a bandwidth: σ must be at least %.3g (below it σ² underflows), or auto", v, kernel.MinSigma)
	}
	*s.V = x
	return nil
}

// CheckedWriter passes writes on to W and keeps the first error in Err; the writes after it are dropped.
type CheckedWriter struct {
	W   io.Writer
	Err error
}

func (c *CheckedWriter) Write(p []byte) (int, error) {
	if c.Err != nil {
		return 0, c.Err
	}
	n, err := c.W.Write(p)
	c.Err = err
	return n, err
}

// ParseMemory parses a memory budget in bytes: "123", "1.5e9", "512MiB", "8GiB", "2GB" (units KiB to PiB and KB to
// PB, not case sensitive), 0 (the command's default) or -1 (no limit), the only negative value. Values of 2^63 bytes or more are
// refused, not taken for "no limit".
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50}, {"KB", 1e3}, {"MB", 1e6},
		{"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a number of bytes (e.g. 8GiB, 512MiB, 0 for the default, -1 for no limit)", s)
	}
	if v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is 2^63 bytes or more: give -1 for no limit but the machine's memory, or a number of bytes (e.g. 8GiB)", s)
	}
	if v < 0 {
		if v != -1 || mult != 1 {
			return 0, fmt.Errorf("%q: the only negative budget is -1 (no limit); give a number of bytes (e.g. 8GiB), 0 for half of the memory available, or -1", s)
		}
		return -1, nil
	}
	if v > 0 && v*mult < 1 {
		return 0, fmt.Errorf("%q is less than a byte; give a number of bytes (e.g. 8GiB), 0 for half of the memory available, or -1 for no limit", s)
	}
	return int64(v * mult), nil
}

// configFlags maps the fields of rff.Config that the library's messages name ("Config.Lambda") to the flags of
// rff fit (and of rff-beam fit, where it has them) that set them.
var configFlags = map[string]string{
	"Lambda": "lambda", "Lambdas": "lambdas", "Sigma": "sigma", "Sigmas": "sigmas", "Tune": "tune",
	"TuneRows": "tune-rows", "TunePoints": "tune-points", "Select": "select", "CV": "cv", "MaxClasses": "max-classes",
	"MaxIter": "max-iter", "Uncertainty": "uncertainty", "LandmarkPoints": "landmarks-file", "Exact": "exact",
	"Kernel": "kernel", "Rule": "rule", "Points": "D", "Loss": "loss", "Encoding": "encoding", "Solver": "solver",
	"Precision": "precision", "Preprocess": "preprocess", "Centres": "centres", "Landmarks": "landmarks",
}

// ConfigFlags returns the flags NameFlags names, for tests that check a command has them.
func ConfigFlags() []string {
	out := make([]string, 0, len(configFlags))
	for _, f := range configFlags {
		out = append(out, f)
	}
	return out
}

// configField matches a field of rff.Config named in a message.
var configField = regexp.MustCompile(`Config\.[A-Z][A-Za-z]*`)

// NameFlags rewrites every "Config.Field" of a library message as the flag that sets the field ("--lambda" for
// Config.Lambda), for the fields whose flag has(flag) reports the command has (has nil: rff fit, which has them
// all); the others stay as they are.
func NameFlags(msg string, has func(flag string) bool) string {
	return configField.ReplaceAllStringFunc(msg, func(m string) string {
		f := configFlags[m[len("Config."):]]
		if f == "" || has != nil && !has(f) {
			return m
		}
		if len(f) == 1 {
			return "-" + f
		}
		return "--" + f
	})
}
