// The benchmarks' CUDA runtime check (the .cu files of bench/): a failed call prints where and why and
// ends the program - a benchmark has nothing sensible to go on with.
#ifndef RS_BENCH_CUDA_CHECK_H
#define RS_BENCH_CUDA_CHECK_H
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

#endif
