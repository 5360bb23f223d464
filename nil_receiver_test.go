package rff

import (
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: a nil *BudgetError or *RedrawError has a message instead of a panic.
func TestNilReceiver(t *testing.T) {
	var nilBudget *BudgetError
	var nilRedraw *RedrawError
	misusetest.CheckZero(t, []zeroValue{
		{"BudgetError.Error nil", func() any { return nilBudget.Error() }, "<nil>"},
		{"BudgetError.Error zero", func() any { return (&BudgetError{}).Error() != "" }, true},
		{"RedrawError.Error nil", func() any { return nilRedraw.Error() }, "<nil>"},
		{"RedrawError.Error zero", func() any { return (&RedrawError{}).Error() != "" }, true},
	})
}
