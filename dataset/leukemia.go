package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The files of the LEUKEMIA data (Golub et al., 1999) in the common Broad Institute / Kaggle layout, as LoadLeukemia
// reads them from its directory.
const (
	LeukemiaTrainFile       = "data_set_ALL_AML_train.csv"
	LeukemiaIndependentFile = "data_set_ALL_AML_independent.csv"
	LeukemiaLabelsFile      = "actual.csv"
)

// LeukemiaTrain is the number of samples of Golub's training set (patients 1–38); the remaining 34 (patients 39–72)
// form the independent test set. LoadLeukemia puts the training samples first, so d.Split(LeukemiaTrain) returns
// the original split of the published data.
const LeukemiaTrain = 38

// LoadLeukemia reads the ALL/AML leukemia gene-expression data of Golub et al. (Science 286:531, 1999), the
// LEUKEMIA dataset of Munkhoeva et al. (NeurIPS 2018, Table 1 and Figures 1 and 3), from the directory dir holding
// LeukemiaTrainFile, LeukemiaIndependentFile and LeukemiaLabelsFile (gzip-compressed copies are read as well).
//
// The two expression files have one row per gene (7129 Affymetrix Hu6800 probes) and, after the gene description
// and accession number, one (value, call) pair of columns per sample; the header names each value column by its
// patient number, not in numeric order. The "call" columns (A/P/M: absent, present, marginal) are not features
// and are dropped. Samples are matched by the header number to the patient column of actual.csv, whose cancer column
// gives the class.
//
// The result is 72 rows × 7129 columns of raw (unnormalized) expression values, one row per patient: first the
// patients of the training file in increasing patient number, then those of the independent file likewise. For the
// published data that is simply patients 1…72 in order, rows 0–37 being Golub's training set and rows 38–71 the
// independent test set, so d.Split(LeukemiaTrain) gives the original split (LoadLeukemiaSplit returns it for any
// files). Y holds class indices into Labels = ["ALL", "AML"] (47 ALL, 25 AML), TargetName is "cancer", and Names
// are the gene accession numbers. The files must list the same genes in the same order.
//
// Errors name the file and, where it applies, the line; a missing file gives an error wrapping fs.ErrNotExist.
func LoadLeukemia(dir string) (*Data, error) {
	d, _, err := loadLeukemia(dir)
	return d, err
}

// LoadLeukemiaSplit is LoadLeukemia returning the samples of the training file and of the independent file
// separately (38 and 34 rows for the published data), each in increasing patient number. The two parts share
// Names and Labels.
func LoadLeukemiaSplit(dir string) (train, test *Data, err error) {
	d, nTrain, err := loadLeukemia(dir)
	if err != nil {
		return nil, nil, err
	}
	train, test = d.Split(nTrain)
	return train, test, nil
}

// loadLeukemia reads the data and returns the number of rows that come from the training file.
func loadLeukemia(dir string) (*Data, int, error) {
	labels, err := readLeukemiaLabels(filepath.Join(dir, LeukemiaLabelsFile))
	if err != nil {
		return nil, 0, err
	}
	var genes []string
	samples := map[int][]float64{}
	var ids []int // training-file patients by number, then the independent file's
	nTrain := 0
	for i, name := range []string{LeukemiaTrainFile, LeukemiaIndependentFile} {
		path := filepath.Join(dir, name)
		g, s, err := readLeukemiaExpression(path)
		if err != nil {
			return nil, 0, err
		}
		if genes == nil {
			genes = g
		} else if !slices.Equal(genes, g) {
			return nil, 0, fmt.Errorf("%s: the genes differ from those of %s (same probes in the same order expected)",
				path, LeukemiaTrainFile)
		}
		var fileIDs []int
		for id, v := range s {
			if _, dup := samples[id]; dup {
				return nil, 0, fmt.Errorf("%s: patient %d also appears in %s", path, id, LeukemiaTrainFile)
			}
			if _, ok := labels[id]; !ok {
				return nil, 0, fmt.Errorf("%s: patient %d of %s has no label", filepath.Join(dir, LeukemiaLabelsFile), id, name)
			}
			samples[id] = v
			fileIDs = append(fileIDs, id)
		}
		slices.Sort(fileIDs)
		ids = append(ids, fileIDs...)
		if i == 0 {
			nTrain = len(fileIDs)
		}
	}
	for id := range labels {
		if _, ok := samples[id]; !ok {
			return nil, 0, fmt.Errorf("%s: patient %d has a label but no expression values", filepath.Join(dir, LeukemiaLabelsFile), id)
		}
	}
	D := len(genes)
	d := &Data{X: make([]float64, len(ids)*D), N: len(ids), D: D, Y: make([]float64, len(ids)),
		Names: genes, TargetName: "cancer", Labels: []string{"ALL", "AML"}}
	for r, id := range ids {
		copy(d.X[r*D:(r+1)*D], samples[id])
		if labels[id] == "AML" {
			d.Y[r] = 1
		}
	}
	return d, nTrain, nil
}

// newLeukemiaReader opens a CSV file of the Broad layout: commas, CRLF or LF line ends, and stray double quotes
// inside unquoted gene descriptions (`... "B FORM" VARIANT`). The input is read within the default memory budget
// (DefaultMaxBytes), which bounds the arrays too: they take at most a few bytes per byte of input.
func newLeukemiaReader(path string) (*csv.Reader, io.Closer, error) {
	f, _, err := openLimited(path, newBudget(path, 0))
	if err != nil {
		if be := budgetError(err); be != nil {
			return nil, nil, be
		}
		return nil, nil, fmt.Errorf("leukemia: %w", err)
	}
	r := csv.NewReader(f)
	r.LazyQuotes = true
	r.ReuseRecord = true
	return r, f, nil
}

// csvError turns an encoding/csv error into the package's "file:line: message" form.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", path, pe.Line, pe.Err)
	}
	if be := budgetError(err); be != nil {
		return be
	}
	return fmt.Errorf("%s: %w", path, err)
}

// readLeukemiaLabels reads actual.csv: a header "patient,cancer" and rows "id,ALL|AML".
func readLeukemiaLabels(path string) (map[int]string, error) {
	r, c, err := newLeukemiaReader(path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r.FieldsPerRecord = -1
	out := map[int]string{}
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(path, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != 2 {
			return nil, fmt.Errorf("%s:%d: want 2 fields (patient, cancer), have %d", path, line, len(rec))
		}
		idText, class := strings.TrimSpace(stripBOMString(rec[0])), strings.ToUpper(strings.TrimSpace(rec[1]))
		id, err := strconv.Atoi(idText)
		if err != nil {
			if first {
				continue // the header
			}
			return nil, fmt.Errorf("%s:%d: patient %q is not a number", path, line, idText)
		}
		if class != "ALL" && class != "AML" {
			return nil, fmt.Errorf("%s:%d: cancer %q is neither ALL nor AML", path, line, rec[1])
		}
		if _, dup := out[id]; dup {
			return nil, fmt.Errorf("%s:%d: patient %d listed twice", path, line, id)
		}
		out[id] = class
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no labels", path)
	}
	return out, nil
}

func stripBOMString(s string) string { return strings.TrimPrefix(s, "\ufeff") }

// readLeukemiaExpression reads one expression file: the gene accession numbers (one per row) and, per patient
// number in the header, the column of expression values (one per gene). The "call" columns are dropped.
func readLeukemiaExpression(path string) (genes []string, samples map[int][]float64, err error) {
	r, c, err := newLeukemiaReader(path)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	hdr, err := r.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s: empty file", path)
	}
	if err != nil {
		return nil, nil, csvError(path, err)
	}
	hdr = slices.Clone(hdr)
	if len(hdr) < 3 {
		return nil, nil, fmt.Errorf("%s:1: want the gene description, the accession number and sample columns, have %d columns", path, len(hdr))
	}
	type col struct{ field, id int }
	var cols []col
	seen := map[int]bool{}
	for j, h := range hdr[2:] {
		h = strings.TrimSpace(h)
		if strings.EqualFold(h, "call") {
			continue
		}
		id, err := strconv.Atoi(h)
		if err != nil || id < 1 {
			return nil, nil, fmt.Errorf("%s:1: column %d: header %q is neither a patient number nor \"call\"", path, j+3, h)
		}
		if seen[id] {
			return nil, nil, fmt.Errorf("%s:1: column %d: patient %d appears twice", path, j+3, id)
		}
		seen[id] = true
		cols = append(cols, col{j + 2, id})
	}
	if len(cols) == 0 {
		return nil, nil, fmt.Errorf("%s:1: no sample columns", path)
	}
	vals := make([][]float64, len(cols))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, csvError(path, err)
		}
		line, _ := r.FieldPos(0)
		genes = append(genes, strings.TrimSpace(rec[1]))
		for k, cl := range cols {
			f := strings.TrimSpace(rec[cl.field])
			v, msg := parseNum([]byte(f))
			if msg != "" {
				return nil, nil, fmt.Errorf("%s:%d: column %d (patient %d): %s", path, line, cl.field+1, cl.id, msg)
			}
			vals[k] = append(vals[k], v)
		}
	}
	if len(genes) == 0 {
		return nil, nil, fmt.Errorf("%s: no gene rows", path)
	}
	samples = make(map[int][]float64, len(cols))
	for k, cl := range cols {
		samples[cl.id] = vals[k]
	}
	return genes, samples, nil
}
