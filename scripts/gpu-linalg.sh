#!/usr/bin/env bash
# The linalg extension (issue 18, part 4) on the GPU in one call from a bare machine: builds
# what it needs (the build folder is reused when one is there), runs the linear algebra
# tests on the CUDA backend (the simulator's half too), then bench/linalg_ext.py - eigh
# 4096, QR 8192x1024, det and solve of 10000 8x8 float64 beside CuPy. Logs under $OUT.
#   BUILD_DIR=build-gpu   REPEAT=5
set -u -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
B=${BUILD_DIR:-build-gpu}
if [ ! -f "$B/CMakeCache.txt" ]; then
  args=(-S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native)
  [ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  cmake "${args[@]}" > "$OUT/configure-linalg.log" 2>&1 || { tail -n 30 "$OUT/configure-linalg.log"; exit 1; }
fi
cmake --build "$B" -j "$(nproc)" --target resident_cli test_ops_linalg test_ops_linalg_factor test_ops_linalg_compose \
  test_bad_input_all bench_linalg_ext > "$OUT/build-linalg.log" 2>&1 ||
  { grep -E 'error' "$OUT/build-linalg.log" | head -n 30; exit 1; }
echo "== ctest (linear algebra, both backends) =="
ctest --test-dir "$B" -R 'test_(ops_linalg|bad_input_all)' --output-on-failure --timeout 300 2>&1 | tail -n 40
echo "== bench/linalg_ext.py =="
python3 bench/linalg_ext.py "$B/bench/linalg_ext" --repeat "${REPEAT:-5}"
