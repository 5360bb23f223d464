// Package colnames checks lists of column names: models match the columns of the data they predict by name, so
// every name must be non-empty and unique. The CSV readers, the fit and the model file check their names with it,
// each in its own words.
package colnames

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
