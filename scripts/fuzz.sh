#!/usr/bin/env bash
# Build the libFuzzer harnesses of fuzz/ (clang, AddressSanitizer + UBSan, the simulator)
# in build-fuzz and run each on its committed corpus, fuzz/corpus/NAME.
#
#   scripts/fuzz.sh            every harness for 5 s (the short run of scripts/test.sh)
#   scripts/fuzz.sh 600        every harness for 600 s (a longer run, on demand)
#   scripts/fuzz.sh 60 fuzz_env fuzz_names   only those
#
# New inputs go to build-fuzz/corpus/NAME, crashes to build-fuzz/artifacts/ (copy the
# interesting ones into fuzz/corpus/NAME by hand, small). fuzz/known/NAME/ holds inputs
# that reach defects known from issue 11 and being fixed elsewhere: they are skipped
# unless RS_FUZZ_KNOWN=1, which also lets the harnesses explore those defects.
# RS_FUZZ_SEED=N fixes libFuzzer's seed (scripts/test.sh: 1, so CI's runs repeat).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-5}"
shift || true
bash scripts/deps.sh
. scripts/env.sh
if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: no clang, nothing to do"
  exit 0
fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRESIDENT_FUZZ=ON \
  -DRESIDENT_CUDA=OFF -DRESIDENT_BUILD_TESTS=OFF -DRESIDENT_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"$JOBS" >/dev/null
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in fuzz/fuzz_*.c; do names+=("$(basename "$f" .c)"); done
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
mkdir -p build-fuzz/artifacts
failed=0
for name in "${names[@]}"; do
  bin="build-fuzz/fuzz/$name"
  work="build-fuzz/corpus/$name"
  log="build-fuzz/$name.log"
  mkdir -p "$work" "fuzz/corpus/$name"
  # the first directory receives new inputs; the committed corpus is only read
  if "$bin" -seed="${RS_FUZZ_SEED:-0}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=4096 \
      -artifact_prefix=build-fuzz/artifacts/"$name"- "$work" "fuzz/corpus/$name" >"$log" 2>&1; then
    echo "fuzz: $name: $(grep -Eo 'Done [0-9]+ runs' "$log" | tail -1) in ${secs} s, ok"
  else
    echo "fuzz: $name FAILED (log: $log):"
    tail -40 "$log"
    failed=1
  fi
  if [ "${RS_FUZZ_KNOWN:-0}" = "1" ] && [ -d "fuzz/known/$name" ]; then
    for k in fuzz/known/"$name"/*; do
      [ -f "$k" ] || continue
      if "$bin" -timeout=20 -rss_limit_mb=2560 "$k" >"$log.known" 2>&1; then
        echo "fuzz: $name: known input $k passes now (remove it from fuzz/known)"
      else
        echo "fuzz: $name: known input $k still fails"
      fi
    done
  fi
done
exit $failed
