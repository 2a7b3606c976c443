#!/usr/bin/env bash
# Issue 15 on a GPU machine, in one device call, from the repo root:
#   1. a Release build with NVTX (the default) and one with -DRESIDENT_NVTX=OFF;
#   2. ctest -L cuda of the trace tests (test_trace.cuda, check_timeline_page.cuda: skipped
#      where no Chromium is installed) on the NVTX build;
#   3. `resident pipeline --html --trace --json` on the GPU: the page, the trace and the
#      report land in $OUT, the trace is checked by tests/check_trace.py (the page can be
#      checked in a browser elsewhere: tests/check_timeline_page.py --page ... --report ...);
#   4. Nsight Systems, where installed: `nsys profile -t cuda,nvtx` of `resident pipeline`
#      and `nsys stats` of its NVTX ranges (the domain "resident": copies, kernels, waits,
#      the two runs' scopes); where nsys is missing, the summary says so;
#   5. bench/launch with NVTX compiled in and no profiler attached, against the build
#      without NVTX and with RESIDENT_TRACE set (the trace is written only at exit), in
#      alternating rounds: the launch figures should agree within noise.
# Logs and summary.txt under ${OUT:-/tmp/out}; exit status non-zero if a step failed.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
JOBS=${JOBS:-$(nproc)}
ON=${NVTX_BUILD:-build-trace-nvtx}
OFF=${NONVTX_BUILD:-build-trace-nonvtx}
PY=${PYTHON:-python3}
status=0
summary=()
note() { summary+=("$(printf '%-28s %s' "$1" "$2")"); }
fail() { status=1; note "$1" "FAILED: $2"; }
trap 'printf "%s\n" "${summary[@]}" | tee "$OUT/summary.txt"; [ $status = 0 ] && echo "RESULT: all passed" || echo "RESULT: FAILED"' EXIT

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# Only this card's architecture (ARCH, default 90) and only the targets the steps run: two
# builds fit one device call.
ARCH=${ARCH:-90}
configure() { # dir, log name, extra cmake args...
  local dir=$1 log=$2; shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_WERROR=OFF \
    -DRESIDENT_BUILD_BENCH=ON -DRESIDENT_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_CUDA_COMPILER="$nvcc" "$@" \
    >"$OUT/configure-$log.log" 2>&1
}
t0=$SECONDS
configure "$ON" nvtx &&
  cmake --build "$ON" -j "$JOBS" --target resident_cli test_trace test_nvtx test_ledger bench_launch \
    >"$OUT/build-nvtx.log" 2>&1 && note build-nvtx "ok ($((SECONDS - t0)) s)" ||
  { fail build-nvtx "see build-nvtx.log"; tail -n 30 "$OUT/build-nvtx.log"; exit 1; }
t0=$SECONDS
configure "$OFF" nonvtx -DRESIDENT_BUILD_TESTS=OFF -DRESIDENT_NVTX=OFF &&
  cmake --build "$OFF" -j "$JOBS" --target bench_launch >"$OUT/build-nonvtx.log" 2>&1 &&
  note build-nonvtx "ok ($((SECONDS - t0)) s)" || fail build-nonvtx "see build-nonvtx.log"

# 2. the trace tests on the GPU
if ctest --test-dir "$ON" -L cuda -R "test_trace|test_nvtx|check_timeline_page|test_ledger" --output-on-failure \
   >"$OUT/ctest-trace.log" 2>&1; then
  note ctest-trace "$(grep -E 'tests passed' "$OUT/ctest-trace.log")"
else
  fail ctest-trace "$(grep -E 'tests passed|Failed' "$OUT/ctest-trace.log" | head -n 3 | tr '\n' ' ')"
fi
grep -E "Skipped" "$OUT/ctest-trace.log" >/dev/null && note ctest-skipped "$(grep -E 'Skipped' "$OUT/ctest-trace.log" | awk '{print $4}' | tr '\n' ' ')"

# 3. the page and the trace of a GPU run
if "$ON/resident" pipeline --kernels 5 --size 100MB --html "$OUT/pipeline-gpu.html" \
     --trace "$OUT/pipeline-gpu.trace.json" --json="$OUT/pipeline-gpu.json" >"$OUT/pipeline-gpu.log" 2>&1 &&
   "$PY" tests/check_trace.py "$OUT/pipeline-gpu.trace.json" --device-times --pool \
     --scope "implicit: the host array at every launch" --scope "explicit: to_device once, copy_to_host once" \
     >"$OUT/pipeline-gpu-check.log" 2>&1; then
  note pipeline-trace "$(tail -n 1 "$OUT/pipeline-gpu-check.log" | cut -c1-150)"
else
  fail pipeline-trace "$(tail -n 3 "$OUT/pipeline-gpu.log" "$OUT/pipeline-gpu-check.log" 2>/dev/null | tr '\n' ' ' | cut -c1-300)"
fi

# 4. Nsight Systems
nsys=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys \
       /usr/local/cuda/nsight-systems-*/bin/nsys 2>/dev/null | head -n 1 || true)
if [ -n "$nsys" ] && [ -x "$nsys" ]; then
  if "$nsys" profile -t cuda,nvtx -o "$OUT/pipeline" --force-overwrite true \
       "$ON/resident" pipeline --kernels 5 --size 100MB >"$OUT/nsys-profile.log" 2>&1; then
    rep=$(ls "$OUT"/pipeline.nsys-rep "$OUT"/pipeline.qdrep 2>/dev/null | head -n 1)
    { "$nsys" stats --report nvtx_sum "$rep" || "$nsys" stats --report nvtxsum "$rep"; } >"$OUT/nsys-nvtx.txt" 2>&1
    n=$(grep -cE "H2D|D2H|axpb|pipeline|wait:|implicit|explicit" "$OUT/nsys-nvtx.txt")
    if [ "$n" -gt 0 ]; then note nsys "$n lines of resident NVTX ranges (nsys-nvtx.txt)"
    else fail nsys "no resident NVTX range in nsys stats (nsys-nvtx.txt)"; fi
    rm -f "$OUT"/pipeline.sqlite # big; the report stays if it fits
  else
    fail nsys "nsys profile failed (nsys-profile.log)"
  fi
else
  note nsys "NOT RUN: no Nsight Systems (nsys) on this machine"
fi

# 5. launch cost: NVTX compiled in, no profiler; without NVTX; with RESIDENT_TRACE
if [ -x "$ON/bench/launch" ] && [ -x "$OFF/bench/launch" ]; then
  for round in 1 2 3; do
    echo "== round $round: NVTX on ==" >>"$OUT/launch.log"; "$ON/bench/launch" >>"$OUT/launch.log" 2>&1
    echo "== round $round: NVTX off ==" >>"$OUT/launch.log"; "$OFF/bench/launch" >>"$OUT/launch.log" 2>&1
    echo "== round $round: NVTX on, RESIDENT_TRACE ==" >>"$OUT/launch.log"
    RESIDENT_TRACE="$OUT/launch-trace-%n.json" "$ON/bench/launch" >>"$OUT/launch.log" 2>&1
  done
  rm -f "$OUT"/launch-trace-*.json
  note launch "see launch.log: the resident lines of the three settings per round"
  grep -E "^== round|resident|raw" "$OUT/launch.log" | head -n 60
else
  fail launch "bench/launch not built"
fi
