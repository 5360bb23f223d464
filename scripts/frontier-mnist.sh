#!/usr/bin/env bash
# MNIST (60000 training / 10000 test images, pixels/255) by the configurations the README recommends for
# accuracy per second (docs/performance.md, "MNIST: accuracy per second"): the fit and the scoring of the test set
# timed by rff fit --json, each configuration ROUNDS times (default 2), interleaved.
# Usage: scripts/frontier-mnist.sh [OUT.jsonl] [ROUNDS]. Reads MNIST from $RFF_DATA (default: the folder
# shared/data beside the module root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/data.sh"
script_args "$0" "${1:-}"
out=$(realpath -m -- "${1:-/tmp/rff-frontier-mnist.jsonl}") # before the cd: relative to where the script was run
rounds=${2:-2}
data=$(realpath -m -- "${RFF_DATA:-$root/../shared/data}")
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rff" ./cmd/rff
rff="$tmp/rff"
"$rff" version
grep -m1 'model name' /proc/cpuinfo || true
uptime
: > "$out"
prepare_data "$data" "$tmp"
for round in $(seq "$rounds"); do
  # seconds: 50 principal components, D = 768 SR points (816 after rounding to whole rules: 1632 cos/sin features),
  # σ and λ as rff fit --tune chooses them at this D (5-fold CV on the training images: --tune --tune-points 768);
  # and the same at D = 512 (561 points)
  fit_run fast $mnist,pca:50 -D 768 --sigma 13 --lambda 1e-9
  fit_run fast-512 $mnist,pca:50 -D 512 --sigma 13 --lambda 1e-9
  # a minute: the same projection, D = 5120 points (5151 points, 10302 features; float32 Gram refined in float64 by --precision auto)
  fit_run accurate $mnist,pca:50 -D 5120 --sigma 4 --lambda 1e-6
  # the raw pixels for comparison: D = 4096 points (9420 features)
  fit_run pixels $mnist -D 4096 --sigma 5 --lambda 1e-6
done
uptime
fit_table "$out"
