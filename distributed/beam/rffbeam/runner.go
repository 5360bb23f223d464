package rffbeam

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/kernel"
	"github.com/rffkit/rff/rule"
)

// mapSize counts the points and features of the map rff.NewMap draws for cfg on d inputs, without drawing it:
// an SR rule rounds D up to whole rules of d+1 points (2(d+1) for a kernel without a spectral law), or draws D
// points of cfg.Fallback when that would more than double D; cos/sin maps of a spectral kernel have two features
// per point. refused reports a rounding rff.NewMap refuses (it says why, before drawing anything). cfg must be
// valid (rff.PreprocessSteps checks it).
func mapSize(cfg rff.Config, d int) (points, features int, refused bool, err error) {
	if d < 1 {
		return 0, 0, false, fmt.Errorf("%d inputs: want at least 1", d)
	}
	D := cfg.Points
	if D == 0 {
		D = 1024
	}
	if D < 1 {
		return 0, 0, false, fmt.Errorf("points D = %d: want at least 1", D)
	}
	k, err := kernel.New(orDefault(cfg.Kernel, "gaussian"), 1)
	if err != nil {
		return 0, 0, false, err
	}
	r, err := rule.Parse(orDefault(cfg.Rule, "sr-butterfly"))
	if err != nil {
		return 0, 0, false, err
	}
	_, spectral := k.(kernel.Spectral)
	points = D
	if _, sr := r.(rule.SR); sr {
		per := d + 1
		if !spectral {
			per *= 2
		}
		got := D // whole rules: ⌈D/per⌉·per, without overflow
		if rest := D % per; rest != 0 {
			got = D + min(per-rest, math.MaxInt-D)
		}
		switch fb := strings.TrimSpace(cfg.Fallback); {
		case got-D <= D:
			points = got
		case fb == "":
			points, refused = got, true
		default:
			fr, err := rule.Parse(fb)
			if _, sr := fr.(rule.SR); err != nil || sr {
				refused = true
			}
		}
	}
	features = points
	if spectral && orDefault(cfg.Form, "cossin") == "cossin" {
		features = 2 * min(points, math.MaxInt/2)
	}
	return points, features, refused, nil
}

// runnerProbe serialises checkRunner, which probes Beam's registry of runners by registering into it.
var (
	runnerProbe    sync.Mutex
	unknownRunners = map[string]bool{}
)

// checkRunner returns an error for a runner no package of this program registered (beam.Run would end the
// process on it). Beam has no lookup: beam.RegisterRunner panics on a name already registered, and registers an
// unknown one — here with a runner that returns the same error, so that the probe changes nothing observable.
func checkRunner(name string) (err error) {
	unknown := fmt.Errorf("runner %q is not registered in this program: import its package (github.com/apache/beam/sdks/v2/go/pkg/beam/runners/…)", name)
	runnerProbe.Lock()
	defer runnerProbe.Unlock()
	if unknownRunners[name] {
		return unknown
	}
	defer func() {
		if recover() != nil { // already registered
			err = nil
		}
	}()
	beam.RegisterRunner(name, func(context.Context, *beam.Pipeline) (beam.PipelineResult, error) { return nil, unknown })
	unknownRunners[name] = true
	return unknown
}

// innermost returns the innermost error of a runner's report of a failed pipeline (the workers' errors reach the
// driver as text, wrapped in the runner's account of the bundle): the last error of this package ("rffbeam: …"),
// or else the last cause ("caused by: …"), up to the end of its line.
func innermost(s string) (string, bool) {
	if i := strings.LastIndex(s, "rffbeam: "); i >= 0 {
		return firstLine(s[i:]), true
	}
	const cause = "caused by:"
	if i := strings.LastIndex(s, cause); i >= 0 {
		if msg := firstLine(s[i+len(cause):]); msg != "" {
			return msg, true
		}
	}
	return "", false
}

func firstLine(s string) string {
	if j := strings.IndexAny(s, "\r\n"); j >= 0 {
		s = s[:j]
	}
	return strings.TrimRight(strings.TrimSpace(s), `"`)
}

// pending holds the removal of the local temporary directories of the fits in progress, for RemoveTemps.
var pending sync.Map

// pendingDir registers the removal of a temporary directory until it is done, and returns it, to be called once.
func pendingDir(remove func()) func() {
	key := new(byte)
	var once sync.Once
	done := func() { once.Do(remove) }
	pending.Store(key, done)
	return func() {
		pending.Delete(key)
		done()
	}
}

// RemoveTemps removes the local temporary directories of the fits in progress (Options.TempDir, or the default)
// and returns how many it removed. A program calls it when a signal ends it, so that an interrupted fit leaves
// nothing behind; the fits themselves then fail (their results are gone), and the caller is about to exit.
func RemoveTemps() int {
	n := 0
	pending.Range(func(k, v any) bool {
		pending.Delete(k)
		v.(func())()
		n++
		return true
	})
	return n
}
