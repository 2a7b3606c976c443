#!/usr/bin/env bash
# Build with ThreadSanitizer and run every simulator test but test_kernel_examples, whose
# simulated GPU threads are fibers (stack switching that ThreadSanitizer cannot follow).
# The memory stress test runs its full million allocations from 4 threads here.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DRESIDENT_TSAN=ON -DRESIDENT_CUDA=OFF \
  -DRESIDENT_BUILD_BENCH=OFF >/dev/null
cmake --build build-tsan -j"$JOBS"
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build-tsan -j"$JOBS" --output-on-failure -L sim \
  -E test_kernel_examples --timeout 900
