#!/usr/bin/env bash
# Install OpenBLAS for internal/linalg's run-time backend, if it is missing.
#
# internal/linalg opens libopenblas.so.0 with dlopen when the program starts, so only Debian's shared library
# (libopenblas0-pthread, OpenBLAS 0.3.21 on Debian 12, LAPACK included) is needed: no headers, no link step,
# no LAPACKE. Without it, or in a CGO_ENABLED=0 build, rff runs on pure Go (gonum).
#
#   scripts/install-openblas.sh            install if missing; without apt-get, say so and exit 0
#   scripts/install-openblas.sh --require  exit 1 when OpenBLAS is still missing afterwards
#   scripts/install-openblas.sh --dev      also install libopenblas-dev (headers, for C experiments)
set -euo pipefail

require=0
pkgs=(libopenblas0-pthread)
for arg in "$@"; do
  case "$arg" in
    --require) require=1 ;;
    --dev) pkgs+=(libopenblas-dev) ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-openblas.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

have_openblas() {
  # The same names internal/linalg tries first.
  ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so\.0' ||
    [ -e /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0 ] ||
    [ -e /usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0 ]
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-openblas.sh: no apt-get; install OpenBLAS with the system's package manager (rff falls back to pure Go)" >&2
  else
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
      if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else echo "install-openblas.sh: need root" >&2; fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
      # A fresh machine has no package lists yet.
      "${sudo[@]}" apt-get update -q >/dev/null
      "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    fi
  fi
fi

if have_openblas; then
  echo "install-openblas.sh: OpenBLAS present ($(dpkg-query -W -f='${Package} ${Version}' libopenblas0-pthread 2>/dev/null || echo 'libopenblas.so.0'))"
else
  echo "install-openblas.sh: OpenBLAS not available; rff will use pure Go" >&2
  [ "$require" -eq 0 ] || exit 1
fi
