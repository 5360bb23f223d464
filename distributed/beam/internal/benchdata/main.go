// Command benchdata writes the synthetic regression data set of the benchmark in docs/distributed.md: n rows of
// d standard normal inputs and y = Σ_j sin(x_j)/√d + 0.1·ε, as k gzip-compressed CSV shards (each with the header)
// and, for `rff fit --stream`, the same rows in one gzip-compressed file.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	n := flag.Int("n", 1000000, "rows")
	d := flag.Int("d", 64, "inputs")
	k := flag.Int("shards", 8, "shards")
	dir := flag.String("dir", ".", "output directory")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if err := write(*n, *d, *k, *dir, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "benchdata:", err)
		os.Exit(2)
	}
}

type gzFile struct {
	f *os.File
	z *gzip.Writer
	w *bufio.Writer
}

func create(path string) (*gzFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	z, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	return &gzFile{f, z, bufio.NewWriterSize(z, 1<<20)}, nil
}

func (g *gzFile) close() error {
	if err := g.w.Flush(); err != nil {
		return err
	}
	if err := g.z.Close(); err != nil {
		return err
	}
	return g.f.Close()
}

func write(n, d, k int, dir string, seed uint64) error {
	if err := os.MkdirAll(filepath.Join(dir, "shards"), 0o755); err != nil {
		return err
	}
	header := ""
	for j := range d {
		header += "x" + strconv.Itoa(j+1) + ","
	}
	header += "y\n"
	all, err := create(filepath.Join(dir, "all.csv.gz"))
	if err != nil {
		return err
	}
	all.w.WriteString(header)
	rng := rand.New(rand.NewPCG(seed, 2))
	line := make([]byte, 0, 16*(d+1))
	for s := range k {
		sh, err := create(filepath.Join(dir, "shards", fmt.Sprintf("part-%03d.csv.gz", s)))
		if err != nil {
			return err
		}
		sh.w.WriteString(header)
		for range (s+1)*n/k - s*n/k {
			line = line[:0]
			y := 0.0
			for range d {
				x := rng.NormFloat64()
				y += math.Sin(x)
				line = strconv.AppendFloat(line, x, 'g', 7, 64)
				line = append(line, ',')
			}
			line = strconv.AppendFloat(line, y/math.Sqrt(float64(d))+0.1*rng.NormFloat64(), 'g', 7, 64)
			line = append(line, '\n')
			sh.w.Write(line)
			all.w.Write(line)
		}
		if err := sh.close(); err != nil {
			return err
		}
	}
	return all.close()
}
