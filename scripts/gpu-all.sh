#!/usr/bin/env bash
# The GPU session (device tool), in two phases that fit one call each; the build directory
# lives outside the carried tree so the second phase reuses the first one's build.
#   PHASE=check  gpu-check (build, all tests on both backends, compute-sanitizer memcheck,
#                initcheck, racecheck and synccheck,
#                bench/transfer), then `resident info`, `resident pipeline`, `resident bandwidth`
#   PHASE=bench  the benchmarks side by side with raw CUDA, Numba and CuPy
# Logs under $OUT.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
B=${BUILD_DIR:-build-gpu}
export BUILD_DIR=$B
PHASE=${PHASE:-check}

if [ "$PHASE" = check ]; then
  bash scripts/gpu-check.sh 2>&1 | tail -n 80
  # Only a few files come back from the device: pack the many per-test logs into one.
  (cd "$OUT" && shopt -s nullglob && logs=(configure.log build.log ctest-*.log ./*check-*.log) &&
    tar czf gpu-logs.tgz "${logs[@]}" && rm -f "${logs[@]}")
  {
    echo "== resident info =="; "$B/resident" info
    echo "== resident pipeline (defaults) =="; "$B/resident" pipeline
    echo "== resident pipeline --kernels 10 --host pinned --bandwidth measure =="
    "$B/resident" pipeline --kernels 10 --host pinned --bandwidth measure --show 12
    echo "== resident bandwidth =="; "$B/resident" bandwidth --repeat 5 --max 256MiB
  } > "$OUT/pipeline.log" 2>&1
  tail -n 30 "$OUT/pipeline.log"
  exit 0
fi

cmake --build "$B" -j "$(nproc)" > "$OUT/build-bench.log" 2>&1 || { tail -n 30 "$OUT/build-bench.log"; exit 1; }
run() { echo "== $* =="; "$@"; echo; }
{
  run "$B/bench/pipeline" 5
  run python3 bench/pipeline_numba.py 5
  run "$B/bench/alloc"
  run python3 bench/alloc_cupy.py
  run "$B/bench/launch"
  run python3 bench/launch_py.py
} > "$OUT/bench-1.log" 2>&1
{
  run "$B/bench/ew_raw"
  run python3 bench/ops.py "$B/bench/ops" --markdown
  run "$B/resident" bench --plot "$OUT/sweep.svg"
  run python3 bench/host_ops.py "$B/bench/host_ops" --rounds 2
} > "$OUT/bench-ops.log" 2>&1
cat "$OUT/bench-1.log" "$OUT/bench-ops.log"
exit 0
