package rff

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// CheckInputMagnitude and CheckTargetMagnitude name the first value beyond 1e100 (or NaN) by its row — counted from
// the rows before the part checked — and its column, in the words Fit uses; 1e100 itself passes.
func TestCheckMagnitude(t *testing.T) {
	X := []float64{1, 2, 3, -1e100, 1e100, 5, 6, -2e200, 7, 8, 9, math.Inf(1)} // 4 rows × 3
	err := CheckInputMagnitude(X, 3, []string{"a", "b", "c"}, 10)
	me, ok := errors.AsType[*MagnitudeError](err)
	want := "row 13, column 2 (b) is -2e+200 after preprocessing: too large for the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs"
	if !ok || me.Row != 13 || err.Error() != want || me.Reason != strings.TrimPrefix(want, "row 13, ") {
		t.Errorf("inputs: %v, want %q", err, want)
	}
	if err := CheckInputMagnitude(X[:6], 3, nil, 0); err != nil {
		t.Errorf("±1e100: %v", err)
	}
	if err := CheckInputMagnitude([]float64{0, math.NaN()}, 2, []string{"a"}, 0); err == nil || err.Error() != "row 1, column 2 is NaN after preprocessing: too large for the kernel (|ωᵀx| would overflow); rescale it or standardize the inputs" {
		t.Errorf("NaN in an unnamed column: %v", err)
	}
	if err := CheckInputMagnitude([]float64{1e200}, 0, nil, 0); err != nil {
		t.Errorf("d = 0: %v", err)
	}

	Y := []float64{1, 2, 1e100, -1e100, 3, 4e150} // 3 rows × 2 targets
	err = CheckTargetMagnitude(Y, []string{"u", "v"}, 5)
	me, ok = errors.AsType[*MagnitudeError](err)
	want = "row 8, target v is 4e+150: too large for the ridge statistics (sums of its square would overflow); rescale the targets"
	if !ok || me.Row != 8 || err.Error() != want {
		t.Errorf("targets: %v, want %q", err, want)
	}
	if err := CheckTargetMagnitude(Y[:5], []string{"y"}, 0); err != nil {
		t.Errorf("±1e100: %v", err)
	}
	if err := CheckTargetMagnitude([]float64{1e300}, nil, 0); err != nil {
		t.Errorf("no target named: %v", err)
	}

	// The fits refuse with the same error, typed.
	data := smallData(50, 3)
	data.Y[7] = -1e300
	_, err = Fit(Config{Points: 16, Lambda: 1e-3, Rule: "g", Sigma: 1}, data)
	if me, ok := errors.AsType[*MagnitudeError](err); !ok || me.Row != 8 || !strings.HasPrefix(me.Reason, "target y is -1e+300: ") {
		t.Errorf("Fit on a target of -1e300: %v", err)
	}
	data = smallData(50, 3)
	data.X[9*3+1] = 1e200
	_, err = Fit(Config{Points: 16, Lambda: 1e-3, Rule: "g", Sigma: 1, Preprocess: "none"}, data)
	if me, ok := errors.AsType[*MagnitudeError](err); !ok || me.Row != 10 || !strings.HasPrefix(me.Reason, "column 2") {
		t.Errorf("Fit on an input of 1e200: %v", err)
	}

	var nilErr *MagnitudeError
	if nilErr.Error() != "<nil>" {
		t.Errorf("nil *MagnitudeError: %q", nilErr.Error())
	}
}
