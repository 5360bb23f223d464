package dataset

import (
	"bytes"
	"strings"
	"testing"
)

// TestGzipMembers: concatenated gzip members read as one stream and zero padding after the last is ignored, as
// gzip -d does; other bytes after the last member are reported as such, not as a truncated file.
func TestGzipMembers(t *testing.T) {
	one, two := gz(t, []byte("a,b,y\n1,2,3\n2,1,4\n")), gz(t, []byte("3,3,7\n4,4,4\n"))
	for _, c := range []struct {
		name string
		file []byte
		rows int
		err  string
	}{
		{"two members", append(bytes.Clone(one), two...), 4, ""},
		{"zero padding", append(bytes.Clone(one), make([]byte, 16)...), 2, ""},
		{"appended text", append(bytes.Clone(one), "garbage\n"...), 0, "data after the end of the gzip stream"},
		{"a member, then text", append(append(bytes.Clone(one), two...), "x"...), 0, "data after the end of the gzip stream"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Load(writeTemp(t, "f.csv.gz", c.file), Options{})
			rows := -1
			if d != nil {
				rows = d.N
			}
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one with %q", err, c.err)
			case c.err == "" && (err != nil || rows != c.rows):
				t.Errorf("%v, %d rows; want %d", err, rows, c.rows)
			}
		})
	}
}
