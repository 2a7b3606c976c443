#!/usr/bin/env bash
# The second wave's checks on a GPU machine, in two device calls of under ten minutes;
# run from the repository root. Each part writes its logs under ${OUT:-/tmp/out} and a
# summary.txt, and builds what it needs (incrementally when the machine still has it).
#   PART=1  build (this card's architecture, benchmarks on), ctest -L cuda of the whole
#           suite; beside it a PTX-only build whose cache tests run with CUDA_FORCE_PTX_JIT=1
#           and a build without NVTX for the launch comparison; memcheck and initcheck of
#           the tests this wave added or changed; bench/streamed, bench/pageable, bench/launch
#   PART=2  the Python package's pytest on the CUDA backend and its overhead benchmark beside
#           CuPy; the trace of a GPU pipeline run checked, nsys with the NVTX ranges, and
#           bench/launch with NVTX compiled in and out
#   PART=3  the Python suite and the initcheck cases fixed after PART=2
set -u -o pipefail
OUT=${OUT:-/tmp/out}
PART=${PART:-1}
B=${BUILD_DIR:-build-gpu}
mkdir -p "$OUT"
t0=$SECONDS
summary=()
note() { summary+=("[$((SECONDS - t0)) s] $(printf '%-26s %s' "$1" "$2")"); }
trap 'printf "%s\n" "${summary[@]}" | tee "$OUT/summary.txt"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
configure() { # dir, extra args...
  local dir=$1; shift
  [ -f "$dir/CMakeCache.txt" ] && return 0
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_WERROR=OFF \
    -DRESIDENT_CUDA_ARCHITECTURES="$cc" -DCMAKE_CUDA_COMPILER="$nvcc" "$@" >"$OUT/configure-$(basename "$dir").log" 2>&1
}
ctest_line() { grep -E 'tests passed' "$1" | tail -n 1; }

configure "$B" -DRESIDENT_BUILD_BENCH=ON && cmake --build "$B" -j "$(nproc)" >"$OUT/build.log" 2>&1 &&
  note build ok || { note build "FAILED (build.log)"; grep -E 'error' "$OUT/build.log" | head -n 20; exit 1; }
export RESIDENT_CACHE_DIR
RESIDENT_CACHE_DIR=$(realpath -m "$B")/kernel-cache
mkdir -p "$RESIDENT_CACHE_DIR" && chmod 700 "$RESIDENT_CACHE_DIR"

if [ "$PART" = 1 ]; then
  (
    configure build-ptx -DRESIDENT_CUDA_ARCHITECTURES="${cc}-virtual" &&
      cmake --build build-ptx -j 4 --target test_kernel_compile test_kernel_cache_limit >"$OUT/build-ptx.log" 2>&1
    configure build-nonvtx -DRESIDENT_NVTX=OFF -DRESIDENT_BUILD_TESTS=OFF -DRESIDENT_BUILD_BENCH=ON &&
      cmake --build build-nonvtx -j 4 --target bench_launch >"$OUT/build-nonvtx.log" 2>&1
  ) &
  side=$!
  (cd "$B" && timeout 300 ctest --output-on-failure -L cuda -j 8) >"$OUT/ctest-cuda.log" 2>&1
  note "ctest -L cuda" "$(ctest_line "$OUT/ctest-cuda.log"); $(grep -c '(Skipped)' "$OUT/ctest-cuda.log") skipped"
  grep -E '\*\*\*Failed|\*\*\*Timeout' "$OUT/ctest-cuda.log" | head -n 20
  grep -E '\(Skipped\)' "$OUT/ctest-cuda.log" | head -n 10
  wait "$side"
  # The tests this wave added or changed, under memcheck and initcheck (the rest of the suite
  # ran clean under all four tools in the session's earlier call, scripts/gpu-sanitize-all.sh).
  changed="test_foreign_release test_kernel_args test_memory_stream test_stream test_multi_device test_ipc
    test_dlpack test_dlpack_stream test_managed_prefetch test_streamed test_graph test_staging test_trace
    test_kernel_cache_limit test_kernel_warp test_kernel_cg test_kernel_portable test_kernel_atomics
    test_kernel_idioms test_kernel_limits test_kernel_symbols test_host_threads"
  present=""
  for t in $changed; do [ -x "$B/tests/$t" ] && present="$present $t"; done
  for tool in memcheck initcheck; do
    knob="SKIP_$(tr '[:lower:]' '[:upper:]' <<<"$tool")=0"
    env SKIP_MEMCHECK=1 SKIP_INITCHECK=1 SKIP_RACECHECK=1 SKIP_SYNCCHECK=1 "$knob" SKIP_BUILD=1 SKIP_CTEST=1 \
      SKIP_BENCH=1 BUILD_DIR="$B" SANITIZER_TESTS="$present" SANITIZER_JOBS=5 SANITIZER_TIMEOUT=150 \
      OUT="$OUT/$tool" timeout 240 bash scripts/gpu-check.sh >/dev/null 2>&1 &
  done
  if [ -x build-ptx/tests/test_kernel_cache_limit ]; then
    d=$(mktemp -d) && mkdir -m 700 "$d/k" "$d/drv"
    (cd build-ptx && CUDA_FORCE_PTX_JIT=1 RESIDENT_CACHE_DIR="$d/k" CUDA_CACHE_PATH="$d/drv" \
      ctest --output-on-failure -L cuda -R "test_kernel_compile|test_kernel_cache_limit") >"$OUT/ctest-ptx.log" 2>&1
    note "PTX-JIT cache tests" "$(ctest_line "$OUT/ctest-ptx.log")"
  else
    note "PTX-JIT cache tests" "NOT RUN: build-ptx failed (build-ptx.log)"
  fi
  wait
  for tool in memcheck initcheck; do
    note "$tool (changed tests)" "$(grep -E "^$tool " "$OUT/$tool/summary.txt" | sed -E 's/ +/ /g')"
    grep FAILED "$OUT/$tool/summary.txt" | head -n 10
  done
  {
    echo "== resident pipeline --mode all --kernels 10 --host pinned"
    timeout 60 "$B/resident" pipeline --mode all --kernels 10 --host pinned --show 6
    echo "== bench/streamed"; timeout 150 "$B/bench/streamed" --repeat 7
    echo "== bench/pageable"; timeout 90 "$B/bench/pageable" --repeat 7
    echo "== bench/launch (NVTX in)"; timeout 60 "$B/bench/launch"
    echo "== bench/launch (NVTX out)"; [ -x build-nonvtx/bench/launch ] && timeout 60 build-nonvtx/bench/launch
  } >"$OUT/bench.log" 2>&1
  note benches "bench.log ($(wc -l <"$OUT/bench.log") lines)"
  (cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt --exclude=bench.log . 2>/dev/null &&
    find . -mindepth 1 -maxdepth 1 ! -name logs.tgz ! -name summary.txt ! -name bench.log -exec rm -rf {} +)
  exit 0
fi

# ---- PART=3: after PART=2's findings: the Python suite and the fixed initcheck cases -----
if [ "$PART" = 3 ]; then
  (
    (cd "$B" && timeout 120 ctest --output-on-failure -L cuda -R "test_graph|test_memory_stream|test_streamed|test_staging") \
      >"$OUT/ctest-fixed.log" 2>&1
    for t in test_memory_stream test_graph test_streamed; do
      RESIDENT_BACKEND=cuda RESIDENT_UNDER_SANITIZER=initcheck timeout 150 compute-sanitizer --tool initcheck \
        --report-api-errors no "$B/tests/$t" 2>&1 | grep -E 'ERROR SUMMARY|FAIL' | sed "s/^/$t: /"
    done >"$OUT/initcheck-fixed.log"
  ) &
  side=$!
  {
    echo "== pytest, cuda backend =="
    WERROR=OFF BUILD=$B PYTHON=python3 timeout 240 bash scripts/python-test.sh -rs -q
    echo "== bench/python_overhead.py =="
    PYTHONPATH="$PWD/$B-python" timeout 60 python3 bench/python_overhead.py
  } >"$OUT/python.log" 2>&1
  note pytest "$(grep -E '[0-9]+ passed' "$OUT/python.log" | tail -n 1)"
  wait "$side"
  note "ctest fixed tests" "$(ctest_line "$OUT/ctest-fixed.log")"
  note initcheck "$(tr '\n' ';' <"$OUT/initcheck-fixed.log")"
  rm -f "$OUT"/configure-*.log "$OUT"/build.log
  exit 0
fi

# ---- PART=2 ----------------------------------------------------------------------------
# the kernel tests again (the simulator-fidelity branch's last commit), the staging threshold
# as changed after PART=1's bench/pageable, and initcheck's findings by test function
(
  (cd "$B" && timeout 200 ctest --output-on-failure -L cuda -R "test_kernel_|test_staging") >"$OUT/ctest-kernel.log" 2>&1
  for t in test_memory_stream test_ipc test_graph test_streamed; do
    RESIDENT_BACKEND=cuda RESIDENT_UNDER_SANITIZER=initcheck timeout 150 compute-sanitizer --tool initcheck \
      --report-api-errors no "$B/tests/$t" >"$OUT/initcheck-$t.log" 2>&1
  done
) &
side=$!
{
  echo "== pytest, cuda backend =="
  WERROR=OFF BUILD=$B PYTHON=python3 timeout 300 bash scripts/python-test.sh -rs -x
  echo "== bench/python_overhead.py =="
  PYTHONPATH="$PWD/$B-python" timeout 120 python3 bench/python_overhead.py
} >"$OUT/python.log" 2>&1
note pytest "$(grep -E '[0-9]+ passed' "$OUT/python.log" | tail -n 1)"
if timeout 90 "$B/resident" pipeline --kernels 5 --size 100MB --html "$OUT/pipeline-gpu.html" \
     --trace "$OUT/pipeline-gpu.trace.json" --json="$OUT/pipeline-gpu.json" >"$OUT/pipeline-gpu.log" 2>&1 &&
   python3 tests/check_trace.py "$OUT/pipeline-gpu.trace.json" --device-times --pool \
     --scope "implicit: the host array at every launch" --scope "explicit: to_device once, copy_to_host once" \
     >"$OUT/pipeline-gpu-check.log" 2>&1; then
  note "GPU trace" "$(tail -n 1 "$OUT/pipeline-gpu-check.log" | cut -c1-150)"
else
  note "GPU trace" "FAILED: $(tail -n 3 "$OUT/pipeline-gpu.log" "$OUT/pipeline-gpu-check.log" 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
fi
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -n 1 || true)
if [ -n "$nsys" ] && [ -x "$nsys" ]; then
  timeout 120 "$nsys" profile -t cuda,nvtx -o "$OUT/pipeline" --force-overwrite true \
    "$B/resident" pipeline --kernels 5 --size 100MB >"$OUT/nsys-profile.log" 2>&1
  rep=$(ls "$OUT"/pipeline.nsys-rep 2>/dev/null | head -n 1)
  [ -n "$rep" ] && timeout 60 "$nsys" stats --report nvtx_sum "$rep" >"$OUT/nsys-nvtx.txt" 2>&1
  note nsys "$(grep -cE 'H2D|D2H|axpb|wait:|implicit|explicit' "$OUT/nsys-nvtx.txt" 2>/dev/null) resident NVTX lines (nsys-nvtx.txt)"
  rm -f "$OUT"/pipeline.sqlite "$OUT"/pipeline.nsys-rep
else
  note nsys "NOT RUN: no Nsight Systems (nsys) on this machine"
fi
wait "$side"
note "ctest kernel+staging" "$(ctest_line "$OUT/ctest-kernel.log")"
{
  grep -E '\*\*\*Failed|FAIL' "$OUT/ctest-kernel.log" | head -n 20
  echo "== bench/pageable (threshold 8 MiB)"; timeout 60 "$B/bench/pageable" --repeat 5
  for t in test_memory_stream test_ipc test_graph test_streamed; do
    echo "== initcheck $t: $(grep -E 'ERROR SUMMARY' "$OUT/initcheck-$t.log")"
    grep -E '^test_.*(ok|FAIL)|FAIL ' "$OUT/initcheck-$t.log" | head -n 12
    grep -oE 'Host Frame: test_[a-z_0-9]+|at [a-z_0-9]+\+0x' "$OUT/initcheck-$t.log" | sort | uniq -c | sort -rn | head -n 8
    grep -m 3 -A 4 'Uninitialized' "$OUT/initcheck-$t.log"
  done
} >"$OUT/part2.log" 2>&1
rm -f "$OUT"/initcheck-*.log "$OUT"/ctest-kernel.log "$OUT"/configure-*.log "$OUT"/build.log "$OUT"/nsys-profile.log \
  "$OUT"/pipeline-gpu.log "$OUT"/pipeline-gpu-check.log
exit 0
