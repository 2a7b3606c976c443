# The shared start of the session GPU scripts (gpu-wave3.sh, gpu-wave4.sh), sourced by
# them: OUT, PART, the build folder B configured for this card and built, the summary
# printed at exit, and a private kernel cache. Needs nothing set but what they document.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
PART=${PART:-1}
B=${BUILD_DIR:-build-gpu}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
t0=$SECONDS
summary=()
note() { summary+=("[$((SECONDS - t0)) s] $(printf '%-24s %s' "$1" "$2")"); }
trap 'printf "%s\n" "${summary[@]}" | tee "$OUT/summary.txt"' EXIT
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '. ')
if [ ! -f "$B/CMakeCache.txt" ]; then
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DRESIDENT_CUDA=ON -DRESIDENT_CUDA_ARCHITECTURES="$cc" \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DRESIDENT_BUILD_BENCH=ON -DRS_TEST_PYTHON="$(command -v python3)" \
    >"$OUT/configure.log" 2>&1 || { note configure FAILED; tail -n 30 "$OUT/configure.log"; exit 1; }
fi
cmake --build "$B" -j "$(nproc)" >"$OUT/build.log" 2>&1 && note build ok ||
  { note build "FAILED (build.log)"; grep -E 'error' "$OUT/build.log" | head -n 20; exit 1; }
export RESIDENT_CACHE_DIR
RESIDENT_CACHE_DIR=$(realpath -m "$B")/kernel-cache
mkdir -p "$RESIDENT_CACHE_DIR" && chmod 700 "$RESIDENT_CACHE_DIR"
# ctest -L cuda of the whole suite (TESTS=regex narrows it), its summary line and failures.
ctest_cuda() {
  local sel=()
  [ -n "${TESTS:-}" ] && sel=(-R "$TESTS")
  (cd "$B" && timeout 300 ctest --output-on-failure -L cuda -j 8 "${sel[@]}") >"$OUT/ctest-cuda.log" 2>&1
  note "ctest -L cuda" "$(grep -E 'tests passed' "$OUT/ctest-cuda.log" | tail -n 1); $(grep -c '(Skipped)' "$OUT/ctest-cuda.log") skipped"
  grep -E '\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$OUT/ctest-cuda.log" | head -n 20
  grep -E '\(Skipped\)|\(Failed\)|\(Timeout\)' "$OUT/ctest-cuda.log" | head -n 20
}
