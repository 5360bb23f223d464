package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rffkit/rff/rule"
)

// TestBenchQuick runs rff bench --quick --json once (a few seconds) and checks the report and its table.
func TestBenchQuick(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runBench([]string{"--quick", "--json"}, &out, &errOut); err != nil {
		t.Fatalf("%v: %s", err, errOut.String())
	}
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if rep.Backend.Summary == "" || rep.Backend.Threads < 1 || !rep.Quick {
		t.Errorf("backend %+v", rep.Backend)
	}
	for _, r := range []rateResult{rep.GEMM, rep.Gram, rep.GramSyrk} {
		if !(r.GFLOPS > 0) || r.Reps < 2 || r.N != 512 {
			t.Errorf("rate %+v", r)
		}
	}
	if !(rep.GramOverGEMM > 0) {
		t.Errorf("gram/gemm %v", rep.GramOverGEMM)
	}
	if len(rep.Map) != 2*len(rule.Names()) {
		t.Fatalf("%d map results", len(rep.Map))
	}
	for _, m := range rep.Map {
		if !(m.RowsPerSec > 0) || m.Points < 256 || m.Features != 2*m.Points || m.Rows != 1000 {
			t.Errorf("map %+v", m)
		}
	}
	kg := rep.KernelGram
	if kg.Rows != 256 || kg.Centres != 256 || kg.Dim != 784 || !(kg.Grid.GFLOPS > 0) || !(kg.Double.GFLOPS > 0) ||
		!(kg.Speedup > 0) || kg.Grid.Reps != 2 {
		t.Errorf("kernel matrix %+v", kg)
	}
	f := rep.Fit
	if f.N != 2000 || f.Dim != 64 || f.Points != 1024 || f.Features != 2048 || f.Rule != "g" {
		t.Errorf("fit %+v", f)
	}
	for _, p := range []string{"draw", "features_gram", "solve", "predict"} {
		if !(f.Phases[p] > 0) {
			t.Errorf("phase %s: %v", p, f.Phases[p])
		}
	}
	// The target y = Σⱼ sin(xⱼ)/8 + 0.1ε has variance 64·(1 − e⁻²)/2/64 + 0.01 ≈ 0.44; the fit must explain most of it.
	if !(f.TrainMSE < 0.1) {
		t.Errorf("train MSE %v", f.TrainMSE)
	}
	// The table printed without --json, from the same report.
	var tab bytes.Buffer
	printBench(&tab, rep, benchSizes(true))
	for _, want := range []string{"backend: ", "GEMM  n=512", "% of GEMM", "sr-butterfly", "kernel matrix 256 rows", "features_gram", "solve"} {
		if !strings.Contains(tab.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tab.String())
		}
	}
}

func TestBenchFlags(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := runBench([]string{"--bogus"}, &out, &errOut); err == nil {
		t.Error("unknown flag accepted")
	}
	for _, args := range [][]string{{"extra"}, {"--rules", "nope"}, {"--dims", "0"}, {"--dims", "x"}} {
		if err := runBench(args, &out, &errOut); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	// --rules and --dims select the map measurements.
	out.Reset()
	if err := runBench([]string{"--quick", "--json", "--rules", "g,sorf", "--dims", "32"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	var rep benchReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Map) != 2 || rep.Map[0].Rule != "g" || rep.Map[1].Rule != "sorf" || rep.Map[1].Dim != 32 {
		t.Errorf("map %+v", rep.Map)
	}
}
