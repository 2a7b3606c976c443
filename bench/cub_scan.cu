// The ceiling for resident's cumulative_sum of one long row (issue 18): raw CUB calls on
// the same data as bench/stats.py (100M float32), temporary storage allocated once,
// beside a device-to-device copy (cudaMemcpyAsync) for the "% of copy" figures.
//   cub::DeviceScan::InclusiveSum (cuda::std::plus: CUB's tuned sm_90 policy)
//   cub::DeviceScan::InclusiveScan with a functor of our own doing the same addition
//     (CUB does not recognize it as "plus" and takes its default policy - what resident
//     called before)
// 32-bit item counts, as resident passes for a row below 2^31 elements.
// GB/s counts the input read and the result written. Build and run (no resident needed):
//   nvcc -O3 -std=c++17 -arch=native -o cub_scan bench/cub_scan.cu && ./cub_scan [n] [repeat]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

#include "bench_cuda_check.h"

struct OwnAdd {  // the same addition, unknown to CUB's tuning
  __device__ __forceinline__ float operator()(const float &a, const float &b) const { return a + b; }
};

__global__ void fill(float *x, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    x[i] = (float)((i * 2654435761ull) % 1000) * 1e-3f - 0.5f;
}

template <typename F>
static double median_ms(F f, int repeat, cudaStream_t s) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();  // warm-up
  CK(cudaStreamSynchronize(s));
  std::vector<float> t;
  for (int r = 0; r < repeat; r++) {
    CK(cudaEventRecord(a, s));
    f();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  long long n = argc > 1 ? std::atoll(argv[1]) : 100000000LL;
  int repeat = argc > 2 ? std::atoi(argv[2]) : 50;
  if (n < 1 || n > 2147483647LL || repeat < 1) {
    std::fprintf(stderr, "usage: cub_scan [1 <= n < 2^31] [repeat >= 1]\n");
    return 2;
  }
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  float *x = nullptr, *y = nullptr;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&y, n * sizeof(float)));
  fill<<<1024, 256, 0, s>>>(x, n);
  CK(cudaGetLastError());
  size_t b1 = 0, b2 = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, b1, x, y, (int)n, s));
  CK(cub::DeviceScan::InclusiveScan(nullptr, b2, x, y, OwnAdd{}, (int)n, s));
  void *tmp = nullptr;
  size_t bytes = std::max(b1, b2);
  CK(cudaMalloc(&tmp, bytes));
  const double moved = 2.0 * n * sizeof(float);
  cudaDeviceProp prop;
  int dev = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  std::printf("raw CUB scan of %lld float32 on %s, median of %d (cudaEvent timing, no launch gaps)\n", n, prop.name,
              repeat);
  double copy = median_ms([&] { CK(cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice, s)); }, repeat, s);
  double sum = median_ms(
      [&] {
        size_t b = bytes;
        CK(cub::DeviceScan::InclusiveSum(tmp, b, x, y, (int)n, s));
      },
      repeat, s);
  double own = median_ms(
      [&] {
        size_t b = bytes;
        CK(cub::DeviceScan::InclusiveScan(tmp, b, x, y, OwnAdd{}, (int)n, s));
      },
      repeat, s);
  const double copy_gbs = moved / copy / 1e6;
  std::printf("%-52s %10s %8s %9s\n", "", "ms", "GB/s", "% of copy");
  std::printf("%-52s %10.3f %8.0f %8.0f%%\n", "cudaMemcpyAsync device to device", copy, copy_gbs, 100.0);
  std::printf("%-52s %10.3f %8.0f %8.0f%%\n", "cub::DeviceScan::InclusiveSum (tuned policy)", sum, moved / sum / 1e6,
              100.0 * copy / sum);
  std::printf("%-52s %10.3f %8.0f %8.0f%%\n", "cub::DeviceScan::InclusiveScan, own add functor", own,
              moved / own / 1e6, 100.0 * copy / own);
  CK(cudaFree(tmp));
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaStreamDestroy(s));
  return 0;
}
