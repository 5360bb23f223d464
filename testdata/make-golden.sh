#!/usr/bin/env bash
# Writes the golden model files of every model kind, and their predictions, into testdata/DIR:
#
#   RFF=path/to/rff testdata/make-golden.sh v2 [PATTERN]
#
# PATTERN (a shell glob, default *) writes only the models whose names match it: files added by a later release are
# written without touching the earlier ones (e.g. 'nystrom-*' or '*nystrom*').
#
# v1/ was written by the last release that wrote model format 1, v2/ by the release that introduced format 2. The
# model files are kept as they are: a test loads each with the current code and requires the predictions they were
# written with (bit for bit on the pure-Go kernel). Only a deliberate change of the arithmetic (a product summed in
# another order) rewrites a .pred.csv, with the rff predict command of the loop below, never the .rff files.
set -euo pipefail
cd "$(dirname "$0")/${1:?usage: make-golden.sh DIR [PATTERN]}"
ONLY=${2:-*}
RFF=${RFF:-rff}
export RFF_BLAS=go # the deterministic pure-Go kernel: the tests compare predictions bit for bit on it
D=../generated
fit() {
  name=$1; shift
  # shellcheck disable=SC2053 # ONLY is a glob
  [[ $name == $ONLY ]] || return 0
  "$RFF" fit --out "$name.rff" "$@" > /dev/null
}
fit ridge-sr        --data $D/reg.csv -D 16 --lambda 1e-4
fit ridge-g         --data $D/reg.csv -D 16 --lambda 1e-4 --rule g --kernel laplacian --sigma 2
fit ridge-sorf      --data $D/reg.csv -D 16 --lambda 1e-4 --rule sorf --form cosphase --kernel matern32 --sigma 2
fit ridge-arccos    --data $D/reg.csv -D 16 --lambda 1e-4 --rule orf --kernel arccos1
fit ridge-stream    --data $D/reg.csv -D 16 --lambda 1e-4 --stream
fit ridge-pca       --data $D/reg.csv -D 16 --lambda 1e-4 --preprocess standardize,pca-whiten:2
fit exact           --data $D/reg.csv --exact --lambda 1e-3 --kernel matern52 --sigma 3
fit cls-onehot      --data $D/cls.csv --task classification -D 16 --lambda 1e-3
fit cls-simplex     --data $D/cls.csv --task classification -D 16 --lambda 1e-3 --encoding simplex --rule qmc
fit cls-hinge       --data $D/cls.csv --task classification -D 16 --lambda 1e-3 --loss hinge
fit cls-logistic    --data $D/cls.csv --task classification -D 16 --lambda 1e-3 --loss logistic --rule sr-haar
fit hermite         --data $D/herm_x.csv --target none --task hermite --values $D/herm_v.csv --gradients $D/herm_g.csv -D 16 --lambda 1e-5
fit ovk-dec         --data $D/multitask.csv --ovk decomposable --A covariance --targets y1,y2,y3,y4 -D 16 --lambda 1e-3 --sigma 2
fit ovk-curl        --data $D/curl.csv --ovk curl-free --targets y1,y2,y3,y4,y5 -D 16 --lambda 1e-4 --sigma 1.5 --preprocess none
fit ovk-div         --data $D/curl.csv --ovk div-free --targets y1,y2,y3,y4,y5 -D 16 --lambda 1e-4 --sigma 1.5 --preprocess none --rule g
fit ovk-helmholtz   --data $D/curl.csv --ovk helmholtz:0.7 --targets y1,y2,y3,y4,y5 -D 16 --lambda 1e-4 --sigma 1.5 --preprocess none
fit ovk-curl-exact  --data $D/curl.csv --ovk curl-free --targets y1,y2,y3,y4,y5 --exact --lambda 1e-4 --sigma 1.5 --preprocess none
fit nystrom-ridge   --data $D/reg.csv --map nystrom --centres 20 --lambda 1e-4
fit nystrom-falkon  --data $D/reg.csv --map nystrom --centres 20 --lambda 1e-3 --solver falkon --landmarks kmeans++ --kernel laplacian --sigma 2
fit nystrom-uncertainty --data $D/reg.csv --map nystrom --centres 15 --lambda 1e-3 --landmarks leverage --kernel matern52 --uncertainty
fit nystrom-stream  --data $D/reg.csv --map nystrom --centres 25 --lambda 1e-4 --stream
fit cls-nystrom     --data $D/cls.csv --task classification --map nystrom --centres 30 --lambda 1e-3
fit cls-nystrom-hinge --data $D/cls.csv --task classification --map nystrom --centres 30 --lambda 1e-3 --loss hinge --landmarks leverage
for m in $ONLY.rff; do
  name=${m%.rff}
  case $name in
    cls-*) data=$D/cls.csv ;;
    hermite) data=$D/herm_test.csv ;;
    ovk-dec) data=$D/multitask.csv ;;
    ovk-*) data=$D/curl.csv ;;
    *) data=$D/reg.csv ;;
  esac
  extra=()
  case $name in ridge-sr|ridge-g|ridge-pca|hermite) extra=(--gradients) ;; esac
  target=()
  case $name in hermite) target=(--target last) ;; cls-*|ridge-*|nystrom-*|exact) target=(--target last) ;; esac
  "$RFF" predict --model "$m" --data "$data" "${target[@]}" "${extra[@]}" --out "$name.pred.csv"
done
