package misusetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestVerdict: every way a misuse case can go wrong is reported, and only the expected error passes.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		name string
		call func() error
		want string
		// wrong is a substring of the verdict; "" when the case must pass.
		wrong string
	}{
		{"expected error", func() error { return errors.New("feature.New: D must be ≥ 1") }, "D must", ""},
		{"any error, empty want", func() error { return errors.New("x") }, "", ""},
		{"no error", func() error { return nil }, "D must", "no error"},
		{"no error, empty want", func() error { return nil }, "", "no error"},
		{"other error", func() error { return errors.New("feature.New: bad rule") }, "D must", `does not mention "D must"`},
		{"panic", func() error { panic("index out of range") }, "D must", "panicked: index out of range"},
		{"nil-pointer panic", func() error { var p *struct{ x int }; return errors.New(string(rune(p.x))) }, "", "panicked"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Verdict(Case{Name: c.name, Call: c.call, Want: c.want})
			switch {
			case c.wrong == "" && got != "":
				t.Errorf("verdict %q, want none", got)
			case c.wrong != "" && !strings.Contains(got, c.wrong):
				t.Errorf("verdict %q, want one mentioning %q", got, c.wrong)
			}
		})
	}
}

// TestCheck: a table of cases that all go right passes, each case running as a subtest.
func TestCheck(t *testing.T) {
	ran := 0
	Check(t, []Case{
		{"a", func() error { ran++; return errors.New("a: bad size") }, "size"},
		{"b", func() error { ran++; return errors.New("b: nil map") }, "nil"},
	})
	if ran != 2 {
		t.Errorf("Check ran %d cases, want 2", ran)
	}
}

// TestCheckZero: a table of accessors that all return their zero values passes, each case running as a subtest.
func TestCheckZero(t *testing.T) {
	ran := 0
	CheckZero(t, []Zero{
		{"a", func() any { ran++; return 0 }, 0},
		{"b", func() any { ran++; return []string(nil) }, []string(nil)},
	})
	if ran != 2 {
		t.Errorf("CheckZero ran %d cases, want 2", ran)
	}
}

// TestWrappedCount: the count's product with d wraps around to L, for odd and even d.
func TestWrappedCount(t *testing.T) {
	for _, c := range [][2]int{{3, 2}, {5, 3}, {20, 4}, {784, 16}} {
		d, L := c[0], c[1]
		if n := WrappedCount(d, L); n <= 0 || n*d != L {
			t.Errorf("WrappedCount(%d, %d) = %d: product %d", d, L, n, n*d)
		}
	}
	if n := WrappedCount(2, 1); n != 0 {
		t.Errorf("WrappedCount(2, 1) = %d, want 0 (an even product is never odd)", n)
	}
}

// ExampleVerdict: a call that returns no error where a caller's mistake must be reported.
func ExampleVerdict() {
	fmt.Println(Verdict(Case{Name: "nil map", Call: func() error { return nil }, Want: "nil"}))
	fmt.Printf("%q\n", Verdict(Case{Name: "nil map", Call: func() error { return errors.New("Transform: nil map") }, Want: "nil"}))
	// Output:
	// no error
	// ""
}
