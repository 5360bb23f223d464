#!/usr/bin/env bash
# Reproduces the kernel-approximation study of Munkhoeva et al. (2018), Figure 1, on Powerplant and LETTER:
# relative Frobenius error vs n (D = 2n(d+1) points) for every rule and the Gaussian, arc-cosine 0 and arc-cosine 1
# kernels, 500 runs each (docs/conventions.md §10). Writes OUT/<dataset>-<kernel>.{png,csv,json}, OUT being
# docs/figures unless --out says; a run that fails leaves the files it would have replaced as they were.
# Usage: scripts/repro-quad-fig1.sh [--out DIR] [RUNS [KERNELS]]   KERNELS is a space-separated list, default
# "gaussian arccos0 arccos1". Reads Powerplant and LETTER from $RFF_DATA (default: the folder shared/data beside the
# module root). About 10 minutes per kernel at 500 runs on 2 cores (AMD EPYC, Zen 3).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${RFF_DATA:-"$(dirname "$root")/shared/data"}
out="$root/docs/figures"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --out)
      if [ $# -lt 2 ]; then echo "repro-quad-fig1.sh: --out needs a directory" >&2; exit 2; fi
      out=$(realpath -m -- "$2"); shift ;;
    -*) echo "repro-quad-fig1.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [ ${#args[@]} -gt 2 ]; then
  echo "repro-quad-fig1.sh: at most two arguments, RUNS and KERNELS (see --help)" >&2
  exit 2
fi
runs=${args[0]:-500}
kernels=${args[1]:-gaussian arccos0 arccos1}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  echo "repro-quad-fig1.sh: RUNS must be a positive whole number, got \"$runs\"" >&2
  exit 2
fi
data=$(realpath -m -- "$data")
for f in powerplant/Folds5x2_pp.csv letter/letter-recognition.data; do
  if ! [ -f "$data/$f" ]; then
    echo "repro-quad-fig1.sh: $data/$f is missing (set RFF_DATA)" >&2
    exit 1
  fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/rff" ./cmd/rff)
mkdir -p "$out"
for kernel in $kernels; do
  "$tmp/rff" approx --data "$data/powerplant/Folds5x2_pp.csv" --train 8500 --preprocess standardize,paper \
    --kernel "$kernel" --runs "$runs" --plot "$out/powerplant-$kernel.png" --json > "$tmp/powerplant-$kernel.json"
  mv "$tmp/powerplant-$kernel.json" "$out/"
  "$tmp/rff" approx --data "$data/letter/letter-recognition.data" --target first --train 10000 --preprocess paper \
    --kernel "$kernel" --runs "$runs" --plot "$out/letter-$kernel.png" --json > "$tmp/letter-$kernel.json"
  mv "$tmp/letter-$kernel.json" "$out/"
done
echo "figures in $out"
