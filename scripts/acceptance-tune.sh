#!/usr/bin/env bash
# Hyperparameters chosen from the data (docs/results.md, "Tuning on the papers' data sets"): each data set fitted
# with its hand-chosen σ and λ (docs/results.md, "Learning on the papers' data sets") and with rff fit --tune and no σ
# or λ at the same D, one after the other, so that the ratio of the two times is measured in one run; then the
# multitask decomposable OVK (noise 0.1, 2000 training / 1000 test rows) with the default λ and tuned.
# Usage: scripts/acceptance-tune.sh [OUT.jsonl] [RUNS...]   RUNS: letter usps powerplant mnist mnist-pca multitask
# (default all), letter-surface and usps-surface (the test accuracy of every cell of a σ × λ grid around the
# hand-chosen pair at D = 4096: one fit per cell, about 19 and 5 minutes on 2 cores; not in the default).
# Reads the data sets from $RFF_DATA (default: the folder shared/data beside the module root).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib/data.sh"
script_args "$0" "${1:-}"
out=$(realpath -m -- "${1:-/tmp/rff-acceptance-tune.jsonl}") # before the cd: relative to where the script was run
shift || true
data=$(realpath -m -- "${RFF_DATA:-$root/../shared/data}")
cd "$root"
runs=${*:-letter usps powerplant mnist mnist-pca multitask}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/rff" ./cmd/rff
rff="$tmp/rff"
"$rff" version
grep -m1 'model name' /proc/cpuinfo || true
uptime
: > "$out"
prepare_data "$data" "$tmp"

for r in $runs; do
  case $r in
  letter)
    fit_run letter $letter -D 4096 --sigma 2 --lambda 1e-6
    fit_run letter-tuned $letter -D 4096 --tune ;;
  usps)
    fit_run usps $usps -D 4096 --sigma 8 --lambda 1e-5
    fit_run usps-tuned $usps -D 4096 --tune ;;
  powerplant)
    fit_run powerplant $powerplant -D 2048 --sigma 0.5 --lambda 1e-5
    fit_run powerplant-tuned $powerplant -D 2048 --tune ;;
  mnist)
    fit_run mnist $mnist -D 4096 --sigma 5 --lambda 1e-6
    fit_run mnist-tuned $mnist -D 4096 --tune ;;
  mnist-pca) # the pixels/255 projected on their 50 leading principal components
    fit_run mnist-pca $mnist,pca:50 -D 4096 --sigma 4 --lambda 1e-6
    fit_run mnist-pca-tuned $mnist,pca:50 -D 4096 --tune ;;
  multitask)
    "$rff" generate multitask --n 3000 --seed 1 --noise 0.1 --out "$tmp/mt.csv"
    "$rff" generate multitask --n 3000 --seed 1 --noise 0 --out "$tmp/mt0.csv"
    head -2001 "$tmp/mt.csv" > "$tmp/mt-train.csv"
    (head -1 "$tmp/mt0.csv"; tail -1000 "$tmp/mt0.csv") > "$tmp/mt-test.csv"
    mt="--data $tmp/mt-train.csv --test-data $tmp/mt-test.csv --target none --ovk decomposable --targets y1,y2,y3,y4"
    fit_run multitask $mt
    fit_run multitask-tuned $mt --tune ;;
  letter-surface)
    for sg in 1.41 1.68 2 2.38 2.83 3.36 4; do for l in 1e-8 1e-7 1e-6 1e-5; do
      fit_run "surface letter $sg $l" $letter -D 4096 --sigma $sg --lambda $l > /dev/null
    done; done ;;
  usps-surface)
    for sg in 5.66 6.73 8 9.51 11.3; do for l in 1e-7 1e-6 1e-5 1e-4; do
      fit_run "surface usps $sg $l" $usps -D 4096 --sigma $sg --lambda $l > /dev/null
    done; done ;;
  *) echo "unknown run $r" >&2; exit 2 ;;
  esac
done
uptime
fit_table "$out"
surface_table "$out"
