package rffbeam

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rffkit/rff"
	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/distributed/beam/internal/modelcmp"
	"github.com/rffkit/rff/internal/datadir"
)

// realLines reads a data set file of the shared data directory as a header ("" when it has none) and data lines,
// without a byte-order mark or carriage returns; it skips the test when the file is absent.
func realLines(t *testing.T, header bool, elem ...string) (string, []string) {
	t.Helper()
	path, ok := datadir.Path(elem...)
	if !ok {
		t.Skipf("%s is absent: set %s to the directory of the real data sets (powerplant/, letter/)", path, datadir.Env)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var lines []string
	for l := range strings.SplitSeq(strings.ReplaceAll(string(b), "\r", ""), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	if header {
		return lines[0], lines[1:]
	}
	return "", lines
}

// Powerplant (regression) and LETTER (26 classes) in 4 shards on prism give the models of rff fit on the
// concatenated data — in memory (rff.Fit) and streamed (rff.FitCSV) — with the same flags: predictions to 1e-10 of
// their scale and the same classes, weights and intercepts within the rounding bound of modelcmp.Bound
// (κ ≤ 1 + 1/λ times the rounding of sums of N terms in two orders and of the solve).
func TestRealDataFourShards(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the real data sets three times each")
	}
	cases := []struct {
		name, target string
		header       bool
		file         []string
		cfg          rff.Config
	}{
		{"powerplant", "last", true, []string{"powerplant", "Folds5x2_pp.csv"},
			rff.Config{Points: 256, Lambda: 1e-4, Seed: 1}},
		{"letter", "first", false, []string{"letter", "letter-recognition.data"},
			rff.Config{Task: "classification", Points: 256, Lambda: 1e-4, Seed: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			header, lines := realLines(t, c.header, c.file...)
			dir := t.TempDir()
			glob, all := writeShards(t, dir, header, lines, fourShards)
			r := fitBeam(t, Options{Config: c.cfg, Input: glob, Target: c.target})
			if r.Rows != len(lines) || len(r.Files) != 4 || r.Skipped != 0 {
				t.Fatalf("rows %d of %d, files %d, skipped %d", r.Rows, len(lines), len(r.Files), r.Skipped)
			}
			data, err := dataset.Load(all, dataset.Options{Target: c.target})
			if err != nil {
				t.Fatal(err)
			}
			inMemory, err := rff.Fit(c.cfg, data)
			if err != nil {
				t.Fatal(err)
			}
			streamed, err := rff.FitCSV(c.cfg, all, rff.StreamOptions{Target: c.target})
			if err != nil {
				t.Fatal(err)
			}
			beamBytes := modelBytes(t, r.Model)
			for _, ref := range []struct {
				name string
				m    *rff.Model
			}{{"rff fit", inMemory}, {"rff fit --stream", streamed}} {
				d, err := modelcmp.Compare(beamBytes, modelBytes(t, ref.m), data)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s, 4 shards against %s: %v", c.name, ref.name, d)
				if err := d.Check(1e-10); err != nil {
					t.Errorf("%s against %s: %v", c.name, ref.name, err)
				}
				if d.SigmaRel > 1e-12 {
					t.Errorf("%s against %s: σ differs by %.3g relative", c.name, ref.name, d.SigmaRel)
				}
			}
		})
	}
}

func modelBytes(t *testing.T, m *rff.Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
