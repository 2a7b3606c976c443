#!/usr/bin/env bash
# Build the Python extension (python/) against the library already built in build/
# (installed into build/install, so the library is compiled once) and run its pytest
# suite with the project's .venv. The backend is chosen as everywhere: RESIDENT_BACKEND,
# else CUDA when a GPU answers, else the simulator. Extra arguments go to pytest.
# The tests run in Python's development mode with the debug memory allocators
# (-X dev, PYTHONMALLOC=debug): calls without the GIL, buffer overruns and double frees of
# Python memory abort the run (a release CPython's nearest thing to a debug build).
#   BUILD=build       the library's build folder (configured and built already)
#   PYTHON=.venv/bin/python
#   WERROR=ON        the extension's warnings as errors (OFF on a machine with another compiler)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-$PWD/.venv/bin/python}
cmake --install "$BUILD" --prefix "$BUILD/install" >/dev/null
cmake -S python -B "$BUILD-python" -DRESIDENT_PREFIX="$PWD/$BUILD/install" \
  -DPython_EXECUTABLE="$PYTHON" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRESIDENT_PYTHON_WERROR="${WERROR:-ON}" >/dev/null
cmake --build "$BUILD-python" -j"$JOBS"
cd "$BUILD-python"
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONMALLOC=debug \
  "$PYTHON" -X dev -m pytest -q -p no:cacheprovider ../python/tests "$@"
