#!/usr/bin/env bash
# Build and check resident on a GPU machine; run from the repository root.
#   configure + build (Release, CUDA on) -> ctest -L cuda, -L sim -> compute-sanitizer
#   memcheck of every test binary on the cuda backend -> bench/transfer -> summary.
# Logs go to ${OUT:-/tmp/out}. Exit status is non-zero if any step failed; the summary is
# printed whatever happens, since a half-finished run is still worth reading.
# Knobs: CUDA_ARCHS (native; 'default' = every architecture), BUILD_DIR (build-gpu), JOBS
# (all cores), MEMCHECK_JOBS (4), MEMCHECK_TIMEOUT (300 s per binary), SKIP_CTEST=1,
# SKIP_MEMCHECK=1, SKIP_BENCH=1 (a check split over two device calls: the first with
# SKIP_MEMCHECK=1, the second with SKIP_CTEST=1 on the same build).
set -u -o pipefail

OUT=${OUT:-/tmp/out}
BUILD=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
MEMCHECK_JOBS=${MEMCHECK_JOBS:-4}
MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-300}
mkdir -p "$OUT"
# A reused OUT must not show an older run's results.
rm -f "$OUT"/configure.log "$OUT"/build.log "$OUT"/ctest-*.log "$OUT"/memcheck-*.log \
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
if cmake "${cmake_args[@]}" >"$OUT/configure.log" 2>&1; then
  note configure ok
else
  fail configure "see configure.log"
  tail -n 30 "$OUT/configure.log"
  exit 1
fi
if cmake --build "$BUILD" -j "$JOBS" >"$OUT/build.log" 2>&1; then
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
# NVRTC again under the sanitizer.
export RESIDENT_CACHE_DIR=${RESIDENT_CACHE_DIR:-$BUILD/kernel-cache}
mkdir -p "$RESIDENT_CACHE_DIR"
if [ "${SKIP_CTEST:-0}" = 1 ]; then
  note ctest "skipped (SKIP_CTEST=1)"
else
  # The GPU is shared by the cuda tests; a few at a time keeps memory-hungry ones apart.
  run_ctest cuda 4
  run_ctest sim "$JOBS"
fi

# ---- compute-sanitizer memcheck on the cuda backend ------------------------------------
memcheck_one() { # binary -> writes memcheck-NAME.log and .rc
  local bin=$1 name
  name=$(basename "$bin")
  RESIDENT_BACKEND=cuda RESIDENT_SIM_DEVICE_MEMORY=1GiB RESIDENT_UNDER_MEMCHECK=1 timeout "$MEMCHECK_TIMEOUT" \
    "$sanitizer" --tool memcheck --leak-check full --report-api-errors no --error-exitcode 1 "$bin" \
    >"$OUT/memcheck-$name.log" 2>&1
  echo $? >"$RC_DIR/$name.rc"
}

if [ "${SKIP_MEMCHECK:-0}" = 1 ]; then
  note memcheck "skipped (SKIP_MEMCHECK=1)"
elif ! sanitizer=$(find_tool compute-sanitizer /usr/local/cuda/bin/compute-sanitizer \
    /usr/local/cuda/compute-sanitizer/compute-sanitizer); then
  fail memcheck "compute-sanitizer not found"
else
  # Tests provoke API errors on purpose (out of memory, unrecorded events): they check
  # the statuses themselves, so memcheck reports memory errors and leaks only. test_cli
  # only drives the command line (the command itself is checked below); test_kernel_fault
  # makes a kernel read an illegal address on purpose, which memcheck rightly reports.
  mapfile -t tests < <(find "$BUILD/tests" -maxdepth 1 -type f -name 'test_*' ! -name test_cli \
    ! -name test_kernel_fault -perm -u+x | sort)
  if [ "${#tests[@]}" -eq 0 ]; then
    fail memcheck "no test binaries in $BUILD/tests"
  else
    running=0
    for bin in "${tests[@]}"; do
      # test_oom and test_memory_direct take most of the card on purpose: they run alone,
      # after the others (beside them, other tests' allocations would fail at random).
      case "$(basename "$bin")" in test_oom | test_memory_direct) continue ;; esac
      memcheck_one "$bin" &
      running=$((running + 1))
      if [ "$running" -ge "$MEMCHECK_JOBS" ]; then wait -n; running=$((running - 1)); fi
    done
    wait
    for bin in "${tests[@]}"; do
      case "$(basename "$bin")" in test_oom | test_memory_direct) memcheck_one "$bin" ;; esac
    done
    clean=0 dirty=0 other=0
    for bin in "${tests[@]}"; do
      name=$(basename "$bin")
      rc=$(cat "$RC_DIR/$name.rc" 2>/dev/null || echo 1)
      errors=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$OUT/memcheck-$name.log" | tail -n 1 | grep -oE '[0-9]+$')
      if [ "$rc" -eq 0 ] && [ "${errors:-0}" -eq 0 ]; then
        clean=$((clean + 1)); note "  $name" "0 memcheck errors"
      elif [ -n "$errors" ] && [ "$errors" -gt 0 ]; then
        dirty=$((dirty + 1)); fail "  $name" "$errors memcheck errors (memcheck-$name.log)"
      else
        other=$((other + 1))
        case "$rc" in
          77) fail "  $name" "skipped (exit 77: no GPU answered)" ;;
          124 | 137) fail "  $name" "timed out after ${MEMCHECK_TIMEOUT}s" ;;
          *) fail "  $name" "test failed under memcheck, exit $rc (memcheck-$name.log)" ;;
        esac
      fi
    done
    note memcheck "${#tests[@]} binaries: $clean clean, $dirty with errors, $other failed/skipped/timed out"
  fi
  # The command's own GPU path: both pipeline styles under memcheck.
  if RESIDENT_BACKEND=cuda timeout "$MEMCHECK_TIMEOUT" "$sanitizer" --tool memcheck --leak-check full \
      --error-exitcode 1 "$BUILD/resident" pipeline --size 8MB >"$OUT/memcheck-resident-pipeline.log" 2>&1; then
    note "  resident pipeline" "0 memcheck errors"
  else
    fail "  resident pipeline" "memcheck failed (memcheck-resident-pipeline.log)"
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
