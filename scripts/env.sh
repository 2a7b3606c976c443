# Sourced by the scripts: put a CUDA toolkit in /usr/local/cuda on PATH if nvcc is not.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
JOBS=$(nproc 2>/dev/null || echo 2)
