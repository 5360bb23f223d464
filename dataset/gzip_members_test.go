package dataset

import (
	"bufio"
	"bytes"
	"io"
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
		{"a second member cut after one byte", append(bytes.Clone(one), 0x1f), 0, "unexpected EOF"},
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

// TestGzipMembersErrorSticks: once the stream has failed, every later Read returns the same error instead of
// reading on past the bad bytes.
func TestGzipMembersErrorSticks(t *testing.T) {
	file := append(append(gz(t, []byte("a\n")), 'x'), gz(t, []byte("b\n"))...)
	r, err := NewGzipReader(bufio.NewReader(bytes.NewReader(file)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err1 := io.ReadAll(r)
	n, err2 := r.Read(make([]byte, 16))
	if err1 == nil || n != 0 || err2 != err1 {
		t.Errorf("first error %v; then %d bytes and %v", err1, n, err2)
	}
}

// TestGzipAppendedNotBudget: bytes appended to a gzip file make its last four bytes no trailer; the size they would
// state is not held against the memory budget, and the read reports the appended bytes instead of a refusal that
// raising the budget could not cure.
func TestGzipAppendedNotBudget(t *testing.T) {
	file := append(gz(t, []byte("a,b,y\n1,2,3\n2,1,4\n")), "garbage\n"...)
	_, err := Load(writeTemp(t, "f.csv.gz", file), Options{MaxBytes: 100 << 20})
	if err == nil || !strings.Contains(err.Error(), "data after the end of the gzip stream") {
		t.Errorf("%v", err)
	}
}
