#!/usr/bin/env bash
# Writes the golden model files of every model kind, and their predictions, into testdata/DIR:
#
#   RFF=path/to/rff testdata/make-golden.sh v2
#
# v1/ was written by the last release that wrote model format 1, v2/ by the release that introduced format 2. The
# files are kept as they are: a test loads each with the current code and requires the predictions they were written
# with (bit for bit on the pure-Go kernel).
set -euo pipefail
cd "$(dirname "$0")/${1:?usage: make-golden.sh DIR}"
RFF=${RFF:-rff}
export RFF_BLAS=go # the deterministic pure-Go kernel: the tests compare predictions bit for bit on it
D=../generated
fit() { name=$1; shift; "$RFF" fit --out "$name.rff" "$@" > /dev/null; }
fit ridge-sr        --data $D/reg.csv -D 16 --lambda 1e-4
fit ridge-g         --data $D/reg.csv -D 16 --lambda 1e-4 --rule g --kernel laplacian --sigma 2
fit ridge-sorf      --data $D/reg.csv -D 16 --lambda 1e-4 --rule sorf --form cosphase --kernel matern32 --sigma 2
fit ridge-arccos    --data $D/reg.csv -D 16 --lambda 1e-4 --rule orf --kernel arccos1
fit ridge-stream    --data $D/reg.csv -D 16 --lambda 1e-4 --stream
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
for m in *.rff; do
  name=${m%.rff}
  case $name in
    cls-*) data=$D/cls.csv ;;
    hermite) data=$D/herm_test.csv ;;
    ovk-dec) data=$D/multitask.csv ;;
    ovk-*) data=$D/curl.csv ;;
    *) data=$D/reg.csv ;;
  esac
  extra=()
  case $name in ridge-sr|ridge-g|hermite) extra=(--gradients) ;; esac
  target=()
  case $name in hermite) target=(--target last) ;; cls-*|ridge-*|exact) target=(--target last) ;; esac
  "$RFF" predict --model "$m" --data "$data" "${target[@]}" "${extra[@]}" --out "$name.pred.csv"
done
