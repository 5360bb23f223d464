package cliflag

import (
	"strings"
	"testing"
)

// TestParseMemory: every spelling of a budget gives its bytes; negative values other than -1, values of 2^63 bytes
// or more and fractions of a byte are refused rather than taken for "no limit" or for the default.
func TestParseMemory(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"-1", -1}, {"123", 123}, {"1.5e9", 1500000000}, {"512MiB", 512 << 20}, {"8gib", 8 << 30},
		{" 2GB ", 2000000000}, {"1.5KiB", 1536}, {"7B", 7}, {"1PiB", 1 << 50}, {"2PB", 2e15},
	} {
		if got, err := ParseMemory(c.in); err != nil || got != c.want {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"-5GiB", "the only negative budget is -1"}, {"-0.5", "the only negative budget is -1"}, {"-1MiB", "the only negative budget"},
		{"1e30", "2^63 bytes or more: give -1 for no limit"}, {"9.3e18", "2^63 bytes or more"}, {"9000PiB", "2^63 bytes or more"},
		{"NaN", "not a number of bytes"},
		{"lots", "not a number of bytes"}, {"0.5", "less than a byte"},
	} {
		if _, err := ParseMemory(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseMemory(%q): %v, want an error with %q", c.in, err, c.want)
		}
	}
}
