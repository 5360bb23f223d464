package linalg

import (
	"fmt"
	"strings"
)

// cpuInfo is the x86-64 vector support that decides OpenBLAS's kernels.
type cpuInfo struct {
	x86, avx, avx2, avx512, amd bool
}

// Where the core type in force came from.
const (
	coreNone      = ""            // not set: OpenBLAS detects the CPU itself
	coreAuto      = "auto"        // set by this package from CPUID
	coreEnv       = "environment" // OPENBLAS_CORETYPE given by the user, kept
	coreCorrected = "corrected"   // the user's value needs instructions this CPU lacks; replaced
)

// autoCoreType is the OpenBLAS core type whose kernels suit the CPU: SkylakeX
// on AVX-512 (F, CD, DQ, BW, VL with the OS saving ZMM state), Zen or Haswell on
// AVX2+FMA, and nothing otherwise (OpenBLAS's own detection is then as good as
// any choice we could make). Zen and Haswell run the same double-precision
// kernels; Zen keeps OpenBLAS's blocking for AMD parts.
func autoCoreType(f cpuInfo) string {
	switch {
	case !f.x86:
		return ""
	case f.avx512:
		return "SkylakeX"
	case f.avx2 && f.amd:
		return "Zen"
	case f.avx2:
		return "Haswell"
	}
	return ""
}

// coreNeeds reports the instruction-set level a core type's kernels require:
// 2 for AVX2+FMA, 3 for AVX-512, 0 for anything this package does not check.
func coreNeeds(name string) int {
	switch strings.ToLower(name) {
	case "skylakex", "cooperlake", "sapphirerapids":
		return 3
	case "haswell", "zen", "excavator":
		return 2
	}
	return 0
}

func cpuLevel(f cpuInfo) int {
	switch {
	case f.avx512:
		return 3
	case f.avx2:
		return 2
	}
	return 0
}

// decideCoreType picks the OPENBLAS_CORETYPE to put in the environment before
// OpenBLAS loads. env and set are the variable's current value and whether it
// exists. It returns the value to use ("" = leave OpenBLAS to detect), where it
// came from, and a note for BackendInfo when the user's value was replaced.
//
// A user's value is kept unless it names kernels the CPU cannot run (for
// example SkylakeX on a CPU without AVX-512, which makes OpenBLAS die with
// SIGILL on the first call); an empty value counts as unset, because OpenBLAS
// treats it as an unknown name and guesses.
func decideCoreType(env string, set bool, f cpuInfo) (value, source, note string) {
	env = strings.TrimSpace(env)
	auto := autoCoreType(f)
	if !set || env == "" {
		if auto == "" {
			if set {
				return "", coreCorrected, "empty OPENBLAS_CORETYPE removed"
			}
			return "", coreNone, ""
		}
		return auto, coreAuto, ""
	}
	if f.x86 && coreNeeds(env) > cpuLevel(f) {
		what := "AVX2"
		if coreNeeds(env) == 3 {
			what = "AVX-512"
		}
		repl := auto
		if repl == "" {
			repl = "OpenBLAS's own detection"
		}
		return auto, coreCorrected, fmt.Sprintf("OPENBLAS_CORETYPE=%s needs %s, which this CPU lacks; using %s", env, what, repl)
	}
	return env, coreEnv, ""
}
