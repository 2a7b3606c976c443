#!/usr/bin/env bash
# The third session's GPU checks, in device calls of under ten minutes each; run from the
# repository root of a bare machine (each part builds what it needs). Logs under
# ${OUT:-/tmp/out}, a summary.txt with one line per step.
#   PART=1  build (this card's architecture, benchmarks on), ctest -L cuda of the whole suite
#           (the ledger parity check between the simulator and the GPU among them), the
#           Python package's pytest on the CUDA backend, memcheck of the new ops' tests
#   PART=2  the benchmarks of this session beside CuPy and raw CUDA: bench/streamed,
#           bench/pageable, bench/manip.py, bench/index_cupy.py, bench/stats.py,
#           bench/linalg_ext.py, bench/collective, bench/sim_checks
#   PART=3  after PART=2's fixes (repeat's sizing, 4 streams for pageable runs): the streamed
#           and manipulation tests on the GPU, bench/streamed and bench/manip.py again
#   TESTS=regex  PART=1 runs only the ctest tests matching it (a re-run after a fix)
. "$(dirname "$0")/gpu-common.sh"

if [ "$PART" = 1 ]; then
  ctest_cuda
  grep -E '^ok |^FAIL' "$OUT/ctest-cuda.log" | head -n 12
  if [ -z "${TESTS:-}" ]; then
    # The new ops' CUDA code under memcheck, beside the Python suite.
    for t in test_ops_indexing test_ops_sets test_ops_scan test_ops_stats test_ops_manip test_ops_linalg_factor; do
      [ -x "$B/tests/$t" ] || continue
      (RESIDENT_BACKEND=cuda RESIDENT_UNDER_SANITIZER=memcheck timeout 170 compute-sanitizer --tool memcheck \
        --report-api-errors no "$B/tests/$t" 2>&1 | grep -E 'ERROR SUMMARY|FAIL|passed' | tail -n 2 | sed "s/^/$t: /" \
        >"$OUT/memcheck-$t.txt") &
    done
    WERROR=OFF BUILD=$B PYTHON=python3 timeout 170 bash scripts/python-test.sh -q -rs >"$OUT/pytest-cuda.log" 2>&1
    note "pytest (cuda)" "$(grep -E '[0-9]+ (passed|failed)' "$OUT/pytest-cuda.log" | tail -n 1)"
    grep -E '^FAILED|^ERROR' "$OUT/pytest-cuda.log" | head -n 15
    wait
    cat "$OUT"/memcheck-*.txt >"$OUT/memcheck.log" 2>/dev/null; rm -f "$OUT"/memcheck-*.txt
    note memcheck "$(tr '\n' ';' <"$OUT/memcheck.log")"
  fi
  (cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt ./*.log 2>/dev/null && rm -f ./*.log)
  exit 0
fi

if [ "$PART" = 3 ]; then
  (cd "$B" && timeout 200 ctest --output-on-failure -L cuda -R 'test_(streamed|ops_manip)') >"$OUT/ctest-fixed.log" 2>&1
  note "ctest fixed" "$(grep -E 'tests passed' "$OUT/ctest-fixed.log" | tail -n 1)"
  [ -d "$B-python" ] || WERROR=OFF BUILD=$B PYTHON=python3 timeout 200 bash scripts/python-test.sh -q -k nothing_matches \
    >"$OUT/pybuild.log" 2>&1
  cmake --install "$B" --prefix "$B/install" >/dev/null && cmake --build "$B-python" -j "$(nproc)" >/dev/null 2>&1
  {
    echo "== bench/streamed =="; timeout 120 "$B/bench/streamed" --repeat 7
    echo "== bench/manip.py =="; PYTHONPATH="$PWD/$B-python" timeout 90 python3 bench/manip.py --mb 512 --repeat 20
  } >"$OUT/bench-fixed.log" 2>&1
  note benches "bench-fixed.log"
  exit 0
fi

# ---- PART=2: benchmarks ----------------------------------------------------------------
if [ ! -d "$B-python" ]; then
  WERROR=OFF BUILD=$B PYTHON=python3 timeout 200 bash scripts/python-test.sh -q -k nothing_matches >"$OUT/pybuild.log" 2>&1
fi
run() { echo "== $* =="; timeout "$1" "${@:2}"; echo; }
{
  run 120 python3 tests/check_ledger_parity.py "$B/resident" --out "$OUT/parity"
  echo "== test_ops_linalg_factor under memcheck (a case failed there in PART=1) =="
  RESIDENT_BACKEND=cuda RESIDENT_UNDER_SANITIZER=memcheck timeout 200 compute-sanitizer --tool memcheck \
    --report-api-errors no "$B/tests/test_ops_linalg_factor" 2>&1 | grep -E -B2 -A10 'FAIL|ERROR SUMMARY' | head -n 60
} >"$OUT/checks.log" 2>&1
rm -rf "$OUT/parity"
note checks "checks.log"
{
  run 120 "$B/bench/streamed" --repeat 7
  RESIDENT_LEDGER_TIMING=off run 40 "$B/bench/streamed" --repeat 7 --quick
  run 60 "$B/bench/pageable" --repeat 7 --max 1024
} >"$OUT/bench-stream.log" 2>&1
note "streamed, pageable" "bench-stream.log"
{
  PYTHONPATH="$PWD/$B-python" run 90 python3 bench/manip.py --mb 512 --repeat 20
  PYTHONPATH="$PWD/$B-python" run 90 python3 bench/index_cupy.py
  PYTHONPATH="$PWD/$B-python" run 90 python3 bench/stats.py
  run 120 python3 bench/linalg_ext.py "$B/bench/linalg_ext" --repeat 3
  run 60 "$B/bench/collective" --size 1024 --repeat 7
  run 60 "$B/bench/sim_checks"
} >"$OUT/bench-ops.log" 2>&1
note "ops benches" "bench-ops.log"
exit 0
