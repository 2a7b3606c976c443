#!/usr/bin/env bash
# Build and check resident on a GPU machine; run from the repository root.
#   configure + build (Release, CUDA on) -> ctest -L cuda, -L sim -> compute-sanitizer on
#   the cuda backend: memcheck and initcheck of every test binary, racecheck and synccheck
#   of the kernel-heavy ones -> bench/transfer -> summary.
# Logs go to ${OUT:-/tmp/out}. Exit status is non-zero if any step failed; the summary is
# printed whatever happens, since a half-finished run is still worth reading.
# Knobs: CUDA_ARCHS (native; 'default' = every architecture), BUILD_DIR (build-gpu), JOBS (all cores), SANITIZER_JOBS (4 binaries at a time, more can run the card out of memory;
# MEMCHECK_JOBS is the older name), SANITIZER_TIMEOUT (300 s per binary and tool;
# MEMCHECK_TIMEOUT is the older name), SANITIZER_TESTS (the binaries memcheck and initcheck
# run; default every test), SANITIZER_KERNEL_TESTS (those racecheck and synccheck run),
# SKIP_CTEST=1, SKIP_MEMCHECK=1, SKIP_INITCHECK=1, SKIP_RACECHECK=1, SKIP_SYNCCHECK=1,
# SKIP_BUILD=1 (use BUILD_DIR as it is), SANITIZER_EXCLUDE (binaries the tools leave out),
# SKIP_BENCH=1 (a check split over several device calls: the first with every
# SKIP_*CHECK=1, the next ones with SKIP_CTEST=1 and some tools, on the same build).
set -u -o pipefail

OUT=${OUT:-/tmp/out}
BUILD=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
SANITIZER_JOBS=${SANITIZER_JOBS:-${MEMCHECK_JOBS:-4}}
SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-${MEMCHECK_TIMEOUT:-300}}
mkdir -p "$OUT"
# A reused OUT must not show an older run's results.
rm -f "$OUT"/configure.log "$OUT"/build.log "$OUT"/ctest-*.log "$OUT"/memcheck-*.log \
  "$OUT"/initcheck-*.log "$OUT"/racecheck-*.log "$OUT"/synccheck-*.log \
  "$OUT"/bench-transfer.log "$OUT"/summary.txt
RC_DIR=$(mktemp -d)

status=0
declare -a summary=()
note() { summary+=("$(printf '%-22s %s' "$1" "$2")"); }
fail() { status=1; note "$1" "FAILED: $2"; }

find_tool() { # name, fallbacks...
  local name=$1; shift
  command -v "$name" 2>/dev/null && return 0
  for p in "$@"; do [ -x "$p" ] && { echo "$p"; return 0; }; done
  return 1
}

# shellcheck disable=SC2317  # invoked through the EXIT trap
print_summary() {
  {
    echo
    echo "================ gpu-check summary ================"
    printf '%s\n' "${summary[@]}"
    if [ -s "$OUT/bench-transfer.log" ]; then
      echo
      echo "---- bench/transfer ----"
      cat "$OUT/bench-transfer.log"
    fi
    echo
    echo "logs: $OUT"
    [ "$status" -eq 0 ] && echo "RESULT: all passed" || echo "RESULT: FAILED"
  } | tee "$OUT/summary.txt"
}
trap 'print_summary; rm -rf "$RC_DIR"' EXIT

# ---- configure and build -------------------------------------------------------------
cmake_args=(-S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON)
# The library's kernels for the GPU here only (a fast build); CUDA_ARCHS=default builds the
# full list an install gets, CUDA_ARCHS=90 (any CMake list) what it names.
case "${CUDA_ARCHS:-native}" in
  default) ;;
  *) cmake_args+=(-DRESIDENT_CUDA_ARCHITECTURES="${CUDA_ARCHS:-native}") ;;
esac
# The device machine's compiler may differ from CI's; NO_WERROR=1 lets a run there report a
# warning only that compiler raises instead of stopping (CI keeps every warning an error).
[ "${NO_WERROR:-0}" = 1 ] && cmake_args+=(-DRESIDENT_WERROR=OFF)
if nvcc=$(find_tool nvcc /usr/local/cuda/bin/nvcc); then
  cmake_args+=(-DCMAKE_CUDA_COMPILER="$nvcc")
fi
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  note build "skipped (SKIP_BUILD=1, $BUILD as it is)"
elif cmake "${cmake_args[@]}" >"$OUT/configure.log" 2>&1; then
  note configure ok
else
  fail configure "see configure.log"
  tail -n 30 "$OUT/configure.log"
  exit 1
fi
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  :
elif cmake --build "$BUILD" -j "$JOBS" >"$OUT/build.log" 2>&1; then
  note build ok
else
  fail build "see build.log"
  grep -E 'error|Error' "$OUT/build.log" | head -n 30
  exit 1
fi

# ---- ctest per label -----------------------------------------------------------------
run_ctest() { # label, parallel jobs
  local label=$1 log="$OUT/ctest-$1.log"
  (cd "$BUILD" && ctest --output-on-failure -L "$label" -j "$2") >"$log" 2>&1
  local rc=$?
  local line passed failed total skipped
  # ctest prints "100% tests passed out of N" or "80% tests passed, 2 tests failed out of N".
  line=$(grep -E 'tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$log" | tail -n 1)
  skipped=$(grep -c '(Skipped)' "$log")
  if [ -n "$line" ]; then
    failed=0
    grep -q failed <<<"$line" && failed=$(sed -E 's/.* ([0-9]+) tests? failed.*/\1/' <<<"$line")
    total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
    passed=$((total - failed - skipped))
    local text="$passed passed, $failed failed, $skipped skipped (of $total)"
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
      fail "ctest -L $label" "$text"
    elif [ "$label" = cuda ] && [ "$total" -gt 0 ] && [ "$skipped" -eq "$total" ]; then
      fail "ctest -L $label" "$text: every test skipped, no GPU answered"
    else
      note "ctest -L $label" "$text"
    fi
  elif grep -q 'No tests were found' "$log"; then
    fail "ctest -L $label" "no tests with this label"
  else
    fail "ctest -L $label" "ctest exited $rc, see ctest-$label.log"
  fi
}
# The ops tests generate about two thousand kernels; one disk cache for the whole check
# lets the memcheck pass below load what the ctest pass compiled instead of running
# NVRTC again under the sanitizer. The library takes only an absolute directory that is
# this user's alone (include/resident/kernel.h, CACHE).
export RESIDENT_CACHE_DIR=${RESIDENT_CACHE_DIR:-$(realpath -m "$BUILD")/kernel-cache}
mkdir -p -m 0700 "$RESIDENT_CACHE_DIR"
if [ "${SKIP_CTEST:-0}" = 1 ]; then
  note ctest "skipped (SKIP_CTEST=1)"
else
  # The GPU is shared by the cuda tests; a few at a time keeps memory-hungry ones apart.
  run_ctest cuda 4
  run_ctest sim "$JOBS"
fi

# ---- compute-sanitizer on the cuda backend ---------------------------------------------
# Four tools, each over its test binaries, each with its own logs (TOOL-NAME.log):
#   memcheck   every test: out-of-bounds and misaligned accesses, leaks
#   initcheck  every test: reads of device memory never written (a copy included)
#   racecheck  the kernel-heavy tests: shared-memory hazards between threads of a block
#   synccheck  the same: barriers not reached by every thread, or in divergent code
# racecheck and synccheck instrument every shared-memory access and barrier, which makes
# them the slow ones; the tests that launch kernels are where they find anything.
SANITIZER_KERNEL_TESTS=${SANITIZER_KERNEL_TESTS:-"test_kernel_launch test_kernel_examples test_kernel_args
  test_ops_reduce test_ops_sort test_ops_elementwise test_ops_fusion test_ops_random test_ops_linalg
  test_issue11_copies"}

sanitize_one() { # tool, binary -> writes TOOL-NAME.log and its exit status
  local tool=$1 bin=$2 name extra=()
  name=$(basename "$bin")
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  # Tests provoke API errors on purpose (out of memory, unrecorded events): they check the
  # statuses themselves, so the tools report what they are for, not API errors.
  RESIDENT_BACKEND=cuda RESIDENT_SIM_DEVICE_MEMORY=1GiB RESIDENT_UNDER_SANITIZER=$tool timeout "$SANITIZER_TIMEOUT" \
    "$sanitizer" --tool "$tool" "${extra[@]}" --report-api-errors no --error-exitcode 1 "$bin" \
    >"$OUT/$tool-$name.log" 2>&1
  echo $? >"$RC_DIR/$tool-$name.rc"
}

# Run one tool over the given binaries, a few at a time (test_oom and test_memory_direct
# take most of the card on purpose: they run alone, after the others), and summarize.
sanitize_all() { # tool, binaries...
  local tool=$1 bin name rc errors running=0 clean=0 dirty=0 other=0
  shift
  local kept=()
  for bin in "$@"; do
    case " ${SANITIZER_EXCLUDE:-} " in *" $(basename "$bin") "*) ;; *) kept+=("$bin") ;; esac
  done
  set -- "${kept[@]}"
  for bin in "$@"; do
    case "$(basename "$bin")" in test_oom | test_memory_direct) continue ;; esac
    sanitize_one "$tool" "$bin" &
    running=$((running + 1))
    if [ "$running" -ge "$SANITIZER_JOBS" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  for bin in "$@"; do
    case "$(basename "$bin")" in test_oom | test_memory_direct) sanitize_one "$tool" "$bin" ;; esac
  done
  for bin in "$@"; do
    name=$(basename "$bin")
    rc=$(cat "$RC_DIR/$tool-$name.rc" 2>/dev/null || echo 1)
    # "ERROR SUMMARY: N errors"; racecheck says "RACECHECK SUMMARY: N hazards displayed"
    errors=$(grep -oE '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$OUT/$tool-$name.log" | tail -n 1 | grep -oE '[0-9]+$')
    if [ "$rc" -eq 0 ] && [ "${errors:-0}" -eq 0 ]; then
      clean=$((clean + 1)); note "  $name" "0 $tool errors"
    elif [ -n "$errors" ] && [ "$errors" -gt 0 ]; then
      dirty=$((dirty + 1)); fail "  $name" "$errors $tool errors ($tool-$name.log)"
    else
      other=$((other + 1))
      case "$rc" in
        77) fail "  $name" "skipped under $tool (exit 77: no GPU answered)" ;;
        124 | 137) fail "  $name" "timed out under $tool after ${SANITIZER_TIMEOUT}s" ;;
        *) fail "  $name" "test failed under $tool, exit $rc ($tool-$name.log)" ;;
      esac
    fi
  done
  note "$tool" "$# binaries: $clean clean, $dirty with errors, $other failed/skipped/timed out"
}

skip_var() { # tool -> the name of its SKIP_ knob
  echo "SKIP_$(tr '[:lower:]' '[:upper:]' <<<"$1")"
}

wanted=()
for tool in memcheck initcheck racecheck synccheck; do
  knob=$(skip_var "$tool")
  if [ "${!knob:-0}" = 1 ]; then note "$tool" "skipped ($knob=1)"; else wanted+=("$tool"); fi
done
if [ "${#wanted[@]}" -eq 0 ]; then
  :
elif ! sanitizer=$(find_tool compute-sanitizer /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer); then
  fail compute-sanitizer "not found"
else
  # test_cli only drives the command line (the command itself is checked below);
  # test_kernel_args_cxx is a simulator-only compile check that makes no CUDA call;
  # test_kernel_fault makes a kernel read an illegal address on purpose, which the tools
  # rightly report.
  if [ -n "${SANITIZER_TESTS:-}" ]; then
    tests=()
    for t in $SANITIZER_TESTS; do tests+=("$BUILD/tests/$t"); done
  else
    mapfile -t tests < <(find "$BUILD/tests" -maxdepth 1 -type f -name 'test_*' ! -name test_cli \
      ! -name test_kernel_fault ! -name test_kernel_args_cxx -perm -u+x | sort)
  fi
  kernel_tests=()
  for t in $SANITIZER_KERNEL_TESTS; do
    if [ -x "$BUILD/tests/$t" ]; then kernel_tests+=("$BUILD/tests/$t"); else fail "  $t" "not built"; fi
  done
  if [ "${#tests[@]}" -eq 0 ]; then
    fail compute-sanitizer "no test binaries in $BUILD/tests"
  else
    for tool in "${wanted[@]}"; do
      case "$tool" in
        memcheck | initcheck) sanitize_all "$tool" "${tests[@]}" ;;
        *) sanitize_all "$tool" "${kernel_tests[@]}" ;;
      esac
    done
  fi
  # The command's own GPU path: both pipeline styles under memcheck. Its kernel is a user
  # kernel, and creating one probes the compiled parameter list one past its end
  # (cudaFuncGetParamInfo answers cudaErrorInvalidValue there, by design): API errors are
  # not reported, memory errors and leaks are.
  if [ "${SKIP_MEMCHECK:-0}" != 1 ]; then
    if RESIDENT_BACKEND=cuda timeout "$SANITIZER_TIMEOUT" "$sanitizer" --tool memcheck --leak-check full \
        --report-api-errors no --error-exitcode 1 "$BUILD/resident" pipeline --size 8MB \
        >"$OUT/memcheck-resident-pipeline.log" 2>&1; then
      note "  resident pipeline" "0 memcheck errors"
    else
      fail "  resident pipeline" "memcheck failed (memcheck-resident-pipeline.log)"
    fi
  fi
fi

# ---- bench ---------------------------------------------------------------------------
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  note bench/transfer "skipped (SKIP_BENCH=1)"
elif [ -x "$BUILD/bench/transfer" ]; then
  if "$BUILD/bench/transfer" >"$OUT/bench-transfer.log" 2>&1; then
    note bench/transfer ok
  else
    fail bench/transfer "exit $? (bench-transfer.log)"
  fi
else
  fail bench/transfer "not built ($BUILD/bench/transfer missing)"
fi

exit "$status"
