// The ceiling for resident's cumulative_sum of one long row (issue 18): raw CUB calls on
// the same data as bench/stats.py (100M float32), temporary storage allocated once,
// beside a device-to-device copy (cudaMemcpyAsync) for the "% of copy" figures.
//   cub::DeviceScan::InclusiveSum (cuda::std::plus: CUB's tuned sm_90 policy)
//   cub::DeviceScan::InclusiveScan with a functor of our own doing the same addition
//     (CUB does not recognize it as "plus" and takes its default policy - what resident
//     called before)
//   cub::DispatchScan with other policies (threads x items, look-back delays): whether a
//     tuning other than CUB's own moves the ceiling on this GPU
// 32-bit item counts, as resident passes for a row below 2^31 elements.
// GB/s counts the input read and the result written. Build and run (no resident needed):
//   nvcc -O3 -std=c++17 -arch=native -o cub_scan bench/cub_scan.cu && ./cub_scan [n] [repeat]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>
#include <cub/device/dispatch/dispatch_scan.cuh>
#include <cuda/std/functional>

#include "bench_cuda_check.h"

// CUB's own DispatchScan with a policy of our choosing (threads a block, items a thread, the
// look-back's delay), to see whether another tuning than CUB's sm_90 one (128 threads x 24
// items for float) moves the ceiling on this GPU. Still CUB's single-pass scan.
template <int Threads, int Items, int DelayNs, int L2WriteNs>
struct Hub {
  struct Policy900 : cub::ChainedPolicy<900, Policy900, Policy900> {
    using ScanPolicyT =
        cub::AgentScanPolicy<Threads, Items, float, cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::LOAD_DEFAULT,
                             cub::BLOCK_STORE_WARP_TRANSPOSE, cub::BLOCK_SCAN_WARP_SCANS,
                             cub::detail::MemBoundScaling<Threads, Items, float>,
                             cub::detail::fixed_delay_constructor_t<DelayNs, L2WriteNs>>;
  };
  using MaxPolicy = Policy900;
};

template <int Threads, int Items, int DelayNs, int L2WriteNs>
cudaError_t tuned_scan(void *tmp, size_t &bytes, const float *x, float *y, int n, cudaStream_t s) {
  using D = cub::DispatchScan<const float *, float *, cuda::std::plus<>, cub::NullType, unsigned, float,
                              cub::ForceInclusive::No, Hub<Threads, Items, DelayNs, L2WriteNs>>;
  return D::Dispatch(tmp, bytes, x, y, cuda::std::plus<>{}, cub::NullType{}, (unsigned)n, s);
}

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
  // other tunings of the same scan: threads x items, look-back delay / L2 write latency (ns)
  auto tuned = [&](const char *name, auto fn) {
    size_t need = 0;
    CK(fn(nullptr, need, x, y, (int)n, s));
    void *t2 = nullptr;
    CK(cudaMalloc(&t2, need));
    double ms = median_ms([&] { CK(fn(t2, need, x, y, (int)n, s)); }, repeat, s);
    std::printf("%-52s %10.3f %8.0f %8.0f%%\n", name, ms, moved / ms / 1e6, 100.0 * copy / ms);
    CK(cudaFree(t2));
  };
  tuned("DispatchScan 128 x 24, delay 688/1140 (CUB's sm_90)", tuned_scan<128, 24, 688, 1140>);
  tuned("DispatchScan 256 x 16, delay 688/1140", tuned_scan<256, 16, 688, 1140>);
  tuned("DispatchScan 256 x 24, delay 688/1140", tuned_scan<256, 24, 688, 1140>);
  tuned("DispatchScan 128 x 32, delay 688/1140", tuned_scan<128, 32, 688, 1140>);
  tuned("DispatchScan 512 x 12, delay 688/1140", tuned_scan<512, 12, 688, 1140>);
  tuned("DispatchScan 128 x 24, delay 350/450", tuned_scan<128, 24, 350, 450>);
  tuned("DispatchScan 256 x 32, delay 350/450", tuned_scan<256, 32, 350, 450>);
  CK(cudaFree(tmp));
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaStreamDestroy(s));
  return 0;
}
