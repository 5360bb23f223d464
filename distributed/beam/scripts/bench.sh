#!/bin/sh
# The benchmark of docs/distributed.md: rff-beam fit on prism (8 gzip shards) next to rff fit --stream (the same rows
# in one gzip file), same flags, wall time and peak RSS from /usr/bin/time -v, predictions compared.
# Usage: scripts/bench.sh [rows] [inputs] [D] [workdir]   (run from distributed/beam; defaults 1000000 64 1024)
set -eu
N=${1:-1000000}
DIMS=${2:-64}
D=${3:-1024}
WORK=${4:-/tmp/rff-beam-bench}
mkdir -p "$WORK"
go build -o "$WORK/rff-beam" ./cmd/rff-beam
go build -o "$WORK/benchdata" ./internal/benchdata
(cd ../.. && go build -o "$WORK/rff" ./cmd/rff)
if [ ! -f "$WORK/all.csv.gz" ]; then
  "$WORK/benchdata" -n "$N" -d "$DIMS" -shards 8 -dir "$WORK"
fi
grep -m1 "model name" /proc/cpuinfo
nproc
"$WORK/rff" version
ls -l "$WORK"/shards "$WORK/all.csv.gz"
FLAGS="-D $D --lambda 1e-6 --seed 1"
/usr/bin/time -v "$WORK/rff-beam" fit --input "$WORK/shards/part-*.csv.gz" --out "$WORK/beam.rff" $FLAGS --json \
  > "$WORK/beam.json" 2> "$WORK/beam.time"
/usr/bin/time -v "$WORK/rff" fit --data "$WORK/all.csv.gz" --stream --out "$WORK/stream.rff" $FLAGS --json \
  > "$WORK/stream.json" 2> "$WORK/stream.time"
for t in beam stream; do
  printf '%s: ' "$t"
  grep -E "Elapsed \(wall clock\)|Maximum resident" "$WORK/$t.time" | sed 's/^[[:space:]]*//' | tr '\n' ' '
  echo
done
cat "$WORK/beam.json"
# Predictions of the two models on the first 100000 rows.
zcat "$WORK/all.csv.gz" | head -100001 > "$WORK/head.csv"
"$WORK/rff" predict --model "$WORK/beam.rff" --data "$WORK/head.csv" --out "$WORK/beam.pred"
"$WORK/rff" predict --model "$WORK/stream.rff" --data "$WORK/head.csv" --out "$WORK/stream.pred"
paste -d, "$WORK/beam.pred" "$WORK/stream.pred" | awk -F, 'NR > 1 { d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d;
  a = $2 < 0 ? -$2 : $2; if (a > s) s = a } END { printf "largest prediction difference: %.3g of the largest prediction %.3g\n", m, s }'
