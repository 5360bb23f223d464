package rff_test

import (
	"bytes"
	"fmt"

	"github.com/rffkit/rff"
)

// Nyström features on 100 landmarks, the same model solved by FALKON, and a round trip through the model file. On
// one input the Gaussian kernel matrix of 100 landmarks is numerically singular: the pivoted Cholesky factorization
// keeps the landmarks it needs (Info().Centres ≤ 100) and drops those the others already span.
func Example_nystrom() {
	train, test := sine(500), sine(50)
	cfg := rff.Config{Map: "nystrom", Centres: 100, Sigma: 1, Lambda: 1e-8, Seed: 1}
	direct, err := rff.Fit(cfg, train)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.Solver, cfg.FalkonTol = "falkon", 1e-10
	falkon, _ := rff.Fit(cfg, train)
	var file bytes.Buffer
	_ = falkon.Write(&file)
	loaded, _ := rff.Read(&file)
	a, _ := direct.Score(test)
	b, _ := loaded.Score(test)
	fmt.Println(loaded.Info().Map, loaded.Info().Centres <= 100, loaded.Report() == nil)
	fmt.Printf("test RMSE below 0.01: %v %v\n", a.Regression.RMSE < 0.01, b.Regression.RMSE < 0.01)
	// Output:
	// nystrom true true
	// test RMSE below 0.01: true true
}
