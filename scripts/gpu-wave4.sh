#!/usr/bin/env bash
# The fourth session's GPU checks, in device calls of under ten minutes each; run from the
# repository root of a bare machine (each part builds what it needs). Logs under
# ${OUT:-/tmp/out}, a summary.txt with one line per step.
#   PART=1   build (this card's architecture, benchmarks on), ctest -L cuda of the whole
#            suite (the ledger parity of `resident pipeline` and of every example among
#            them), the row copy emulation test, the Python suite on the CUDA backend,
#            memcheck of the tests of this session's CUDA code (the row copy kernel, the
#            one-pass moments, the reductions over several axes, the scans)
#   PART=2   benchmarks beside CuPy and raw CUDA: bench/manip.py, bench/stats.py (and the
#            raw CUB scan), bench/linalg_ext.py (alternating rounds), bench/streamed,
#            bench/pageable (and bench/pageable_raw, its 1 MiB floor in raw CUDA),
#            bench/sim_checks, and the host path against NumPy
#            (bench/host_ops.py, bench/host_linalg.py) on the machine's 16 cores
#   PART=12  both, in one call (NO_HOST=1: without the host-path benchmarks)
#   TESTS=regex  PART=1 runs only the ctest tests matching it (a re-run after a fix), and
#            memcheck only where MEMCHECK_TESTS names the tests
. "$(dirname "$0")/gpu-common.sh"
# The Python extension, built once for both parts.
WERROR=OFF BUILD=$B PYTHON=python3 timeout 200 bash scripts/python-test.sh -q -k nothing_matches >"$OUT/pybuild.log" 2>&1

if [ "$PART" = 1 ] || [ "$PART" = 12 ]; then
  ctest_cuda
  (cd "$B" && timeout 60 ctest --output-on-failure -R 'copy_rows_emu') >"$OUT/ctest-emu.log" 2>&1
  note "copy_rows_emu" "$(grep -E 'tests passed' "$OUT/ctest-emu.log" | tail -n 1)"
  if [ -z "${TESTS:-}" ] || [ -n "${MEMCHECK_TESTS:-}" ]; then
    for t in ${MEMCHECK_TESTS:-test_copy_layouts test_ops_manip test_ops_stats test_ops_scan test_ops_reduce test_streamed}; do
      [ -x "$B/tests/$t" ] || continue
      (RESIDENT_BACKEND=cuda RESIDENT_UNDER_SANITIZER=memcheck timeout 200 compute-sanitizer --tool memcheck \
        --report-api-errors no "$B/tests/$t" 2>&1 | grep -E 'ERROR SUMMARY|FAIL|passed' | tail -n 2 | sed "s/^/$t: /" \
        >"$OUT/memcheck-$t.txt") &
    done
    if [ -z "${TESTS:-}" ]; then
      (cd "$B-python" && PYTHONPATH="$PWD" timeout 200 python3 -m pytest -q -rs -p no:cacheprovider ../python/tests) \
        >"$OUT/pytest-cuda.log" 2>&1
      note "pytest (cuda)" "$(grep -E '[0-9]+ (passed|failed)' "$OUT/pytest-cuda.log" | tail -n 1)"
      grep -E '^FAILED|^ERROR' "$OUT/pytest-cuda.log" | head -n 15
    fi
    wait
    cat "$OUT"/memcheck-*.txt >"$OUT/memcheck.log" 2>/dev/null; rm -f "$OUT"/memcheck-*.txt
    note memcheck "$(tr '\n' ';' <"$OUT/memcheck.log")"
  fi
fi

if [ "$PART" = 2 ] || [ "$PART" = 12 ]; then
  run() { echo "== ${*:2} =="; timeout "$1" "${@:2}"; echo; }
  {
    PYTHONPATH="$PWD/$B-python" run 90 python3 bench/manip.py --mb 512 --repeat 20
    PYTHONPATH="$PWD/$B-python" run 90 python3 bench/stats.py
    [ -x "$B/bench/cub_scan" ] && run 60 "$B/bench/cub_scan"
  } >"$OUT/bench-ops.log" 2>&1
  note "manip, stats" "$(grep -E 'worst' "$OUT/bench-ops.log" | tr '\n' ' ')"
  {
    run 150 python3 bench/linalg_ext.py "$B/bench/linalg_ext" --repeat 7 --rounds 3
  } >"$OUT/bench-linalg.log" 2>&1
  note linalg "$(grep -E 'target' "$OUT/bench-linalg.log" | tail -n 1)"
  {
    run 120 "$B/bench/streamed" --repeat 7
    echo "RESIDENT_LEDGER_TIMING=off:"; RESIDENT_LEDGER_TIMING=off run 120 "$B/bench/streamed" --repeat 7
    run 60 "$B/bench/pageable" --repeat 7 --max 1024
    run 60 "$B/bench/pageable_raw" --repeat 200 --rounds 2
    run 60 "$B/bench/sim_checks"
  } >"$OUT/bench-stream.log" 2>&1
  note "streamed, pageable" "bench-stream.log"
  # The host path (issue 17's targets, NumPy in the same script) on this machine's 16 cores;
  # NO_HOST=1 leaves it out (a call that changed nothing on the host).
  if [ -z "${NO_HOST:-}" ]; then
    {
      run 150 python3 bench/host_ops.py "$B/bench/host_ops" --repeat 5 --rounds 3
      run 120 python3 bench/host_linalg.py "$B/bench/host_linalg"
    } >"$OUT/bench-host.log" 2>&1
    note "host ops" "bench-host.log"
  fi
fi
(cd "$OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt ./*.log 2>/dev/null)
exit 0
