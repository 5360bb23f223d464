package dataset

import (
	"math/big"
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

// wrappedRows returns n > 0 with n·d ≡ L (mod 2⁶⁴), or 0 when there is none below 2⁶³: a shape check written
// len(x) != n*d or len(x) < n*d would take L values for n rows.
func wrappedRows(d, L int) int {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for k := int64(1); k < int64(d); k++ {
		v := new(big.Int).Mul(two64, big.NewInt(k))
		v.Add(v, big.NewInt(int64(L)))
		q, r := new(big.Int).QuoRem(v, big.NewInt(int64(d)), new(big.Int))
		if r.Sign() == 0 && q.IsInt64() && q.Int64() > 0 {
			return int(q.Int64())
		}
	}
	return 0
}

// TestWrappedShape: a row count whose product with the columns overflows is an error, not a shape that matches.
func TestWrappedShape(t *testing.T) {
	n := wrappedRows(3, 2)
	if n == 0 || n*3 != 2 {
		t.Fatalf("wrappedRows(3, 2) = %d", n)
	}
	x := []float64{1, 2}
	misusetest.Check(t, []misusetest.Case{
		{"FitScaler", func() error { _, err := FitScaler(x, n, 3, []Step{StepStandardize}); return err }, "want n×d"},
		{"ScalerAccumulator.Add", func() error { return NewScalerAccumulator(3).Add(x, n) }, "has 2 values"},
	})
}
