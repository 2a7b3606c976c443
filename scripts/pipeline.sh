#!/usr/bin/env bash
# Build resident and run the main job: `resident pipeline`, the copy counter (on the GPU
# if one answers, else on the CPU simulator). Extra arguments go to the command, e.g.
#   scripts/pipeline.sh --kernels 10 --size 1GiB --host pinned
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$JOBS" --target resident_cli >/dev/null
exec ./build/resident pipeline "$@"
