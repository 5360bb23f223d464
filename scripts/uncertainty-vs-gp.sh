#!/usr/bin/env bash
# Predictive uncertainty on Powerplant: rff fit --uncertainty on the first 2000 training rows, and scikit-learn's exact
# Gaussian process on the same rows with the same Gaussian kernel (bandwidth and noise fitted by its own marginal
# likelihood), scored on the 1068 test rows: coverage of the central 95% predictive intervals and the mean negative
# log predictive density (NLPD, in the targets' units). Uses Debian's python3-sklearn (/usr/bin/python3).
#
#   scripts/uncertainty-vs-gp.sh [-D POINTS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
D=2048
case "${1:-}" in
  "") ;;
  -D)
    if [ $# -ne 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then
      echo "uncertainty-vs-gp.sh: -D needs a number of points, and nothing after it (see --help)" >&2
      exit 2
    fi
    D=$2 ;;
  -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "uncertainty-vs-gp.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
data=$(realpath -m -- "${RFF_DATA:-$root/../shared/data}")/powerplant/Folds5x2_pp.csv
if ! [ -f "$data" ]; then
  echo "uncertainty-vs-gp.sh: $data is missing (set RFF_DATA)" >&2
  exit 1
fi
cd "$root"
py=/usr/bin/python3
. scripts/lib/bench.sh
need_sklearn uncertainty-vs-gp.sh "$py" 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -2001 "$data" > "$work/train.csv"
(head -1 "$data"; tail -n +8502 "$data") > "$work/test.csv"
go build -o "$work/rff" ./cmd/rff
"$work/rff" fit --data "$work/train.csv" --tune --uncertainty -D "$D" --out "$work/m.rff" > "$work/fit.txt"
"$work/rff" predict --model "$work/m.rff" --data "$work/test.csv" --std > "$work/pred.csv"
"$py" - "$work" <<'PY'
import csv, math, sys, time
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, WhiteKernel, ConstantKernel
from sklearn.preprocessing import StandardScaler
w = sys.argv[1]
tr = np.loadtxt(w + "/train.csv", delimiter=",", skiprows=1)
te = np.loadtxt(w + "/test.csv", delimiter=",", skiprows=1)
pred = np.loadtxt(w + "/pred.csv", delimiter=",", skiprows=1)
def score(m, s, y):
    inside = np.mean(np.abs(y - m) <= 1.959964 * s)
    nlpd = np.mean(0.5 * np.log(2 * np.pi * s * s) + (y - m) ** 2 / (2 * s * s))
    return inside, nlpd
y = te[:, -1]
cov, nlpd = score(pred[:, 0], pred[:, 1], y)
print(open(w + "/fit.txt").read().splitlines()[0])
print("rff      coverage of 95%% intervals %.4f, mean NLPD %.4f" % (cov, nlpd))
sc = StandardScaler().fit(tr[:, :-1])
k = ConstantKernel(100.0) * RBF(length_scale=1.0) + WhiteKernel(10.0)
t0 = time.time()
gp = GaussianProcessRegressor(kernel=k, normalize_y=True, random_state=0).fit(sc.transform(tr[:, :-1]), tr[:, -1])
m, s = gp.predict(sc.transform(te[:, :-1]), return_std=True)
gcov, gnlpd = score(m, s, y)
print("exact GP coverage of 95%% intervals %.4f, mean NLPD %.4f (%.1f s; kernel %s)" % (gcov, gnlpd, time.time() - t0, gp.kernel_))
print("NLPD ratio rff / GP: %.3f" % (nlpd / gnlpd))
PY
