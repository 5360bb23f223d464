# The papers' data sets as the learning scripts split them (docs/results.md), for scripts that source this file.
# prepare_data DATA TMP: writes LETTER's split (first 16000 rows train, last 4000 test) and Powerplant's (first 8500
# rows train, the rest test, header on both) into TMP, and sets the rff fit flags of each data set:
#   letter, powerplant, usps (pixels in [−1, 1] as stored), mnist (pixels/255; its flags end with the preprocessing,
#   so that "$mnist,pca:50" adds a step) — each with its training and test files.
# script_args SCRIPT FIRST_ARG: prints SCRIPT's header comment and exits 0 when FIRST_ARG is -h or --help; exits 2
# for any other option (the learning scripts take positional arguments only).
script_args() {
  case "${2:-}" in
    -h|--help) sed -n '2,/^set -euo/p' "$1" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "$(basename "$1"): unknown option $2 (see --help)" >&2; exit 2 ;;
  esac
}

prepare_data() {
  local data=$1 tmp=$2
  head -16000 "$data/letter/letter-recognition.data" > "$tmp/letter-train.csv"
  tail -4000 "$data/letter/letter-recognition.data" > "$tmp/letter-test.csv"
  python3 - "$data/powerplant/Folds5x2_pp.csv" "$tmp" <<'PY'
import sys
lines = open(sys.argv[1], encoding='utf-8-sig').read().splitlines()
open(sys.argv[2] + '/pp-train.csv', 'w').write('\n'.join(lines[:8501]) + '\n')
open(sys.argv[2] + '/pp-test.csv', 'w').write('\n'.join([lines[0]] + lines[8501:]) + '\n')
PY
  letter="--data $tmp/letter-train.csv --test-data $tmp/letter-test.csv --target first --task classification"
  powerplant="--data $tmp/pp-train.csv --test-data $tmp/pp-test.csv"
  usps="--data $data/usps/usps_train_derived.csv.gz --test-data $data/usps/usps_test_derived.csv.gz --target first --preprocess none --task classification"
  mnist="--data $data/mnist/train-images-idx3-ubyte.gz --labels $data/mnist/train-labels-idx1-ubyte.gz --test-data $data/mnist/t10k-images-idx3-ubyte.gz --test-labels $data/mnist/t10k-labels-idx1-ubyte.gz --task classification --preprocess maxscale"
}

# fit_table JSONL: a Markdown table of the rff fit --json lines (with a "run" key) of JSONL.
fit_table() {
  python3 - "$1" <<'PY'
import json, sys
print("\n| run | N | D | rule | σ | λ | test | fit (s) | fit + test (s) |\n|---|---|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    r = json.loads(line)
    t, info, fit = r["test"], r["info"], r["fit"]
    m = "accuracy %.4f" % t["classification"]["accuracy"] if "classification" in t else "RMSE %.3f" % t["regression"]["rmse"]
    print("| %s | %d | %s | %s | %.4g | %.3g | %s | %.1f | %.1f |" % (r["run"], fit["n"], info.get("points", info.get("centres", "exact")),
          info.get("rule", info.get("map", "–")), fit.get("sigma", 0), fit["lambda"], m, r["seconds"]["fit"], r["seconds"]["fit"] + r["seconds"]["test"]))
PY
}

# surface_table JSONL: for the runs named "surface DATA σ λ" of JSONL, a Markdown table per data set of the test
# accuracy, σ down and λ across.
surface_table() {
  python3 - "$1" <<'PY'
import json, sys
cells = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    f = r["run"].split()
    if len(f) == 4 and f[0] == "surface":
        cells.setdefault(f[1], {})[(float(f[2]), float(f[3]))] = r["test"]["classification"]["accuracy"]
for data, c in cells.items():
    sig, lam = sorted({k[0] for k in c}), sorted({k[1] for k in c})
    print("\n%s, test accuracy at D = 4096 (σ down, λ across)\n\n| σ | %s |\n|---|%s" % (data, " | ".join("%g" % l for l in lam), "---|" * len(lam)))
    for s in sig:
        print("| %g | %s |" % (s, " | ".join("%.4f" % c[(s, l)] if (s, l) in c else "–" for l in lam)))
PY
}

# fit_run NAME FLAGS...: rff fit ($rff) with FLAGS, the model into $tmp, its --json line tagged "run": NAME appended
# to $out (and echoed).
fit_run() {
  local name=$1
  shift
  "$rff" fit "$@" --out "$tmp/m.rff" --json | sed "s/^{/{\"run\":\"$name\",/" | tee -a "$out"
}
