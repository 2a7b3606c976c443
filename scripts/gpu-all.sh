#!/usr/bin/env bash
# The GPU session (device tool), in two phases that fit one call each; the build directory
# lives outside the carried tree so the second phase reuses the first one's build.
#   PHASE=check  gpu-check (build, all tests on both backends, compute-sanitizer memcheck,
#                initcheck, racecheck and synccheck,
#                bench/transfer), then `resident info`, `resident pipeline`, `resident bandwidth`
#   PHASE=bench  the benchmarks side by side with raw CUDA, Numba and CuPy
#   PHASE=python the Python package on the build of PHASE=check: its pytest suite on the CUDA
#                backend (interop with CuPy, PyTorch and Numba included) and on the simulator,
#                then bench/python_overhead.py (y = x * 5 beside CuPy) and bench/index_cupy.py
#                (unique of 50M int64, take, masks and put beside CuPy)
#   PHASE=manip  issue 18's manipulation part alone (builds what it needs): its GPU tests, its
#                pytest file and bench/manip.py (concat/flip/roll/tile GB/s beside copy and CuPy)
#   PHASE=stats  issue 18's statistics and scans alone, from a bare machine: builds, runs the
#                C tests of var/std, scans, clip, diff and sorts on any axis on the GPU, the
#                Python tests of them, then bench/stats.py (beside CuPy)
#   PHASE=stream issue 16 alone, in one call from a bare machine: builds what it needs, runs
#                the streamed/staging/graph tests on the GPU, `resident pipeline --mode all`,
#                bench/streamed, bench/pageable (default threads, then 2 and 4) and bench/launch
#   PHASE=sweep  issue 16's tuning, from a bare machine: bench/streamed --sweep (chunks x
#                streams, raw and resident), bench/streamed --quick, bench/pageable with the
#                host's memcpy bound at 8 and 16 staging threads, bench/alloc
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

if [ "$PHASE" = python ]; then
  # Standalone (no PHASE=check before it on this machine): build the library first.
  if [ ! -f "$B/CMakeCache.txt" ]; then
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native \
      -DCMAKE_CUDA_COMPILER="$nvcc" -DRESIDENT_BUILD_TESTS=OFF -DRESIDENT_BUILD_BENCH=OFF > "$OUT/configure-py.log" 2>&1 &&
      cmake --build "$B" -j "$(nproc)" > "$OUT/build-py.log" 2>&1 ||
      { tail -n 30 "$OUT/configure-py.log" "$OUT/build-py.log"; exit 1; }
  fi
  {
    echo "== pytest, cuda backend =="
    WERROR=OFF BUILD=$B PYTHON=python3 bash scripts/python-test.sh -rs
    echo "== pytest, simulator =="
    RESIDENT_BACKEND=sim WERROR=OFF BUILD=$B PYTHON=python3 bash scripts/python-test.sh
    echo "== bench/python_overhead.py =="
    PYTHONPATH="$PWD/$B-python" python3 bench/python_overhead.py
    echo "== bench/index_cupy.py (indexing, sets) =="
    PYTHONPATH="$PWD/$B-python" python3 bench/index_cupy.py
  } > "$OUT/python.log" 2>&1
  tail -n 60 "$OUT/python.log"
  exit 0
fi

if [ "$PHASE" = sweep ]; then
  args=(-S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native
    -DRESIDENT_BUILD_TESTS=OFF -DRESIDENT_BUILD_BENCH=ON)
  [ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
  cmake "${args[@]}" > "$OUT/configure-sweep.log" 2>&1 || { tail -n 30 "$OUT/configure-sweep.log"; exit 1; }
  cmake --build "$B" -j "$(nproc)" --target bench_streamed bench_pageable bench_alloc > "$OUT/build-sweep.log" 2>&1 ||
    { grep -E 'error' "$OUT/build-sweep.log" | head -n 30; exit 1; }
  run() { echo "== $* =="; "$@"; echo; }
  {
    [ "${SWEEP:-1}" = 1 ] && run "$B/bench/streamed" --sweep --repeat 5
    run "$B/bench/streamed" --repeat 7 ${STREAMED_ARGS:-}
    echo "RESIDENT_LEDGER_TIMING=off:"
    RESIDENT_LEDGER_TIMING=off run "$B/bench/streamed" --repeat 7 --quick
    run "$B/bench/pageable" --repeat 7 --max 1024
    run "$B/bench/alloc"
  } > "$OUT/sweep.log" 2>&1
  cat "$OUT/sweep.log"
  exit 0
fi

if [ "$PHASE" = manip ]; then
  # issue 18, manipulation part, in one call from a bare machine (or after PHASE=check): the
  # manip/elementwise/type tests on the GPU, the Python tests of manip, bench/manip.py.
  if [ ! -f "$B/CMakeCache.txt" ]; then
    args=(-S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native -DRESIDENT_BUILD_BENCH=OFF)
    [ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    cmake "${args[@]}" > "$OUT/configure-manip.log" 2>&1 || { tail -n 30 "$OUT/configure-manip.log"; exit 1; }
  fi
  cmake --build "$B" -j "$(nproc)" > "$OUT/build-manip.log" 2>&1 || { grep -E 'error' "$OUT/build-manip.log" | head -n 30; exit 1; }
  {
    echo "== ctest (cuda): manip, elementwise, types, bad input =="
    ctest --test-dir "$B" -L cuda -R 'test_(ops_manip|ops_elementwise|ops_types|bad_input_all|copy_layouts)' --output-on-failure --timeout 400
    echo "== pytest test_manip.py and the ufunc tests, cuda backend =="
    WERROR=OFF BUILD=$B PYTHON=python3 bash scripts/python-test.sh -k 'manip or ufunc' -rs
    echo "== bench/manip.py =="
    PYTHONPATH="$PWD/$B-python" python3 bench/manip.py --mb 512 --repeat 20
  } > "$OUT/manip.log" 2>&1
  tail -n 60 "$OUT/manip.log"
  exit 0
fi

if [ "$PHASE" = stats ]; then
  if [ ! -f "$B/CMakeCache.txt" ]; then
    args=(-S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native
      -DRESIDENT_BUILD_BENCH=OFF)
    [ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    cmake "${args[@]}" > "$OUT/configure-stats.log" 2>&1 || { tail -n 30 "$OUT/configure-stats.log"; exit 1; }
  fi
  cmake --build "$B" -j "$(nproc)" > "$OUT/build-stats.log" 2>&1 || { grep -E 'error' "$OUT/build-stats.log" | head -n 30; exit 1; }
  {
    echo "== C tests (cuda and sim) =="
    ctest --test-dir "$B" -R 'test_ops_(scan|stats|sort|reduce|moments)|test_bad_input_all' --output-on-failure --timeout 300
    echo "== pytest (cuda backend): stats and sorts =="
    WERROR=OFF BUILD=$B PYTHON=python3 bash scripts/python-test.sh -k "stats or sort" -rs
    echo "== bench/stats.py =="
    PYTHONPATH="$PWD/$B-python" python3 bench/stats.py
    echo "== bench/cub_scan.cu (raw CUB scan of 100M float32: the ceiling) =="
    "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" -O3 -std=c++17 -arch=native -o "$B/cub_scan" bench/cub_scan.cu &&
      "$B/cub_scan"
  } > "$OUT/stats.log" 2>&1
  cat "$OUT/stats.log"
  exit 0
fi

if [ "$PHASE" = stream ]; then
  if [ ! -f "$B/CMakeCache.txt" ]; then
    args=(-S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES=native)
    [ -x /usr/local/cuda/bin/nvcc ] && args+=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    cmake "${args[@]}" > "$OUT/configure-stream.log" 2>&1 || { tail -n 30 "$OUT/configure-stream.log"; exit 1; }
  fi
  cmake --build "$B" -j "$(nproc)" --target resident_cli test_streamed test_staging test_graph bench_streamed \
    bench_pageable bench_launch > "$OUT/build-stream.log" 2>&1 || { grep -E 'error' "$OUT/build-stream.log" | head -n 30; exit 1; }
  run() { echo "== $* =="; "$@"; echo; }
  {
    run ctest --test-dir "$B" -L cuda -R 'test_(streamed|staging|graph)' --output-on-failure --timeout 240
    run "$B/resident" pipeline --mode all --kernels 10 --host pinned --show 8
    run "$B/resident" pipeline --mode streamed --kernels 10 --show 8
    run "$B/bench/streamed" --repeat 7
    run "$B/bench/pageable" --repeat 9
    RESIDENT_STAGING_THREADS=2 run "$B/bench/pageable" --repeat 7 --max 256
    RESIDENT_STAGING_THREADS=4 run "$B/bench/pageable" --repeat 7 --max 256
    run "$B/bench/launch"
  } > "$OUT/stream.log" 2>&1
  cat "$OUT/stream.log"
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
  run python3 bench/linalg_ext.py "$B/bench/linalg_ext" # linalg extension: eigh, QR, batched det / solve beside CuPy
  # the simulator's memory and race checks, on and off (issue 17, item 3)
  run "$B/bench/sim_checks"
} > "$OUT/bench-ops.log" 2>&1
{ # collectives (issue 19): peer copy and all-reduce beside cudaMemcpyPeer and raw NCCL
  run "$B/bench/collective" --size 1024 --repeat 7
} > "$OUT/bench-collective.log" 2>&1
cat "$OUT/bench-1.log" "$OUT/bench-ops.log" "$OUT/bench-collective.log"
exit 0
