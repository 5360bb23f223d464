package main

import (
	"errors"
	"flag"
	"math"
	"strconv"
	"strings"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/cliflag"
)

// memoryFlag is the --max-memory flag: the memory budget of a command in bytes (0: half the memory available,
// -1: no limit). It accepts a number of bytes or a number with a binary or decimal unit (512MiB, 8GiB, 2GB).
type memoryFlag int64

const memoryHelp = "memory budget: the most the command may allocate, in bytes or with a unit (512MiB, 8GiB); work that would need more is refused before it starts; 0 = half of the memory available, -1 = no limit but the machine's memory and swap, which also caps larger values"

func (m *memoryFlag) String() string { return strconv.FormatInt(int64(*m), 10) }

func (m *memoryFlag) Set(s string) error {
	v, err := cliflag.ParseMemory(s)
	if err != nil {
		return err
	}
	*m = memoryFlag(v)
	return nil
}

// registerMemory adds --max-memory to fs.
func registerMemory(fs *flag.FlagSet) *memoryFlag {
	m := new(memoryFlag)
	fs.Var(m, "max-memory", memoryHelp)
	return m
}

// budgetHint rewrites the memory-budget errors of the library into one line that names the flag that changes the
// budget.
func budgetHint(err error) error {
	var fe *rff.BudgetError
	if errors.As(err, &fe) {
		return usagef("the fit needs about %s (%s), over the memory budget of %s: %s",
			rff.FormatBytes(fe.Bytes), fe.What, rff.FormatBytes(fe.Budget), advice(fe.Budget, fitRemedy(fe)))
	}
	var de *dataset.BudgetError
	if errors.As(err, &de) {
		if de.Bytes == 0 {
			return usagef("%s: %s of %s; %s", de.Name, de.What, rff.FormatBytes(de.Budget), advice(de.Budget))
		}
		return usagef("%s: %s needs at least %s, over the memory budget of %s; %s",
			de.Name, de.What, rff.FormatBytes(de.Bytes), rff.FormatBytes(de.Budget), advice(de.Budget))
	}
	return err
}

// budgetOf is the budget in bytes that a --max-memory value stands for: half the memory available for 0, and never
// more than the machine's memory and swap, which -1 (no limit) stands for (dataset.CapBudget): work that needs more
// is refused with a message instead of ending in the Go runtime's fatal out-of-memory error.
func budgetOf(m memoryFlag) int64 {
	if m == 0 {
		return dataset.DefaultMaxBytes()
	}
	return dataset.CapBudget(int64(m))
}

// advice ends a refusal under the memory budget b: the remedies given, or-ed with "raise --max-memory" — unless b
// is already all of the machine's memory and swap, which raising the flag cannot exceed.
func advice(b int64, remedies ...string) string {
	if b == dataset.MachineMemory() {
		s := "the budget is all of this machine's memory and swap"
		if len(remedies) > 0 {
			return strings.Join(remedies, " or ") + " (" + s + ")"
		}
		return s
	}
	return strings.Join(append(remedies, "raise --max-memory"), " or ")
}

// checkMemory refuses work whose estimated memory (bytes, for what) exceeds the budget m, naming the flag that
// lowers it.
func checkMemory(m memoryFlag, bytes float64, what, lower string) error {
	if b := budgetOf(m); bytes > float64(b) {
		return usagef("%s needs about %s, over the memory budget of %s; %s",
			what, rff.FormatBytes(int64(min(bytes, math.MaxInt64/2))), rff.FormatBytes(b), advice(b, "lower "+lower))
	}
	return nil
}

// fitRemedy is the flag that lowers what a fit refused under the budget needs: -D, --centres or --train.
func fitRemedy(fe *rff.BudgetError) string {
	if r := map[string]string{"points": "lower -D", "centres": "lower --centres", "rows": "use fewer rows (--train)"}[fe.Lower]; r != "" {
		return r
	}
	return fe.Hint
}
