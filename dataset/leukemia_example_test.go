package dataset_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/rffkit/rff/dataset"
	"github.com/rffkit/rff/internal/datadir"
)

// LoadLeukemia reads the Golub ALL/AML data from a directory in the Broad layout. Here a miniature with two genes
// and four patients (invented values); the full data set (leukemia/ in the data directory) gives 72 rows × 7129 genes.
func ExampleLoadLeukemia() {
	dir, err := os.MkdirTemp("", "leukemia")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		// Sample columns are named by patient number, in any order; the "call" columns are dropped.
		dataset.LeukemiaTrainFile: "Gene Description,Gene Accession Number,2,call,1,call\n" +
			"TEST-G1_at (control gene),TEST-G1_at,-130,A,-210,A\n" +
			"TEST-G2_at (control gene),TEST-G2_at,-70,A,-150,A\n",
		dataset.LeukemiaIndependentFile: "Gene Description,Gene Accession Number,3,call,4,call\n" +
			"TEST-G1_at (control gene),TEST-G1_at,-80,A,-120,A\n" +
			"TEST-G2_at (control gene),TEST-G2_at,-40,A,-110,A\n",
		dataset.LeukemiaLabelsFile: "patient,cancer\n1,AML\n2,ALL\n3,AML\n4,ALL\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	d, err := dataset.LoadLeukemia(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d patients × %d genes %v\n", d.N, d.D, d.Names)
	for i := range d.N {
		fmt.Printf("patient %d: %v %s\n", i+1, d.Row(i), d.Labels[int(d.Y[i])])
	}
	// Output:
	// 4 patients × 2 genes [TEST-G1_at TEST-G2_at]
	// patient 1: [-210 -150] AML
	// patient 2: [-130 -70] ALL
	// patient 3: [-80 -40] AML
	// patient 4: [-120 -110] ALL
}

// The original split of the full data set: Golub's 38 training samples (27 ALL, 11 AML) and 34 independent ones.
// The quadrature paper divides the data by the global maximum of the training part (docs/conventions.md §10).
func ExampleLoadLeukemiaSplit() {
	dir, ok := datadir.Path("leukemia")
	if !ok {
		fmt.Println("LEUKEMIA not available")
		return
	}
	train, test, err := dataset.LoadLeukemiaSplit(dir)
	if err != nil {
		log.Fatal(err)
	}
	sc, err := dataset.FitScaler(train.X, train.N, train.D, []dataset.Step{dataset.StepMaxScale})
	if err != nil {
		log.Fatal(err)
	}
	sc.Apply(train.X, train.N, train.D)
	sc.Apply(test.X, test.N, test.D)
	fmt.Println(train.N, test.N, train.D)
}
