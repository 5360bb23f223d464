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
