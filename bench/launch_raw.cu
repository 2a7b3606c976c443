// bench/launch_raw.cu - the raw CUDA C side of bench/launch: the same empty kernel launched
// with <<<>>>, as /work/shared/anchors/limits.cu measured it (4.4 us on the H200).
#include <cuda_runtime.h>
#include <chrono>

__global__ void rs_bench_empty_raw(float *p) { (void)p; }

static double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Microseconds per launch over n back-to-back launches and one synchronize; -1 on error.
extern "C" double rs_bench_raw_launch_us(int n) {
  float *d = nullptr;
  if (cudaMalloc(&d, sizeof(float)) != cudaSuccess) return -1;
  rs_bench_empty_raw<<<1, 1>>>(d);
  if (cudaDeviceSynchronize() != cudaSuccess) return -1;
  double t0 = now_s();
  for (int i = 0; i < n; i++) rs_bench_empty_raw<<<1, 1>>>(d);
  cudaError_t err = cudaDeviceSynchronize();
  double us = (now_s() - t0) / n * 1e6;
  cudaFree(d);
  return err == cudaSuccess ? us : -1;
}
