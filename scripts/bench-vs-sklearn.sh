#!/usr/bin/env bash
# rff against scikit-learn on this machine: same OpenBLAS, same thread count, same OpenBLAS core type, the two
# programs run in alternation, on the five benchmarks of docs/performance.md. Prints a table with the ratio per task
# and writes every number as JSON (docs/perf.json); the table in docs/performance.md comes from it.
#
#   scripts/bench-vs-sklearn.sh                 all tasks (about 15 minutes on 2 idle AMD EPYC Zen 3 cores)
#   scripts/bench-vs-sklearn.sh --quick         small sizes, to check the script (a few minutes)
#   scripts/bench-vs-sklearn.sh --only 1,3      some tasks
#   options: --reps K (alternations for tasks 1 and 3, default 3), --reps4 K (task 4, default 1),
#            --threads T (default: nproc), --data-dir DIR (default $RFF_DATA, else the folder shared/data
#            beside the module root), --work DIR
#            (default /tmp/rff-vs-sklearn; generated data is kept there and reused), --out FILE (default
#            docs/perf.json; with --quick, perf.json in the work directory), --no-install (never call apt-get)
#
# Tasks (task 2, the Gram rate against GEMM, is measured by `rff bench`):
#   1  fit 100000×64 Gaussian-input regression, Gaussian kernel γ = 1/d, D = 1024 iid points (rule g: 2048 cos/sin
#      columns) and λ = 1e-6 (rff's (1/N)Σ(…)² + λ‖θ‖², i.e. scikit-learn's alpha = Nλ), against
#      RBFSampler(n_components=2048) + Ridge(solver="cholesky"); rff on the fast backend and with RFF_BLAS=go (the
#      pure-Go backend of the same binary). Times exclude reading the data.
#   3  map N = 10⁴ rows at d = 784 (MNIST) and d = 7129 (LEUKEMIA) with D = 2(d+1) points (n = 1) for g, sorf and
#      sr-butterfly (rff repro quad-fig3); the ratio is dense g / rule. RBFSampler.transform with n_components = D
#      (the same number of projections, D columns instead of rff's 2D) on random rows of the same shape is shown for
#      reference.
#   4  MNIST: fit on the 60000 training images (divided by 255) with D = 4096 iid points (8192 columns), 10 one-hot
#      outputs, λ = 1e-6, then score the 10000 test images; scikit-learn does the same with RBFSampler(8192) +
#      Ridge(solver="cholesky", copy_X=False) + argmax.
#   5  peak RSS (/usr/bin/time -v) of rff fit --stream on 10⁶×64 rows read from a CSV file, D = 1024 points; scikit-learn is
#      not run (RBFSampler + Ridge would hold the 10⁶×2048 feature matrix, 16 GB).
#
# Environment for both programs: OMP_NUM_THREADS = OPENBLAS_NUM_THREADS = T, and OPENBLAS_CORETYPE set to the core
# type internal/linalg picks on this CPU (asked from `rff version --json` with the variable unset), so NumPy's
# OpenBLAS (Debian's libblas.so.3 alternative is the same openblas-pthread 0.3.21) runs the same kernels as rff's.
# Python is /usr/bin/python3 (Debian's, where python3-sklearn installs), whatever python3 is first on PATH.
set -euo pipefail

quick=0 reps=3 reps4=1 only="1,3,4,5" install=1
threads=$(nproc)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/lib/bench.sh"
data_dir=${RFF_DATA:-"$(dirname "$root")/shared/data"}
work=/tmp/rff-vs-sklearn
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reps|--reps4|--only|--threads|--data-dir|--work|--out) need_value bench-vs-sklearn.sh "$@" ;;
  esac
  case "$1" in
    --quick) quick=1 ;;
    --reps) reps=$2; shift ;;
    --reps4) reps4=$2; shift ;;
    --only) only=$2; shift ;;
    --threads) threads=$2; shift ;;
    --data-dir) data_dir=$2; shift ;;
    --work) work=$2; shift ;;
    --out) out=$2; shift ;;
    --no-install) install=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-vs-sklearn.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
check_parts bench-vs-sklearn.sh --only "$only" 1 3 4 5
# The record in docs/ is written by full runs only: a quick run's JSON stays in the work directory unless --out says.
if [ -z "$out" ]; then
  if [ "$quick" = 1 ]; then out="$work/perf.json"; else out="$root/docs/perf.json"; fi
fi
PY=/usr/bin/python3
mkdir -p "$work" "$(dirname "$out")"

# 1. scikit-learn from Debian.
need_sklearn bench-vs-sklearn.sh "$PY" "$install"
if ! [ -x /usr/bin/time ]; then
  if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q time >&2
  fi
fi

# 2. rff, default build.
echo "building rff" >&2
(cd "$root" && go build -o "$work/rff" ./cmd/rff)

# 3. The core type rff's linalg chooses here, with the variable unset; then the same environment for both.
core=$(env -u OPENBLAS_CORETYPE "$work/rff" version --json |
  "$PY" -c 'import json,sys; b=json.load(sys.stdin).get("blas") or {}; print(b.get("core_type","") if b.get("backend")=="openblas" else "")')
same_blas_env "$core" "$threads"
"$work/rff" version

# 4. The measurements (Python drives both programs; scikit-learn runs in a fresh process per measurement).
cat >"$work/driver.py" <<'PYEOF'
import json, os, re, statistics, subprocess, sys, time

from benchlib import header, loadavg, log, read_idx

W = os.environ["BVS_WORK"]; RFF = os.path.join(W, "rff"); DATA = os.environ["BVS_DATA"]
QUICK = os.environ["BVS_QUICK"] == "1"; REPS = int(os.environ["BVS_REPS"]); REPS4 = int(os.environ["BVS_REPS4"])
ONLY = set(os.environ["BVS_ONLY"].split(",")); ME = os.path.abspath(__file__)
LAMBDA = 1e-6

def run(cmd, env=None):
    """Runs cmd, returns (stdout, wall seconds)."""
    e = dict(os.environ)
    e.update(env or {})
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-2000:]))
    return p.stdout, wall

def sk(task, **kw):
    out, wall = run([sys.executable, ME, "worker", json.dumps(dict(task=task, **kw))])
    r = json.loads(out)
    r["process_seconds"] = wall
    return r

def rff_fit(args, env=None):
    out, wall = run([RFF, "fit", "--json"] + args, env)
    r = json.loads(out)
    r["process_seconds"] = wall
    return r

def med(v):
    return statistics.median(v) if v else None

# ---------------------------------------------------------------- data
def gen_regression(n, path_csv, path_npy, fmt):
    import numpy as np
    if os.path.exists(path_csv) and (path_npy is None or os.path.exists(path_npy)):
        return
    log("generating %d×64 regression data in %s" % (n, path_csv))
    rng = np.random.default_rng(1)
    header = ",".join(["x%d" % (j + 1) for j in range(64)] + ["y"])
    tmp = path_csv + ".tmp"
    xs, ys = [], []
    with open(tmp, "w") as f:
        f.write(header + "\n")
        for start in range(0, n, 100000):
            m = min(100000, n - start)
            X = rng.standard_normal((m, 64))
            y = np.sin(X).sum(axis=1) / 8 + 0.1 * rng.standard_normal(m)
            np.savetxt(f, np.column_stack([X, y]), fmt=fmt, delimiter=",")
            if path_npy is not None:
                xs.append(X); ys.append(y)
    os.replace(tmp, path_csv)
    if path_npy is not None:
        np.savez(path_npy, X=np.vstack(xs), y=np.concatenate(ys))

# ---------------------------------------------------------------- scikit-learn worker
def worker(spec):
    import numpy as np
    from sklearn.kernel_approximation import RBFSampler
    from sklearn.linear_model import Ridge
    t = spec["task"]
    if t == "fit":
        d = np.load(spec["npz"]); X, y = d["X"], d["y"]
        n, dim = X.shape
        t0 = time.perf_counter()
        Z = RBFSampler(gamma=1.0 / dim, n_components=spec["columns"], random_state=0).fit_transform(X)
        t1 = time.perf_counter()
        m = Ridge(alpha=n * spec["lam"], solver="cholesky").fit(Z, y)
        t2 = time.perf_counter()
        mse = float(np.mean((m.predict(Z) - y) ** 2))
        return dict(transform=t1 - t0, ridge=t2 - t1, seconds=t2 - t0, train_mse=mse)
    if t == "map":
        rng = np.random.default_rng(2)
        X = rng.random((spec["rows"], spec["d"]))
        s = RBFSampler(gamma=1.0 / spec["d"], n_components=spec["D"], random_state=0).fit(X)
        s.transform(X)  # warm-up
        secs = []
        for _ in range(spec["runs"]):
            t0 = time.perf_counter(); s.transform(X); secs.append(time.perf_counter() - t0)
        return dict(seconds=statistics.mean(secs), all=secs)
    if t == "mnist":
        mn = spec["dir"]
        X = read_idx(mn + "/train-images-idx3-ubyte.gz").astype(np.float64) / 255
        y = read_idx(mn + "/train-labels-idx1-ubyte.gz")
        Xt = read_idx(mn + "/t10k-images-idx3-ubyte.gz").astype(np.float64) / 255
        yt = read_idx(mn + "/t10k-labels-idx1-ubyte.gz")
        if spec.get("train"):
            X, y = X[:spec["train"]], y[:spec["train"]]
        n, dim = X.shape
        Y = np.eye(10)[y]
        t0 = time.perf_counter()
        s = RBFSampler(gamma=1.0 / dim, n_components=spec["columns"], random_state=0)
        Z = s.fit_transform(X)
        t1 = time.perf_counter()
        m = Ridge(alpha=n * spec["lam"], solver="cholesky", copy_X=False).fit(Z, Y)
        del Z
        t2 = time.perf_counter()
        acc = float(np.mean(np.argmax(m.predict(s.transform(Xt)), axis=1) == yt))
        t3 = time.perf_counter()
        return dict(transform=t1 - t0, ridge=t2 - t1, fit=t2 - t0, eval=t3 - t2, seconds=t3 - t0, accuracy=acc)
    raise ValueError(t)

# ---------------------------------------------------------------- tasks
def task1():
    n = 20000 if QUICK else 100000
    csv, npz = os.path.join(W, "fit%d.csv" % n), os.path.join(W, "fit%d.npz" % n)
    gen_regression(n, csv, npz, "%.17g")
    args = ["--data", csv, "--rule", "g", "-D", "1024", "--lambda", str(LAMBDA), "--preprocess", "none",
            "--out", os.path.join(W, "fit.rff")]
    fast, pure, skl = [], [], []
    for r in range(REPS):
        log("task 1, round %d/%d: rff (fast backend), scikit-learn, rff (RFF_BLAS=go)" % (r + 1, REPS))
        fast.append(rff_fit(args)); skl.append(sk("fit", npz=npz, columns=2048, lam=LAMBDA))
        pure.append(rff_fit(args, {"RFF_BLAS": "go"}))
    f = med([x["seconds"]["fit"] for x in fast]); p = med([x["seconds"]["fit"] for x in pure])
    s = med([x["seconds"] for x in skl])
    return dict(task=1, name="fit %d×64, D = 1024 points (2048 columns), λ = %g" % (n, LAMBDA), n=n,
                rff_seconds=f, rff_purego_seconds=p, sklearn_seconds=s, ratio=s / f, ratio_purego=s / p,
                target="rff ≥ 2× faster with the fast backend; within 2× (ratio ≥ 0.5) in pure Go",
                met=s / f >= 2, met_purego=s / p >= 0.5,
                rff_phases=[x["fit"]["phases"] for x in fast], rff_purego_phases=[x["fit"]["phases"] for x in pure],
                rff_runs=[x["seconds"]["fit"] for x in fast], rff_purego_runs=[x["seconds"]["fit"] for x in pure],
                sklearn_runs=skl)

def task3():
    rows = 1000 if QUICK else 10000
    sets = [("mnist", 784)] if QUICK else [("mnist", 784), ("leukemia", 7129)]
    out = []
    for name, d in sets:
        if not os.path.isdir(os.path.join(DATA, name)):
            out.append(dict(task=3, name="map d=%d" % d, skipped="no %s under %s" % (name, DATA)))
            continue
        D = 2 * (d + 1)
        rffr, skl = [], []
        for r in range(REPS):
            log("task 3, %s, round %d/%d: rff repro quad-fig3 (g, sorf, sr-butterfly), RBFSampler.transform" % (name, r + 1, REPS))
            o, _ = run([RFF, "repro", "quad-fig3", "--data-dir", DATA, "--datasets", name, "--rules",
                        "g,sorf,sr-butterfly", "--rows", str(rows), "--runs", "1", "--n", "1",
                        "--out", os.path.join(W, "fig3"), "--seed", str(r + 1), "--json"])
            rffr.append({t["rule"]: t["mean_seconds"] for t in json.loads(o)["timings"]})
            skl.append(sk("map", rows=rows, d=d, D=D, runs=1)["seconds"])
        m = {rule: med([x[rule] for x in rffr]) for rule in rffr[0]}
        need = 2 if d < 5000 else 10
        out.append(dict(task=3, name="map %d rows, d = %d (%s), D = %d points" % (rows, d, name, D), d=d, D=D,
                        rows=rows, rff_seconds=m, sklearn_rbfsampler_seconds=med(skl),
                        ratio_sorf=m["g"] / m["sorf"], ratio_sr_butterfly=m["g"] / m["sr-butterfly"],
                        target="sorf and sr-butterfly ≥ %d× faster than dense g" % need,
                        met=m["g"] / m["sorf"] >= need and m["g"] / m["sr-butterfly"] >= need,
                        rff_runs=rffr, sklearn_runs=skl))
    return out

def task4():
    mn = os.path.join(DATA, "mnist")
    if not os.path.isdir(mn):
        return dict(task=4, name="MNIST fit + eval", skipped="no mnist under " + DATA)
    train = 6000 if QUICK else 0
    args = ["--data", mn + "/train-images-idx3-ubyte.gz", "--labels", mn + "/train-labels-idx1-ubyte.gz",
            "--task", "classification", "--rule", "g", "-D", "4096", "--lambda", str(LAMBDA),
            "--preprocess", "maxscale", "--test-data", mn + "/t10k-images-idx3-ubyte.gz",
            "--test-labels", mn + "/t10k-labels-idx1-ubyte.gz", "--out", os.path.join(W, "mnist.rff")]
    if train:
        args += ["--train", str(train)]
    rffr, skl = [], []
    for r in range(REPS4):
        log("task 4, round %d/%d: rff fit MNIST D=4096, then scikit-learn" % (r + 1, REPS4))
        rffr.append(rff_fit(args)); skl.append(sk("mnist", dir=mn, columns=8192, lam=LAMBDA, train=train))
    f = med([x["seconds"]["fit"] + x["seconds"].get("test", 0) for x in rffr]); s = med([x["seconds"] for x in skl])
    return dict(task=4, name="MNIST %s train rows, D = 4096 points (8192 columns): fit + eval" % (train or 60000),
                rff_seconds=f, sklearn_seconds=s, ratio=s / f, rff_accuracy=rffr[-1]["test"]["classification"]["accuracy"],
                sklearn_accuracy=skl[-1]["accuracy"], target="rff fit + eval ≤ 45 s", met=f <= 45,
                rff_runs=[dict(seconds=x["seconds"], phases=x["fit"]["phases"]) for x in rffr], sklearn_runs=skl)

def task5():
    n = 100000 if QUICK else 1000000
    csv = os.path.join(W, "stream%d.csv" % n)
    gen_regression(n, csv, None, "%.6g")
    if not os.path.exists("/usr/bin/time"):
        return dict(task=5, name="peak RSS", skipped="/usr/bin/time is missing")
    log("task 5: /usr/bin/time -v rff fit --stream on %s" % csv)
    p = subprocess.run(["/usr/bin/time", "-v", RFF, "fit", "--json", "--stream", "--data", csv, "--rule", "g", "-D", "1024",
                        "--lambda", str(LAMBDA), "--preprocess", "none", "--out", os.path.join(W, "stream.rff")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError("rff fit (task 5): " + p.stderr[-2000:])
    kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (\S+)", p.stderr).group(1)
    rep = json.loads(p.stdout)
    return dict(task=5, name="peak RSS, fit %d×64 from CSV (%.0f MB), D = 1024 points" % (n, os.path.getsize(csv) / 1e6),
                rff_peak_rss_bytes=kb * 1024, rff_seconds=rep["seconds"], rff_wall=wall, sklearn="not run",
                target="peak RSS < 1 GiB", met=kb * 1024 < 2 ** 30)

# ---------------------------------------------------------------- main
def main():
    ver, _ = run([RFF, "version", "--json"])
    meta = header(ver, quick=QUICK, reps=REPS, reps_task4=REPS4)
    tasks = []
    for k, fn in [("1", task1), ("3", task3), ("4", task4), ("5", task5)]:
        if k in ONLY:
            r = fn()
            tasks += r if isinstance(r, list) else [r]
    meta["machine"]["load_after"] = loadavg()
    meta["tasks"] = tasks
    json.dump(meta, open(os.environ["BVS_OUT"], "w"), indent=1)
    # The table.
    rows = [("task", "rff", "scikit-learn", "sklearn/rff", "target", "met")]
    yn = lambda b: "yes" if b else "NO"
    for t in tasks:
        if "skipped" in t:
            rows.append(("%d %s" % (t["task"], t["name"]), "-", "-", "-", "skipped: " + t["skipped"], "-"))
        elif t["task"] == 1:
            rows.append(("1 " + t["name"], "%.2f s" % t["rff_seconds"], "%.2f s" % t["sklearn_seconds"],
                         "%.2f×" % t["ratio"], "≥ 2×", yn(t["met"])))
            rows.append(("1 same, rff pure Go (RFF_BLAS=go)", "%.2f s" % t["rff_purego_seconds"],
                         "%.2f s" % t["sklearn_seconds"], "%.2f×" % t["ratio_purego"], "≥ 0.5×", yn(t["met_purego"])))
        elif t["task"] == 3:
            m = t["rff_seconds"]
            rows.append(("3 " + t["name"] + ": g", "%.3f s" % m["g"], "%.3f s (RBFSampler)" % t["sklearn_rbfsampler_seconds"],
                         "%.2f×" % (t["sklearn_rbfsampler_seconds"] / m["g"]), "(reference)", "-"))
            need = "≥ 2×" if t["d"] < 5000 else "≥ 10×"
            for rule, key in [("sorf", "ratio_sorf"), ("sr-butterfly", "ratio_sr_butterfly")]:
                rows.append(("3   %s (g/%s = %.1f×)" % (rule, rule, t[key]), "%.3f s" % m[rule],
                             "%.3f s (RBFSampler)" % t["sklearn_rbfsampler_seconds"],
                             "%.2f×" % (t["sklearn_rbfsampler_seconds"] / m[rule]), "g/%s %s" % (rule, need),
                             yn(t[key] >= (2 if t["d"] < 5000 else 10))))
        elif t["task"] == 4:
            rows.append(("4 " + t["name"], "%.1f s (acc %.4f)" % (t["rff_seconds"], t["rff_accuracy"]),
                         "%.1f s (acc %.4f)" % (t["sklearn_seconds"], t["sklearn_accuracy"]), "%.2f×" % t["ratio"],
                         "≤ 45 s", yn(t["met"])))
        elif t["task"] == 5:
            rows.append(("5 " + t["name"], "%.0f MiB (%s)" % (t["rff_peak_rss_bytes"] / 2 ** 20, t["rff_wall"]),
                         "not run", "-", "< 1024 MiB", yn(t["met"])))
    w = [max(len(r[i]) for r in rows) for i in range(6)]
    for r in rows:
        print("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    print("\nthreads %s, OPENBLAS_CORETYPE %s, backend %s; load average %s before, %s after; numbers in %s" % (
        os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("OPENBLAS_CORETYPE"), meta["rff"].get("backend"),
        meta["machine"]["load_before"], meta["machine"]["load_after"], os.environ["BVS_OUT"]))

if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        print(json.dumps(worker(json.loads(sys.argv[2]))))
    else:
        main()
PYEOF

BVS_WORK=$work BVS_DATA=$data_dir BVS_QUICK=$quick BVS_REPS=$reps BVS_REPS4=$reps4 BVS_ONLY=$only BVS_OUT=$out \
  PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/scripts/lib${PYTHONPATH:+:$PYTHONPATH}" "$PY" "$work/driver.py"
