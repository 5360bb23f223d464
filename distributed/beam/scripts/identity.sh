#!/bin/sh
# The identity check of docs/distributed.md on the real data: Powerplant (regression) and LETTER (26 classes) cut
# into 4 shards (two plain, two gzip; Powerplant's each with its header), fitted by rff-beam on prism, and the same
# rows concatenated fitted by rff fit (in memory) and rff fit --stream with the same flags. Prints, per data set and
# reference, the largest relative difference of the predictions, of the weights and of the intercepts, and the
# rounding bound of the weights; fails when the predictions differ by more than 1e-10 of their scale, the classes
# differ, or the weights exceed the bound.
# Usage (from distributed/beam): scripts/identity.sh [workdir]
#   RFF_DATA: the directory of the real data sets (default: shared/data beside the repository).
# The shards go to the work directory (a new temporary directory by default, removed at the end), never into the
# repository.
set -eu
cd "$(dirname "$0")/.."
DATA=${RFF_DATA:-$(cd ../../.. && pwd)/shared/data}
for f in powerplant/Folds5x2_pp.csv letter/letter-recognition.data; do
  if [ ! -f "$DATA/$f" ]; then
    echo "identity.sh: $DATA/$f is absent; set RFF_DATA to the directory of the real data sets" >&2
    exit 2
  fi
done
if [ $# -ge 1 ]; then
  WORK=$1
  mkdir -p "$WORK"
else
  WORK=$(mktemp -d /tmp/rff-beam-identity.XXXXXX)
  trap 'rm -rf "$WORK"' EXIT
fi
go build -o "$WORK/rff-beam" ./cmd/rff-beam
go build -o "$WORK/modeldiff" ./internal/modeldiff
(cd ../.. && go build -o "$WORK/rff" ./cmd/rff)

# shard NAME FILE HEADER(yes|no): the data lines without BOM or CR, as all.csv and as 4 contiguous shards
shard() {
  dir="$WORK/$1"
  mkdir -p "$dir/shards"
  sed '1s/^\xEF\xBB\xBF//' "$2" | tr -d '\r' | grep -v '^$' > "$dir/clean.csv"
  if [ "$3" = yes ]; then
    head -1 "$dir/clean.csv" > "$dir/header"
    tail -n +2 "$dir/clean.csv" > "$dir/body"
  else
    : > "$dir/header"
    cp "$dir/clean.csv" "$dir/body"
  fi
  cat "$dir/header" "$dir/body" > "$dir/all.csv"
  n=$(wc -l < "$dir/body")
  for s in 0 1 2 3; do
    from=$((s * n / 4 + 1))
    to=$(((s + 1) * n / 4))
    out="$dir/shards/part-$s.csv"
    { cat "$dir/header"; sed -n "${from},${to}p" "$dir/body"; } > "$out"
    if [ $((s % 2)) -eq 1 ]; then gzip -n "$out"; fi
  done
  echo "$1: $n rows in 4 shards: $(cd "$dir/shards" && ls | tr '\n' ' ')"
}

# run NAME TARGET FLAGS...: fit the shards and the concatenation, compare
run() {
  name=$1 target=$2
  shift 2
  dir="$WORK/$name"
  "$WORK/rff-beam" fit --input "$dir/shards/part-*" --target "$target" --out "$dir/beam.rff" "$@" > /dev/null
  "$WORK/rff" fit --data "$dir/all.csv" --target "$target" --out "$dir/fit.rff" "$@" > /dev/null
  "$WORK/rff" fit --data "$dir/all.csv" --target "$target" --stream --out "$dir/stream.rff" "$@" > /dev/null
  for ref in fit stream; do
    printf '%s, rff-beam (4 shards) against rff fit%s: ' "$name" "$([ $ref = stream ] && echo ' --stream' || true)"
    "$WORK/modeldiff" --target "$target" "$dir/beam.rff" "$dir/$ref.rff" "$dir/all.csv"
  done
}

grep -m1 'model name' /proc/cpuinfo
"$WORK/rff" version
shard powerplant "$DATA/powerplant/Folds5x2_pp.csv" yes
shard letter "$DATA/letter/letter-recognition.data" no
run powerplant last -D 256 --lambda 1e-4 --seed 1
run letter first --task classification -D 256 --lambda 1e-4 --seed 2
echo "identity.sh: every difference within its tolerance"
