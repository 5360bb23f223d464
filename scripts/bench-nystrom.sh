#!/usr/bin/env bash
# rff's Nyström ridge regression and FALKON against scikit-learn's Nystroem + Ridge, on LETTER and MNIST, at equal
# numbers of centres M; then FALKON and rff's Nyström ridge on MNIST for M = 1000 … 10000 (accuracy per second, both
# on the same centres). Same OpenBLAS, thread count and OpenBLAS core type for both programs, which run in
# alternation. Prints tables and writes every number as JSON (docs/perf-nystrom.json); the tables in
# docs/performance.md come from it.
#
#   scripts/bench-nystrom.sh                  everything (about an hour on 2 cores)
#   scripts/bench-nystrom.sh --quick          small sizes, to check the script (a few minutes)
#   options: --only compare,falkon  (the parts to run), --letter-m LIST (default 500,1000,2000),
#            --mnist-m LIST (default 1000,2000,4000), --falkon-m LIST (default 1000,2000,5000,10000),
#            --lambda L (default 1e-6), --maxiter K (FALKON's CG iterations at most, default 20), --tol T (1e-6),
#            --reps K (alternations of the comparison, default 1), --threads T (default: nproc),
#            --data-dir DIR (default $RFF_DATA, else the folder shared/data beside the module root),
#            --work DIR (default /tmp/rff-nystrom), --out FILE (default docs/perf-nystrom.json;
#            with --quick, perf-nystrom.json in the work directory),
#            --no-install (never call apt-get)
#
# The protocol (docs/conventions.md §10): LETTER's first 10000 rows train and the other 10000 test, divided by the
# training split's global maximum; MNIST's 60000 training and 10000 test images divided by 255; the Gaussian kernel
# with γ = 1/d (scikit-learn's gamma); one-hot 0/1 targets, an unpenalized intercept, the class of the largest
# output. rff minimizes (1/N)Σ‖f(x_i) + b − y_i‖² + λ‖f‖², scikit-learn's Ridge ‖·‖² + alpha‖·‖², so alpha = Nλ.
# Centres: M training rows drawn uniformly (each program its own draw). rff's ridge runs in both bases of its
# Nyström features: the default Cholesky basis drops the landmarks whose pivot is below 1e-12 of the largest diagonal
# entry of K_MM, the eigen basis the eigenvalues below 1e-12·λ_max; scikit-learn's Nystroem clips them at 1e-12. Times exclude reading the data: fit = choosing the
# centres + building the map + features + solve (scikit-learn: Nystroem.fit + transform + Ridge.fit), predict = the
# 10000 test rows.
set -euo pipefail

quick=0 reps=1 only="compare,falkon" install=1 lambda=1e-6 maxiter=20 tol=1e-6
letter_m="500,1000,2000" mnist_m="1000,2000,4000" falkon_m="1000,2000,5000,10000"
threads=$(nproc)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/lib/bench.sh"
data_dir=${RFF_DATA:-"$(dirname "$root")/shared/data"}
work=/tmp/rff-nystrom
out=""
set_sizes="" # the sizes given explicitly, which --quick leaves alone
while [ $# -gt 0 ]; do
  case "$1" in
    --only|--letter-m|--mnist-m|--falkon-m|--lambda|--maxiter|--tol|--reps|--threads|--data-dir|--work|--out)
      need_value bench-nystrom.sh "$@" ;;
  esac
  case "$1" in
    --quick) quick=1 ;;
    --only) only=$2; shift ;;
    --letter-m) letter_m=$2; set_sizes+=" letter"; shift ;;
    --mnist-m) mnist_m=$2; set_sizes+=" mnist"; shift ;;
    --falkon-m) falkon_m=$2; set_sizes+=" falkon"; shift ;;
    --lambda) lambda=$2; shift ;;
    --maxiter) maxiter=$2; set_sizes+=" maxiter"; shift ;;
    --tol) tol=$2; shift ;;
    --reps) reps=$2; shift ;;
    --threads) threads=$2; shift ;;
    --data-dir) data_dir=$2; shift ;;
    --work) work=$2; shift ;;
    --out) out=$2; shift ;;
    --no-install) install=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-nystrom.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
check_parts bench-nystrom.sh --only "$only" compare falkon
if [ "$quick" = 1 ]; then
  [[ $set_sizes == *letter* ]] || letter_m="200,500"
  [[ $set_sizes == *mnist* ]] || mnist_m="500"
  [[ $set_sizes == *falkon* ]] || falkon_m="500,1000"
  [[ $set_sizes == *maxiter* ]] || maxiter=5
fi
# The record in docs/ is written by full runs only: a quick run's JSON stays in the work directory unless --out says.
if [ -z "$out" ]; then
  if [ "$quick" = 1 ]; then out="$work/perf-nystrom.json"; else out="$root/docs/perf-nystrom.json"; fi
fi
PY=/usr/bin/python3
mkdir -p "$work" "$(dirname "$out")"

# 1. scikit-learn from Debian.
need_sklearn bench-nystrom.sh "$PY" "$install"
for f in letter/letter-recognition.data mnist/train-images-idx3-ubyte.gz; do
  if ! [ -f "$data_dir/$f" ]; then
    echo "bench-nystrom.sh: $data_dir/$f is missing (set RFF_DATA or --data-dir)" >&2
    exit 1
  fi
done

# 2. rff's side: a small program on the library (nystrom/internal/benchcmd).
echo "building nystrom/internal/benchcmd" >&2
(cd "$root" && go build -o "$work/benchcmd" ./nystrom/internal/benchcmd)

# 3. The core type rff's linalg chooses here, with the variable unset; then the same environment for both.
core=$(env -u OPENBLAS_CORETYPE "$work/benchcmd" --version |
  "$PY" -c 'import json,sys; b=json.load(sys.stdin); print(b["core_type"] if b["backend"]=="openblas" else "")')
same_blas_env "$core" "$threads"
"$work/benchcmd" --version

cat >"$work/driver.py" <<'PYEOF'
import json, os, statistics, subprocess, sys, time

from benchlib import header, loadavg, log, read_idx

W = os.environ["BN_WORK"]; CMD = os.path.join(W, "benchcmd"); DATA = os.environ["BN_DATA"]
ONLY = set(os.environ["BN_ONLY"].split(",")); REPS = int(os.environ["BN_REPS"]); LAMBDA = float(os.environ["BN_LAMBDA"])
MAXITER = os.environ["BN_MAXITER"]; TOL = os.environ["BN_TOL"]; ME = os.path.abspath(__file__)
MS = {"letter": [int(m) for m in os.environ["BN_LETTER_M"].split(",")],
      "mnist": [int(m) for m in os.environ["BN_MNIST_M"].split(",")]}
FALKON_M = [int(m) for m in os.environ["BN_FALKON_M"].split(",")]

def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    r = json.loads(p.stdout)
    r["process_seconds"] = time.perf_counter() - t
    r["load"] = loadavg()
    return r

def rff(dataset, method, m, seed, basis="cholesky"):
    return run([CMD, "--data", DATA, "--dataset", dataset, "--method", method, "--centres", str(m), "--lambda",
                str(LAMBDA), "--seed", str(seed), "--maxiter", MAXITER, "--tol", TOL, "--basis", basis])

def sk(dataset, m, seed):
    return run([sys.executable, ME, "worker", json.dumps(dict(dataset=dataset, m=m, seed=seed))])

# ---------------------------------------------------------------- scikit-learn worker
def load(dataset):
    import numpy as np
    if dataset == "letter":
        rows = [l.strip().split(",") for l in open(os.path.join(DATA, "letter", "letter-recognition.data")) if l.strip()]
        y = np.array([ord(r[0]) - ord("A") for r in rows])
        X = np.array([[float(v) for v in r[1:]] for r in rows])
        X, Xt, y, yt = X[:10000], X[10000:], y[:10000], y[10000:]
        top = np.abs(X).max()
        return X / top, Xt / top, y, yt, 26
    mn = os.path.join(DATA, "mnist")
    X = read_idx(mn + "/train-images-idx3-ubyte.gz").astype(np.float64) / 255
    y = read_idx(mn + "/train-labels-idx1-ubyte.gz").astype(int)
    Xt = read_idx(mn + "/t10k-images-idx3-ubyte.gz").astype(np.float64) / 255
    yt = read_idx(mn + "/t10k-labels-idx1-ubyte.gz").astype(int)
    return X, Xt, y, yt, 10

def worker(spec):
    import numpy as np
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import Ridge
    X, Xt, y, yt, k = load(spec["dataset"])
    n, d = X.shape
    Y = np.eye(k)[y]
    t0 = time.perf_counter()
    ny = Nystroem(kernel="rbf", gamma=1.0 / d, n_components=spec["m"], random_state=spec["seed"]).fit(X)
    t1 = time.perf_counter()
    Z = ny.transform(X)
    t2 = time.perf_counter()
    model = Ridge(alpha=n * LAMBDA, solver="cholesky", copy_X=False).fit(Z, Y)
    del Z
    t3 = time.perf_counter()
    acc = float(np.mean(np.argmax(model.predict(ny.transform(Xt)), axis=1) == yt))
    t4 = time.perf_counter()
    return dict(dataset=spec["dataset"], centres=spec["m"], train=n, test=len(yt), accuracy=acc,
                seconds=dict(map=t1 - t0, transform=t2 - t1, solve=t3 - t2, fit=t3 - t0, predict=t4 - t3))

# ---------------------------------------------------------------- parts
def compare():
    out = []
    for dataset in ["letter", "mnist"]:
        for m in MS[dataset]:
            runs = {"ridge": [], "ridge_eigen": [], "falkon": [], "sklearn": []}
            for r in range(REPS):
                log("compare %s M=%d, round %d/%d: rff ridge (Cholesky basis), scikit-learn, rff ridge (eigen basis), rff FALKON" % (
                    dataset, m, r + 1, REPS))
                runs["ridge"].append(rff(dataset, "ridge", m, r + 1))
                runs["sklearn"].append(sk(dataset, m, r + 1))
                runs["ridge_eigen"].append(rff(dataset, "ridge", m, r + 1, "eigen"))
                runs["falkon"].append(rff(dataset, "falkon", m, r + 1))
            med = {k: dict(fit=statistics.median(x["seconds"]["fit"] for x in v),
                           predict=statistics.median(x["seconds"]["predict"] for x in v),
                           accuracy=statistics.median(x["accuracy"] for x in v)) for k, v in runs.items()}
            # scikit-learn's fit time over rff's, per round (the programs alternate, so each ratio is of adjacent runs)
            ratios = [s["seconds"]["fit"] / q["seconds"]["fit"] for s, q in zip(runs["sklearn"], runs["ridge"])]
            out.append(dict(dataset=dataset, centres=m, median=med, ratios=ratios, runs=runs))
    return out

def falkon():
    out = []
    for m in FALKON_M:
        row = dict(centres=m)
        for method in ["falkon", "ridge"]:
            log("MNIST M=%d: rff %s" % (m, method))
            r = rff("mnist", method, m, 1)
            r["accuracy_per_second"] = r["accuracy"] / r["seconds"]["fit"]
            row[method] = r
        out.append(row)
    return out

def main():
    ver = subprocess.run([CMD, "--version"], stdout=subprocess.PIPE, text=True, check=True).stdout
    meta = header(ver, lam=LAMBDA, maxiter=int(MAXITER), tol=float(TOL), reps=REPS)
    if "compare" in ONLY:
        meta["compare"] = compare()
    if "falkon" in ONLY:
        meta["falkon"] = falkon()
    meta["machine"]["load_after"] = loadavg()
    json.dump(meta, open(os.environ["BN_OUT"], "w"), indent=1)
    if "compare" in meta:
        print("| data set | M | rff Nyström ridge, Cholesky basis: fit, accuracy | eigen basis | rff FALKON (≤ %s iterations) | scikit-learn Nystroem + Ridge | scikit-learn / rff (Cholesky) |" % MAXITER)
        print("|---|---|---|---|---|---|---|")
        for c in meta["compare"]:
            m = c["median"]
            cell = lambda k: "%.2f s, %.4f" % (m[k]["fit"], m[k]["accuracy"])
            q = sorted(c["ratios"])
            print("| %s | %d | %s | %s | %s | %s | %.1f× (%.1f–%.1f) |" % (c["dataset"], c["centres"], cell("ridge"), cell("ridge_eigen"),
                  cell("falkon"), cell("sklearn"), statistics.median(q), q[0], q[-1]))
    if "falkon" in meta:
        print("\n| M | FALKON: CG iterations (residual) | fit | accuracy | accuracy per second | Nyström ridge: fit | accuracy | accuracy per second |")
        print("|---|---|---|---|---|---|---|---|")
        for row in meta["falkon"]:
            r, q = row["falkon"], row["ridge"]
            print("| %d | %d (%.2g) | %.1f s | %.4f | %.4f | %.1f s | %.4f | %.4f |" % (
                row["centres"], r["iterations"], r["residual"], r["seconds"]["fit"], r["accuracy"], r["accuracy_per_second"],
                q["seconds"]["fit"], q["accuracy"], q["accuracy_per_second"]))
    print("\nthreads %s, OPENBLAS_CORETYPE %s; load average %s before, %s after; numbers in %s" % (
        os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("OPENBLAS_CORETYPE"), meta["machine"]["load_before"],
        meta["machine"]["load_after"], os.environ["BN_OUT"]))

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
    else:
        main()
PYEOF

BN_WORK=$work BN_DATA=$data_dir BN_ONLY=$only BN_REPS=$reps BN_LAMBDA=$lambda BN_MAXITER=$maxiter BN_TOL=$tol \
  BN_LETTER_M=$letter_m BN_MNIST_M=$mnist_m BN_FALKON_M=$falkon_m BN_OUT=$out \
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/scripts/lib${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$work/driver.py"
