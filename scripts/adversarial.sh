#!/usr/bin/env bash
# Hostile command lines run as real processes: each must exit with code 2, print exactly one line on stderr (no stack
# trace) and nothing on stdout, within 5 s and with a peak resident set below 1 GiB. The in-process counterpart, with
# more cases, is cmd/rff/bad_test.go.
#
#   scripts/adversarial.sh            build rff and run every case; exit 1 if any case breaks the promise
set -euo pipefail
case "${1:-}" in
  "") ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "adversarial.sh: takes no arguments (see --help)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."
if ! [ -x /usr/bin/time ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    apt-get install -y -qq time > /dev/null 2>&1 || { apt-get update -qq > /dev/null && apt-get install -y -qq time > /dev/null; }
  else
    echo "adversarial.sh: /usr/bin/time is needed (Debian package time)" >&2
    exit 1
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/rff" ./cmd/rff
rff=$work/rff
# Data: 500 rows in R⁴, a gzip bomb (1 GiB of zeros, about 1 MB compressed), 20 rows in R^20000.
python3 - "$work" <<'PY'
import gzip, math, sys
w = sys.argv[1]
with open(w + "/train.csv", "w") as f:
    f.write("a,b,c,d,y\n")
    for i in range(500):
        x = [math.sin(i * (j + 1)) for j in range(4)]
        f.write(",".join("%.6f" % v for v in x) + ",%.6f\n" % (x[0] * x[1]))
with gzip.open(w + "/bomb.csv.gz", "wb", 9) as f:
    f.write(b"a,b,y\n")
    row = b"0,0,0\n" * 65536
    for _ in range((1 << 30) // len(row)):
        f.write(row)
with open(w + "/wide.csv", "w") as f:
    f.write(",".join("x%d" % (j + 1) for j in range(20000)) + ",y\n")
    for i in range(20):
        f.write(",".join(str((i * j) % 7) for j in range(20000)) + ",%d\n" % i)
PY
"$rff" fit --data "$work/train.csv" --out "$work/m.rff" -D 32 > /dev/null
cases=(
  "fit --data $work/train.csv --out $work/o.rff -D 100000"
  "fit --data $work/train.csv --out $work/o.rff -D 100000 --stream"
  "fit --data $work/train.csv --out $work/o.rff -D 30000 --solver cg"
  "fit --data $work/wide.csv --out $work/o.rff -D 64"
  "fit --data $work/bomb.csv.gz --out $work/o.rff --max-memory 256MiB"
  "fit --data $work/train.csv --out $work/o.rff --cv 3 --lambdas 1e-3:1e-1:100000000000"
  "approx --data $work/train.csv --samples 100 --runs 2000000000"
  "approx --ovk curl-free --dim 100000000"
  "bench --dims 1000000000"
  "generate multitask --n 40000000 --max-memory 1GiB"
  "repro orff-fig1a --pairs 10000000000"
  "repro orff-fig1a -d 1000000000"
  "bound --d 1000000000000 --diameter 1 -D 100"
  "fit --data $work/train.csv --out $work/train.csv"
  "predict --model $work/m.rff --data $work/train.csv --out $work/m.rff"
  "eval --model $work/train.csv --data $work/train.csv"
)
fail=0
printf '%-8s %-6s %-9s %s\n' exit seconds "RSS MiB" command
for c in "${cases[@]}"; do
  set +e
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %M" -o "$work/time" timeout 60 "$rff" $c > "$work/out" 2> "$work/err"
  code=$?
  set -e
  read -r secs kb < <(tail -n 1 "$work/time") || { secs=?; kb=0; }
  lines=$(wc -l < "$work/err")
  printf '%-8s %-6s %-9s %s\n' "$code" "$secs" "$((kb / 1024))" "rff $c"
  if [ "$code" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$work/out" ] || grep -q "goroutine" "$work/err" ||
     [ "$((kb / 1024))" -ge 1024 ] || awk -v s="$secs" 'BEGIN { exit !(s > 5) }'; then
    echo "  FAILED: $(head -c 300 "$work/err")"
    fail=1
  fi
done
exit $fail
