package colnames

import "testing"

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		names     []string
		bad, prev int
	}{
		{nil, -1, -1},
		{[]string{"a", "b", "A"}, -1, -1}, // names differ by case: distinct
		{[]string{"a", "", "b"}, 1, -1},
		{[]string{"a", "b", "c", "b", "a"}, 3, 1},
		{[]string{"", ""}, 0, -1},
	} {
		if bad, prev := Check(c.names); bad != c.bad || prev != c.prev {
			t.Errorf("Check(%q) = %d, %d; want %d, %d", c.names, bad, prev, c.bad, c.prev)
		}
	}
}

func TestUnprintable(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  int
	}{
		{nil, -1},
		{[]string{"Température", "温度", "a b", "a,b", ""}, -1},
		{[]string{"a", "b\x00c"}, 1},
		{[]string{"a\tb"}, 0},
		{[]string{"ok", "Temp\xe9rature"}, 1}, // Latin-1, not UTF-8
		{[]string{"x\u0085"}, 0},              // C1 control
		{[]string{"a", "a\x7f"}, 1},
	} {
		if got := Unprintable(c.names); got != c.want {
			t.Errorf("Unprintable(%q) = %d, want %d", c.names, got, c.want)
		}
	}
}
