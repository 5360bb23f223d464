# Shell functions shared by scripts/bench-*.sh, which source this file. Each comparison runs rff and scikit-learn
# with the same OpenBLAS, thread count and OpenBLAS core type (docs/performance.md).

# need_sklearn NAME PY INSTALL: makes sure the Python PY imports scikit-learn. When it does not, Debian's
# python3-sklearn is installed with apt-get if INSTALL is 1 and we run as root; otherwise the script NAME says what to
# install and exits with status 1.
need_sklearn() {
  local name=$1 py=$2 install=$3
  if "$py" -c 'import sklearn' 2>/dev/null; then
    return 0
  fi
  if [ "$install" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing python3-sklearn (apt-get)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-sklearn >&2 ||
      { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-sklearn >&2; }
  else
    echo "$name: scikit-learn is missing: sudo apt-get install python3-sklearn" >&2
    exit 1
  fi
}

# need_value NAME OPTION ARGS...: exits with status 2 when OPTION (the script NAME's) is not followed by a value.
need_value() {
  if [ $# -lt 3 ]; then
    echo "$1: $2 needs a value (see --help)" >&2
    exit 2
  fi
}

# check_parts NAME OPTION LIST ALLOWED...: exits with status 2 unless LIST is a non-empty comma-separated list of
# parts each exactly one of ALLOWED (no spaces, no empty parts), as the programs the scripts drive split it.
check_parts() {
  local name=$1 option=$2 list=$3 part ok a
  local -a parts
  shift 3
  IFS=, read -ra parts <<< "$list"
  if [ ${#parts[@]} -eq 0 ] || [[ $list == ,* || $list == *, || $list == *,,* ]]; then
    echo "$name: $option \"$list\": want a comma list of: $* (no empty parts)" >&2
    exit 2
  fi
  for part in "${parts[@]}"; do
    ok=0
    for a in "$@"; do [ "$part" = "$a" ] && ok=1; done
    if [ "$ok" = 0 ]; then
      echo "$name: $option: unknown part \"$part\" (want a comma list of: $*, without spaces)" >&2
      exit 2
    fi
  done
}

# same_blas_env CORE THREADS: the environment both programs run in: THREADS threads for OpenMP, OpenBLAS and MKL,
# rff's own thread count and backend choice unset (its defaults), and OPENBLAS_CORETYPE=CORE — the core type rff's
# linalg picks on this CPU — or unset when CORE is empty (rff is not on OpenBLAS).
same_blas_env() {
  export OMP_NUM_THREADS=$2 OPENBLAS_NUM_THREADS=$2 MKL_NUM_THREADS=$2
  unset RFF_THREADS RFF_BLAS
  if [ -n "$1" ]; then export OPENBLAS_CORETYPE=$1; else unset OPENBLAS_CORETYPE; fi
}
