#!/usr/bin/env bash
# The whole GPU session in one call (device tool): gpu-check (build, all tests on both
# backends, compute-sanitizer memcheck, bench/transfer), then the pipeline on the GPU and
# the benchmarks side by side with Numba / CuPy. Logs under $OUT.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
BUILD_DIR=${BUILD_DIR:-build-gpu} bash scripts/gpu-check.sh 2>&1 | tail -n 80
# Only a few files come back from the device: pack the many per-test logs into one.
(cd "$OUT" && tar czf gpu-logs.tgz configure.log build.log ctest-*.log memcheck-*.log 2>/dev/null &&
  rm -f configure.log build.log ctest-*.log memcheck-*.log)
B=${BUILD_DIR:-build-gpu}
{
  echo "== resident info =="; "$B/resident" info
  echo "== resident pipeline (defaults) =="; "$B/resident" pipeline
  echo "== resident pipeline --kernels 10 --host pinned --bandwidth measure =="
  "$B/resident" pipeline --kernels 10 --host pinned --bandwidth measure --show 12
  echo "== resident bandwidth =="; "$B/resident" bandwidth --repeat 5 --max 256MiB
} > "$OUT/pipeline.log" 2>&1
tail -n 40 "$OUT/pipeline.log"
{
  echo "== bench/pipeline (resident) =="; "$B/bench/pipeline" 5
  echo "== bench/pipeline_numba.py =="; python3 bench/pipeline_numba.py 5
} > "$OUT/bench-pipeline.log" 2>&1
cat "$OUT/bench-pipeline.log"
for extra in "$B"/bench/alloc "$B"/bench/launch "$B"/bench/ops; do
  [ -x "$extra" ] && { echo "== $extra =="; "$extra"; } >> "$OUT/bench-more.log" 2>&1
done
for py in bench/alloc_cupy.py bench/launch_py.py bench/ops.py; do
  [ -f "$py" ] && { echo "== $py =="; python3 "$py"; } >> "$OUT/bench-more.log" 2>&1
done
[ -f "$OUT/bench-more.log" ] && cat "$OUT/bench-more.log"
exit 0
