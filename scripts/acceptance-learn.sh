#!/usr/bin/env bash
# Learning on the papers' datasets (docs/results.md, "Learning on the papers' datasets"): random-feature models
# (sr-butterfly, D = 4096 points unless noted) next to exact kernel ridge regression with the same kernel, λ and
# preprocessing where the N×N Gram fits in memory. Prints one JSON line per run (rff fit --json) and a Markdown table
# at the end.
# Usage: scripts/acceptance-learn.sh [OUT.jsonl]
# Reads LETTER, USPS, Powerplant and MNIST from $RFF_DATA (default: the folder shared/data beside the module root).
# About 3 minutes with OpenBLAS on 2 cores (AMD EPYC, Zen 3).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/data.sh"
script_args "$0" "${1:-}"
out=$(realpath -m -- "${1:-/tmp/rff-acceptance.jsonl}") # before the cd: relative to where the script was run
data=$(realpath -m -- "${RFF_DATA:-$root/../shared/data}")
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rff" ./cmd/rff
rff="$tmp/rff"
"$rff" version
: > "$out"

prepare_data "$data" "$tmp"

fit_run letter $letter -D 4096 --sigma 2 --lambda 1e-6
fit_run letter-exact $letter --exact --sigma 2 --lambda 1e-6
fit_run usps $usps -D 4096 --sigma 8 --lambda 1e-5
fit_run usps-exact $usps --exact --sigma 8 --lambda 1e-5
fit_run powerplant $powerplant -D 2048 --sigma 0.5 --lambda 1e-5
fit_run powerplant-exact $powerplant --exact --sigma 0.5 --lambda 1e-5
fit_run mnist $mnist -D 4096 --sigma 5 --lambda 1e-6
fit_run mnist-exact-10k $mnist --train 10000 --exact --sigma 5 --lambda 1e-6

fit_table "$out"
