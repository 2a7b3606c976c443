#!/usr/bin/env bash
# Build resident and run every test on every available backend (the simulator always,
# CUDA when a GPU answers), then again under AddressSanitizer + UndefinedBehaviorSanitizer
# on the simulator, then (where clang is installed) a short run of each libFuzzer harness
# of fuzz/ (scripts/fuzz.sh). RESIDENT_SKIP_SANITIZE=1 skips the sanitizer pass,
# RESIDENT_SKIP_FUZZ=1 the fuzzers. The Python package's tests (pytest, python/tests) run after
# the C tests, on the same backends (scripts/python-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
# CI compiles the library's CUDA kernels for one architecture (CUB's sort for every
# architecture would take most of CI's time); the default install builds them all.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DRESIDENT_CUDA_ARCHITECTURES="${RESIDENT_CUDA_ARCHITECTURES:-90}" >/dev/null
cmake --build build -j"$JOBS"
ctest --test-dir build -j"$JOBS" --output-on-failure
./build/resident pipeline --size 8MB --kernels 3 >/dev/null
echo "== Python package: build the extension against this build, then pytest =="
bash scripts/python-test.sh
if [ "${RESIDENT_SKIP_SANITIZE:-0}" != "1" ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer (simulator) =="
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRESIDENT_SANITIZE=ON -DRESIDENT_CUDA=OFF \
    -DRESIDENT_BUILD_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$JOBS"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan -j"$JOBS" --output-on-failure -L sim
fi
if [ "${RESIDENT_SKIP_FUZZ:-0}" != "1" ] && command -v clang >/dev/null 2>&1; then
  echo "== libFuzzer harnesses: a short run of each (scripts/fuzz.sh) =="
  RS_FUZZ_SEED=1 bash scripts/fuzz.sh 5
fi
