#!/usr/bin/env bash
# The whole suite under every compute-sanitizer tool in one device call (issue 11, item 20);
# run from the repository root on a GPU machine. gpu-check.sh runs its tools one after
# another, which takes longer than one call; here its four tools run side by side on one
# build:
#   1. build (Release, this card's architecture) and ctest -L cuda: the run of the suite,
#      which also fills the kernel cache the sanitized runs then load instead of compiling;
#   2. memcheck and initcheck of every test, racecheck and synccheck of the kernel tests,
#      four gpu-check.sh processes at once (SKIP_BUILD=1), each with its own log folder;
#   3. test_oom and test_memory_direct, which take most of the card on purpose, and
#      test_ops_normalize under memcheck and initcheck alone once the others are done.
# Optional: PTX_TESTS="regex" also builds this card's architecture as PTX only and runs the
# tests it names with CUDA_FORCE_PTX_JIT=1 beside step 2 (re-checking issue 12's pass).
# Logs under ${OUT:-/tmp/out}/{memcheck,initcheck,racecheck,synccheck,alone}; summary.txt.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
B=${BUILD_DIR:-build-gpu}
export BUILD_DIR=$B
mkdir -p "$OUT"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*"; }

SKIP_CTEST=1 SKIP_MEMCHECK=1 SKIP_INITCHECK=1 SKIP_RACECHECK=1 SKIP_SYNCCHECK=1 SKIP_BENCH=1 \
  OUT="$OUT/build" bash scripts/gpu-check.sh >/dev/null 2>&1 || { cat "$OUT/build/summary.txt"; exit 1; }
stamp "built"
export RESIDENT_CACHE_DIR
RESIDENT_CACHE_DIR=$(realpath -m "$B")/kernel-cache
mkdir -p -m 0700 "$RESIDENT_CACHE_DIR"

ptx_pid=
if [ -n "${PTX_TESTS:-}" ]; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
  (
    cmake -S . -B build-ptx -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_WERROR=OFF \
      -DRESIDENT_CUDA_ARCHITECTURES="${cc}-virtual" >"$OUT/ptx-configure.log" 2>&1 &&
      cmake --build build-ptx -j 8 >"$OUT/ptx-build.log" 2>&1 || exit 1
    d=$(mktemp -d) && mkdir -m 0700 "$d/k" "$d/drv"
    cd build-ptx && CUDA_FORCE_PTX_JIT=1 RESIDENT_CACHE_DIR="$d/k" CUDA_CACHE_PATH="$d/drv" \
      ctest --output-on-failure -L cuda -R "$PTX_TESTS" -j 4 >"$OUT/ctest-ptx-jit.log" 2>&1
  ) &
  ptx_pid=$!
fi

(cd "$B" && ctest --output-on-failure -L cuda -j 8) >"$OUT/ctest-cuda.log" 2>&1
stamp "ctest -L cuda: $(grep -E 'tests passed' "$OUT/ctest-cuda.log" | tail -n 1)"

# test_ops_normalize ran the card out of memory beside nine other sanitized tests once
big="test_oom test_memory_direct test_ops_normalize"
pids=()
for spec in memcheck:3 initcheck:3 racecheck:2 synccheck:2; do
  tool=${spec%%:*} jobs=${spec##*:}
  skips=(SKIP_MEMCHECK=1 SKIP_INITCHECK=1 SKIP_RACECHECK=1 SKIP_SYNCCHECK=1)
  knob="SKIP_$(tr '[:lower:]' '[:upper:]' <<<"$tool")=0"
  env "${skips[@]}" "$knob" SKIP_BUILD=1 SKIP_CTEST=1 SKIP_BENCH=1 SANITIZER_JOBS="$jobs" \
    SANITIZER_TIMEOUT="${SANITIZER_TIMEOUT:-200}" SANITIZER_EXCLUDE="$big" OUT="$OUT/$tool" \
    bash scripts/gpu-check.sh >/dev/null 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
stamp "four tools done"
SKIP_RACECHECK=1 SKIP_SYNCCHECK=1 SKIP_BUILD=1 SKIP_CTEST=1 SKIP_BENCH=1 \
  SANITIZER_TESTS="$big" OUT="$OUT/alone" bash scripts/gpu-check.sh >/dev/null 2>&1
stamp "the two card-filling tests done"
[ -n "$ptx_pid" ] && { wait "$ptx_pid"; stamp "PTX-JIT: $(grep -E 'tests passed' "$OUT/ctest-ptx-jit.log" | tail -n 1)"; }

{
  echo "ctest -L cuda: $(grep -E 'tests passed' "$OUT/ctest-cuda.log" | tail -n 1)"
  grep -E '\*\*\*' "$OUT/ctest-cuda.log" | head -n 20
  [ -n "$ptx_pid" ] && echo "ctest PTX-JIT ($PTX_TESTS): $(grep -E 'tests passed' "$OUT/ctest-ptx-jit.log" | tail -n 1)"
  for d in memcheck initcheck racecheck synccheck alone; do
    echo "== $d"
    # the per-tool line and every binary that was not clean
    grep -E '^(memcheck|initcheck|racecheck|synccheck) |FAILED' "$OUT/$d/summary.txt"
  done
} | tee "$OUT/summary.txt"
# Only a few files come back from the device: pack the logs.
(cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt . && find . -mindepth 1 -maxdepth 1 ! -name logs.tgz ! -name summary.txt -exec rm -rf {} +)
