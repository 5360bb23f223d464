package dataset

import (
	"io"
	"testing"

	"github.com/rffkit/rff/internal/misusetest"
)

type zeroValue = misusetest.Zero

// TestNilReceiver: the methods of package dataset describe a nil or zero receiver by zero values (or, for a Scaler,
// as the zero Scaler with no steps), and the methods that return an error return one for it, or for a nil reader,
// writer or argument, instead of panicking.
func TestNilReceiver(t *testing.T) {
	var (
		nilBudget  *BudgetError
		nilLayout  *CSVLayout
		nilParser  *CSVLineParser
		nilStream  *CSVStream
		nilClasses *Classes
		nilData    *Data
		nilGen     *Generated
		nilScaler  *Scaler
		nilAcc     *ScalerAccumulator
	)
	acc := NewScalerAccumulator(2)
	zeroParser, zeroAcc, none := &CSVLineParser{}, &ScalerAccumulator{}, Options{}
	row := []float64{1, 2}
	misusetest.CheckZero(t, []zeroValue{
		{"BudgetError.Error nil", func() any { return nilBudget.Error() }, "<nil>"},
		{"BudgetError.Message nil", func() any { return nilBudget.Message("raise it") }, "<nil>"},
		{"ClassesOf nil", func() any { return ClassesOf(nil) }, (*Classes)(nil)},
		{"CSVLayout.D nil", func() any { return nilLayout.D() }, 0},
		{"CSVLayout.D zero", func() any { return (&CSVLayout{}).D() }, 0},
		{"CSVLayout.Names nil", func() any { return nilLayout.Names() }, []string(nil)},
		{"CSVLayout.Names zero", func() any { return (&CSVLayout{}).Names() }, []string{}},
		{"CSVLayout.TargetName nil", func() any { return nilLayout.TargetName() }, ""},
		{"CSVLayout.TargetName zero", func() any { return (&CSVLayout{}).TargetName() }, ""},
		{"CSVLineParser.IsHeader nil", func() any { return nilParser.IsHeader([]byte("a,b")) }, false},
		{"CSVStream.D nil", func() any { return nilStream.D() }, 0},
		{"CSVStream.D zero", func() any { return (&CSVStream{}).D() }, 0},
		{"CSVStream.HasTarget nil", func() any { return nilStream.HasTarget() }, false},
		{"CSVStream.HasTarget zero", func() any { return (&CSVStream{}).HasTarget() }, false},
		{"CSVStream.Rows nil", func() any { return nilStream.Rows() }, 0},
		{"CSVStream.Numeric nil", func() any { return nilStream.Numeric() }, false},
		{"CSVStream.Target nil", func() any { return nilStream.Target(0) }, ""},
		{"CSVStream.Target zero", func() any { return (&CSVStream{}).Target(0) }, ""},
		{"Classes.Class nil", func() any { k, ok := nilClasses.Class("a"); return [2]any{k, ok} }, [2]any{0, false}},
		{"Data.Row nil", func() any { return nilData.Row(0) }, []float64(nil)},
		{"Data.Split nil", func() any { head, tail := nilData.Split(1); return [2]*Data{head, tail} }, [2]*Data{}},
		{"Data.Subset nil", func() any { return nilData.Subset([]int{0}) }, (*Data)(nil)},
		{"Data.Target nil", func() any { return nilData.Target(0) }, ""},
		{"Data.Target zero", func() any { return (&Data{}).Target(0) }, ""},
		{"Scaler.OutDim nil", func() any { return nilScaler.OutDim() }, 0},
		{"Scaler.HasPCA nil", func() any { return nilScaler.HasPCA() }, false},
		{"Scaler.Isotropic nil", func() any { return nilScaler.Isotropic() }, true},
		{"Scaler.Factor nil", func() any { return nilScaler.Factor() }, 1.0},
		{"Scaler.ExplainedVariance nil", func() any { return nilScaler.ExplainedVariance() }, 1.0},
		{"Scaler.Jacobian nil", func() any { return nilScaler.Jacobian() }, []float64(nil)},
		{"Scaler.Jacobian zero", func() any { return (&Scaler{}).Jacobian() }, []float64{}},
		{"ScalerAccumulator.Rows nil", func() any { return nilAcc.Rows() }, 0},
		{"ScalerAccumulator.Moments nil", func() any { return nilAcc.Moments() }, ScalerMoments{}},
	})
	misusetest.Check(t, []misusetest.Case{
		{"CSVLineParser.Parse nil", func() error { _, _, err := nilParser.Parse([]byte("1,2"), nil); return err }, "nil or zero CSV"},
		{"CSVLineParser.Parse zero", func() error { _, _, err := zeroParser.Parse([]byte("1,2"), nil); return err }, "nil or zero CSV"},
		{"CSVStream.Next nil", func() error { _, err := nilStream.Next(1); return err }, "nil or zero CSVStream"},
		{"CSVStream.Next zero", func() error { _, err := (&CSVStream{}).Next(1); return err }, "nil or zero CSVStream"},
		{"CSVStream.Close nil", func() error { return nilStream.Close() }, "nil CSVStream"},
		{"Classes.Code nil", func() error { _, err := nilClasses.Code(&Data{}); return err }, "nil classes"},
		{"Classes.Code nil data", func() error { _, err := (&Classes{}).Code(nil); return err }, "nil data"},
		{"Generated.Output nil", func() error { _, err := nilGen.Output(0); return err }, "nil data"},
		{"Generated.WriteCSV nil", func() error { return nilGen.WriteCSV(io.Discard) }, "nil data"},
		{"Generated.WriteCSV nil writer", func() error { return (&Generated{}).WriteCSV(nil) }, "nil writer"},
		{"Options.ReadCSV nil reader", func() error { _, err := none.ReadCSV(nil, "x"); return err }, "nil reader"},
		{"Options.ReadLibSVM nil reader", func() error { _, err := none.ReadLibSVM(nil, "x"); return err }, "nil reader"},
		{"Options.ReadIDX nil reader", func() error { _, _, err := none.ReadIDX(nil, "x"); return err }, "nil reader"},
		{"Options.NewCSVStream nil reader", func() error { _, err := none.NewCSVStream(nil, "x"); return err }, "nil reader"},
		{"Scaler.Validate nil", func() error { return nilScaler.Validate() }, "nil scaler"},
		{"ScalerAccumulator.Add nil", func() error { return nilAcc.Add(row, 1) }, "nil or zero"},
		{"ScalerAccumulator.Add zero", func() error { return zeroAcc.Add(row, 1) }, "nil or zero"},
		{"ScalerAccumulator.Merge nil", func() error { return nilAcc.Merge(acc) }, "nil or zero"},
		{"ScalerAccumulator.Merge zero", func() error { return zeroAcc.Merge(acc) }, "nil or zero"},
		{"ScalerAccumulator.Merge nil other", func() error { return acc.Merge(nil) }, "accumulator to merge"},
		{"ScalerAccumulator.Merge zero other", func() error { return acc.Merge(zeroAcc) }, "accumulator to merge"},
		{"ScalerAccumulator.Scaler nil", func() error { _, err := nilAcc.Scaler(nil); return err }, "nil or zero"},
		{"ScalerAccumulator.TrackCovariance nil", func() error { return nilAcc.TrackCovariance() }, "nil or zero"},
		{"ScalerAccumulator.TrackCovariance zero", func() error { return zeroAcc.TrackCovariance() }, "nil or zero"},
	})
}
