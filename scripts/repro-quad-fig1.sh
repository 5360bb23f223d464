#!/usr/bin/env bash
# Reproduces the kernel-approximation study of Munkhoeva et al. (2018), Figure 1, on Powerplant and LETTER:
# relative Frobenius error vs n (D = 2n(d+1) points) for every rule and the Gaussian, arc-cosine 0 and arc-cosine 1
# kernels, 500 runs each (docs/conventions.md §10). Writes docs/figures/<dataset>-<kernel>.{png,csv,json}.
# Usage: scripts/repro-quad-fig1.sh [RUNS [KERNELS]]   KERNELS is a space-separated list, default
# "gaussian arccos0 arccos1". Reads Powerplant and LETTER from $RFF_DATA (default: ../shared/data relative to the
# module root). About 10 minutes per kernel at 500 runs on 2 cores (AMD EPYC, Zen 3).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-500}
kernels=${2:-gaussian arccos0 arccos1}
data=${RFF_DATA:-../shared/data}
out=docs/figures
mkdir -p "$out"
go build -o /tmp/rff-repro ./cmd/rff
for kernel in $kernels; do
  /tmp/rff-repro approx --data "$data/powerplant/Folds5x2_pp.csv" --train 8500 --preprocess standardize,paper \
    --kernel "$kernel" --runs "$runs" --plot "$out/powerplant-$kernel.png" --json > "$out/powerplant-$kernel.json"
  /tmp/rff-repro approx --data "$data/letter/letter-recognition.data" --target first --train 10000 --preprocess paper \
    --kernel "$kernel" --runs "$runs" --plot "$out/letter-$kernel.png" --json > "$out/letter-$kernel.json"
done
echo "figures in $out"
