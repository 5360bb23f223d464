package size

import (
	"math"
	"strings"
	"testing"
)

func TestMul(t *testing.T) {
	for _, c := range []struct {
		dims []int
		want int
		ok   bool
	}{
		{nil, 1, true},
		{[]int{0, math.MaxInt}, 0, true},
		{[]int{3, 4, 5}, 60, true},
		{[]int{1 << 31, 1 << 31}, 1 << 62, true},
		{[]int{1 << 32, 1 << 32}, 0, false}, // 2^64 wraps to 0 in int arithmetic
		{[]int{1 << 62, 4}, 0, false},       // 2^64 again
		{[]int{1 << 62, 2}, 0, false},       // 2^63 > MaxInt
		{[]int{math.MaxInt, 1}, math.MaxInt, true},
		{[]int{-1, 5}, 0, false},
		{[]int{5, -1}, 0, false},
	} {
		got, ok := Mul(c.dims...)
		if got != c.want || ok != c.ok {
			t.Errorf("Mul(%v) = %d, %v; want %d, %v", c.dims, got, ok, c.want, c.ok)
		}
	}
	// The wrapped product of (2^32)·(2^32) is 0: Is must not accept an empty slice for it.
	if Is(0, 1<<32, 1<<32) {
		t.Error("Is(0, 2^32, 2^32) is true")
	}
	if !Is(12, 3, 4) || Is(11, 3, 4) {
		t.Error("Is(·, 3, 4) wrong")
	}
}

func TestFloats(t *testing.T) {
	if n, err := Floats("x", 1<<18, 1<<19); err != nil || n != MaxFloats {
		t.Errorf("exactly MaxFloats: %d, %v", n, err)
	}
	for _, dims := range [][]int{{1<<18 + 1, 1 << 19}, {1 << 31, 1 << 31}, {1 << 32, 1 << 32}, {-3, 2}} {
		if _, err := Floats("learn.NewStats", dims...); err == nil || !strings.HasPrefix(err.Error(), "learn.NewStats: ") {
			t.Errorf("Floats(%v): %v", dims, err)
		}
	}
}
