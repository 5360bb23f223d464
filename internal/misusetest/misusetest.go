// Package misusetest runs the misuse tables of the packages' tests: calls a caller can get wrong, each of which must
// return an error that names the mistake, and never panic (docs/conventions.md: library functions return errors on
// a caller's data).
package misusetest

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Case is one call a caller can get wrong: Call must return an error whose message contains Want (any error when
// Want is empty), and must not panic. Case is an alias of an unnamed struct type, so that a package's tests may
// declare their own alias of it and write their cases as short unkeyed literals.
type Case = struct {
	Name string
	Call func() error
	Want string
}

// Verdict calls c.Call under a recover guard and returns what is wrong with its outcome: that it panicked, returned
// no error, or returned an error that does not mention c.Want; "" when the error is the expected one.
func Verdict(c Case) (wrong string) {
	defer func() {
		if r := recover(); r != nil {
			wrong = fmt.Sprintf("panicked: %v", r)
		}
	}()
	err := c.Call()
	switch {
	case err == nil:
		return "no error"
	case !strings.Contains(err.Error(), c.Want):
		return fmt.Sprintf("error %q does not mention %q", err, c.Want)
	}
	return ""
}

// Check runs every case as a subtest of t named after it, and reports the verdict of each case that goes wrong.
func Check(t *testing.T, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if wrong := Verdict(c); wrong != "" {
				t.Errorf("%s: %s", c.Name, wrong)
			}
		})
	}
}

// Zero is an accessor called on a nil or zero receiver: Got must not panic and must return Want (compared by
// reflect.DeepEqual). Like Case, it is an alias of an unnamed struct type for short unkeyed literals.
type Zero = struct {
	Name string
	Got  func() any
	Want any
}

// CheckZero runs every case as a subtest of t named after it, and reports a case that panics or returns something
// other than its Want.
func CheckZero(t *testing.T, cases []Zero) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panicked: %v", c.Name, r)
				}
			}()
			if got := c.Got(); !reflect.DeepEqual(got, c.Want) {
				t.Errorf("%s = %#v, want %#v", c.Name, got, c.Want)
			}
		})
	}
}

// WrappedCount returns a count n > 0 whose product with d wraps around in int arithmetic to L (n·d ≡ L mod 2⁶⁴),
// or 0 when there is none below 2⁶³: a shape check written len(x) != n*d would take L values for n rows of d.
func WrappedCount(d, L int) int {
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

// Shape is an R×C matrix of zeros that exists only through its dimensions (gonum's mat.Matrix), for shapes whose
// number of elements overflows int or exceeds any array.
type Shape struct{ R, C int }

// Dims returns R, C.
func (s Shape) Dims() (int, int) { return s.R, s.C }

// At returns 0.
func (s Shape) At(i, j int) float64 { return 0 }

// T returns the C×R transpose.
func (s Shape) T() mat.Matrix { return mat.Transpose{Matrix: s} }
