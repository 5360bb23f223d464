package rff

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: a nil *BudgetError has a message instead of a panic.
func TestNilReceiver(t *testing.T) {
	var nilBudget *BudgetError
	misusetest.CheckZero(t, []zeroValue{
		{"BudgetError.Error nil", func() any { return nilBudget.Error() }, "<nil>"},
		{"BudgetError.Error zero", func() any { return (&BudgetError{}).Error() != "" }, true},
	})
}
