#!/usr/bin/env bash
# Learning on the papers' datasets (docs/results.md, "Learning on the papers' datasets"): random-feature models
# (sr-butterfly, D = 4096 points unless noted) next to exact kernel ridge regression with the same kernel, λ and
# preprocessing where the N×N Gram fits in memory. Prints one JSON line per run (rff fit --json) and a Markdown table
# at the end.
# Usage: scripts/acceptance-learn.sh [OUT.jsonl]
# Reads LETTER, USPS, Powerplant and MNIST from $RFF_DATA (default: ../shared/data relative to the module root).
# About 3 minutes with OpenBLAS on 2 cores (AMD EPYC, Zen 3).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/rff-acceptance.jsonl}
data=${RFF_DATA:-../shared/data}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rff" ./cmd/rff
rff="$tmp/rff"
"$rff" version
: > "$out"

# LETTER: first 16000 rows train, last 4000 test, standardized.
head -16000 "$data/letter/letter-recognition.data" > "$tmp/letter-train.csv"
tail -4000 "$data/letter/letter-recognition.data" > "$tmp/letter-test.csv"
# Powerplant: first 8500 rows train, the rest test (header kept on both).
python3 - "$data/powerplant/Folds5x2_pp.csv" "$tmp" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8-sig').read().splitlines()
open(sys.argv[2] + '/pp-train.csv', 'w').write('\n'.join(lines[:8501]) + '\n')
open(sys.argv[2] + '/pp-test.csv', 'w').write('\n'.join([lines[0]] + lines[8501:]) + '\n')
PY
usps="--data $data/usps/usps_train_derived.csv.gz --test-data $data/usps/usps_test_derived.csv.gz --target first --preprocess none"
mnist="--data $data/mnist/train-images-idx3-ubyte.gz --labels $data/mnist/train-labels-idx1-ubyte.gz --test-data $data/mnist/t10k-images-idx3-ubyte.gz --test-labels $data/mnist/t10k-labels-idx1-ubyte.gz --preprocess maxscale"

run() { # name, then rff fit flags
  local name=$1
  shift
  "$rff" fit "$@" --out "$tmp/m.rff" --json | sed "s/^{/{\"run\":\"$name\",/" | tee -a "$out"
}
run letter --data "$tmp/letter-train.csv" --test-data "$tmp/letter-test.csv" --target first --task classification -D 4096 --sigma 2 --lambda 1e-6
run letter-exact --data "$tmp/letter-train.csv" --test-data "$tmp/letter-test.csv" --target first --task classification --exact --sigma 2 --lambda 1e-6
run usps $usps --task classification -D 4096 --sigma 8 --lambda 1e-5
run usps-exact $usps --task classification --exact --sigma 8 --lambda 1e-5
run powerplant --data "$tmp/pp-train.csv" --test-data "$tmp/pp-test.csv" -D 2048 --sigma 0.5 --lambda 1e-5
run powerplant-exact --data "$tmp/pp-train.csv" --test-data "$tmp/pp-test.csv" --exact --sigma 0.5 --lambda 1e-5
run mnist $mnist --task classification -D 4096 --sigma 5 --lambda 1e-6
run mnist-exact-10k $mnist --train 10000 --task classification --exact --sigma 5 --lambda 1e-6

python3 - "$out" <<'PY'
import json, sys
print("\n| run | N | D | rule | test | fit (s) | fit + test (s) |\n|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    t, info = r["test"], r["info"]
    m = "accuracy %.4f" % t["classification"]["accuracy"] if "classification" in t else "RMSE %.3f" % t["regression"]["rmse"]
    print("| %s | %d | %s | %s | %s | %.1f | %.1f |" % (r["run"], r["fit"]["n"], info.get("points", "exact"), info.get("rule", "–"), m,
          r["seconds"]["fit"], r["seconds"]["fit"] + r["seconds"]["test"]))
PY
