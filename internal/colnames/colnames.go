// Package colnames checks lists of column names: models match the columns of the data they predict by name, so
// every name must be non-empty and unique. The CSV readers, the fit and the model file check their names with it,
// each in its own words. The CSV readers and the fit also refuse names that are not printable text (Unprintable): a
// name is shown in messages, JSON and HTML reports, and sent by the clients of a server, which must spell it the
// same; the model reader accepts them, as earlier versions wrote them.
package colnames

import (
	"unicode"
	"unicode/utf8"
)

// Check returns the index of the first name that is empty or repeats an earlier one (bad), and the index of that
// earlier one (prev; −1 when the name is empty); bad is −1 when every name is fine.
func Check(names []string) (bad, prev int) {
	seen := make(map[string]int, len(names))
	for i, n := range names {
		if n == "" {
			return i, -1
		}
		if j, dup := seen[n]; dup {
			return i, j
		}
		seen[n] = i
	}
	return -1, -1
}

// Unprintable returns the index of the first name that is not valid UTF-8 or holds a control character (C0, DEL or
// C1), or −1 when there is none.
func Unprintable(names []string) int {
	for i, n := range names {
		if !utf8.ValidString(n) {
			return i
		}
		for _, r := range n {
			if unicode.IsControl(r) {
				return i
			}
		}
	}
	return -1
}
