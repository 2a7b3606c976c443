#!/usr/bin/env bash
# Install what building and testing resident needs, where it is missing: a C/C++
# compiler, CMake (>= 3.24), make, OpenBLAS with LAPACKE (Debian packages; optional to the
# build), and Python 3 with NumPy (test references) in the project's virtual environment
# .venv.
# The CUDA toolkit is optional: with nvcc on PATH (or in /usr/local/cuda/bin) the CUDA
# backend is built too.
#
# scripts/deps.sh --browser (or RESIDENT_DEPS_BROWSER=1) also installs Chromium, which the
# test of `resident pipeline --html` drives headless (tests/check_timeline_page.py; skipped
# without it).
set -euo pipefail

need_apt=()
if [ "${1:-}" = "--browser" ] || [ "${RESIDENT_DEPS_BROWSER:-0}" = 1 ]; then
  command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need_apt+=(chromium)
fi
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v c++ >/dev/null 2>&1 || need_apt+=(g++)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-venv)
if command -v cmake >/dev/null 2>&1; then
  ver=$(cmake --version | head -1 | awk '{print $3}')
  if [ "$(printf '%s\n3.24\n' "$ver" | sort -V | head -1)" != "3.24" ]; then need_apt+=(cmake); fi
else
  need_apt+=(cmake)
fi
# The host path's linear algebra runs on OpenBLAS (CBLAS, LAPACKE) where it is installed
# (Debian's packages; CMake finds them, RESIDENT_HOST_BLAS); without them, plain C loops.
# Its sort of long rows runs on Highway's vqsort (libhwy-dev, RESIDENT_HOST_SORT); without
# it, a radix sort in C.
if command -v dpkg >/dev/null 2>&1; then
  for pkg in libopenblas-dev liblapacke-dev libhwy-dev; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
  done
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "deps: installing ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# NumPy (the tests' reference) goes into the project's own virtual environment, .venv,
# never into the system Python; CMake finds it there (tests/CMakeLists.txt).
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! "$root/.venv/bin/python" -c 'import numpy' >/dev/null 2>&1; then
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "deps: installing python3-venv"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
  fi
  echo "deps: making $root/.venv with numpy"
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  "$root/.venv/bin/python" -m pip install -q numpy
fi
# The Python package (python/): pytest runs its tests, scikit-build-core builds it for pip.
if ! "$root/.venv/bin/python" -c 'import pytest, scikit_build_core' >/dev/null 2>&1; then
  echo "deps: installing pytest and scikit-build-core into $root/.venv"
  "$root/.venv/bin/python" -m pip install -q pytest scikit-build-core
fi
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: nvcc found in /usr/local/cuda/bin"
fi
# libFuzzer (scripts/fuzz.sh, where clang is installed) is in clang's runtime libraries,
# a package of their own.
if command -v clang >/dev/null 2>&1; then
  probe="$(mktemp -d)"
  printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
  if ! clang -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >/dev/null 2>&1; then
    major="$(clang -dumpversion | cut -d. -f1)"
    echo "deps: installing libclang-rt-$major-dev (libFuzzer)"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "libclang-rt-$major-dev" >/dev/null ||
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libclang-rt-dev >/dev/null
  fi
  rm -rf "$probe"
fi
