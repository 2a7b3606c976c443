// bench/ew_raw: the raw CUDA C limit for memory-bound elementwise kernels on this GPU, in
// the designs the generated kernels could take, next to a device-to-device cudaMemcpy.
// It is the reference bench/ops' elementwise figures are read against: what hand-written
// CUDA reaches for y = x*5 and the fused (x*5)^2*2 over 100 MB of float64.
//
//   ew_raw [--mb N] [--repeat N]
//
// Two timings per design, both medians over the repeats:
//   call:  an event pair around one launch after a synchronize, as rs_benchmark and
//          cupyx.profiler.benchmark time one call (includes the host's launch latency,
//          during which the GPU idles);
//   queue: 20 launches queued back to back between one event pair, divided by 20 (the
//          kernel's own duration plus the GPU's gap between kernels).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_cuda_check.h"

constexpr int kBlock = 256;

template <bool Fused>
__device__ __forceinline__ double op(double x) {
  if (!Fused) return x * 5;
  double y = x * 5;
  y = y * y;
  return y + y;
}

// one element per thread, no loop (the anchors' raw kernel)
template <bool Fused>
__global__ void simple(const double *x, double *y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = op<Fused>(x[i]);
}

// scalar, 4 per thread a block-width apart, grid-stride with 64-bit byte offsets
// (the generated kernel's general design)
template <bool Fused>
__global__ void scalar4(const char *x, char *y, long long n, long long sx, long long sy) {
  const long long step = (long long)gridDim.x * blockDim.x * 4;
  for (long long base = (long long)blockIdx.x * blockDim.x * 4 + threadIdx.x; base < n; base += step) {
    double v[4];
#pragma unroll
    for (int u = 0; u < 4; u++) {
      long long i = base + u * (long long)blockDim.x;
      v[u] = i < n ? *(const double *)(x + i * sx) : 0.0;
    }
#pragma unroll
    for (int u = 0; u < 4; u++) {
      long long i = base + u * (long long)blockDim.x;
      if (i < n) *(double *)(y + i * sy) = op<Fused>(v[u]);
    }
  }
}

// 16-byte vectors, U per thread a block-width apart, 32-bit indices; Loop: grid-stride
// over a capped grid, else one pass; Stream: evict-first stores
template <bool Fused, int U, bool Loop, bool Stream>
__global__ void vec(const double2 *x, double2 *y, unsigned nv) {
  const unsigned step = gridDim.x * blockDim.x * U;
  for (unsigned base = blockIdx.x * blockDim.x * U + threadIdx.x; base < nv; base += step) {
    double2 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      unsigned i = base + u * blockDim.x;
      if (i < nv) v[u] = x[i];
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      unsigned i = base + u * blockDim.x;
      if (i < nv) {
        double2 r = make_double2(op<Fused>(v[u].x), op<Fused>(v[u].y));
        if (Stream) __stcs(&y[i], r);
        else y[i] = r;
      }
    }
    if (!Loop) break;
  }
}

static int g_repeat = 30;

template <class F>
static void measure(const char *name, double bytes, F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; i++) launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> call, queue;
  for (int r = 0; r < g_repeat; r++) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    call.push_back(ms);
  }
  for (int r = 0; r < g_repeat; r++) {
    CK(cudaEventRecord(a));
    for (int k = 0; k < 20; k++) launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    queue.push_back(ms / 20);
  }
  CK(cudaGetLastError());
  std::sort(call.begin(), call.end());
  std::sort(queue.begin(), queue.end());
  double c = call[call.size() / 2], q = queue[queue.size() / 2];
  std::printf("%-34s call %8.4f ms %7.1f GB/s   queue %8.4f ms %7.1f GB/s\n", name, c, bytes / (c * 1e6), q,
              bytes / (q * 1e6));
  std::fflush(stdout);
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
}

static unsigned blocks_for(long long items, int per_thread, int cap_waves, int sms) {
  long long per_block = (long long)kBlock * per_thread;
  long long blocks = (items + per_block - 1) / per_block;
  long long cap = (long long)sms * cap_waves;
  if (cap_waves > 0 && blocks > cap) blocks = cap;
  return (unsigned)std::max(1LL, blocks);
}

template <bool Fused>
static void designs(const char *what, const double *x, double *y, long long n, int sms) {
  double bytes = 2.0 * n * sizeof(double);
  unsigned nv = (unsigned)(n / 2);
  char name[64];
  std::snprintf(name, sizeof name, "%s simple", what);
  measure(name, bytes, [&] { simple<Fused><<<blocks_for(n, 1, 0, sms), kBlock>>>(x, y, n); });
  std::snprintf(name, sizeof name, "%s scalar4 grid-stride", what);
  measure(name, bytes, [&] { scalar4<Fused><<<blocks_for(n, 4, 32, sms), kBlock>>>((const char *)x, (char *)y, n, 8, 8); });
  std::snprintf(name, sizeof name, "%s vec16 U2 grid-stride", what);
  measure(name, bytes, [&] { vec<Fused, 2, true, false><<<blocks_for(nv, 2, 32, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U4 grid-stride", what);
  measure(name, bytes, [&] { vec<Fused, 4, true, false><<<blocks_for(nv, 4, 32, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U2 one pass", what);
  measure(name, bytes, [&] { vec<Fused, 2, false, false><<<blocks_for(nv, 2, 0, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U4 one pass", what);
  measure(name, bytes, [&] { vec<Fused, 4, false, false><<<blocks_for(nv, 4, 0, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U1 one pass", what);
  measure(name, bytes, [&] { vec<Fused, 1, false, false><<<blocks_for(nv, 1, 0, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U4 grid-stride stcs", what);
  measure(name, bytes, [&] { vec<Fused, 4, true, true><<<blocks_for(nv, 4, 32, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
  std::snprintf(name, sizeof name, "%s vec16 U2 one pass stcs", what);
  measure(name, bytes, [&] { vec<Fused, 2, false, true><<<blocks_for(nv, 2, 0, sms), kBlock>>>((const double2 *)x, (double2 *)y, nv); });
}

int main(int argc, char **argv) {
  long long mb = 100;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--mb") && i + 1 < argc) mb = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) g_repeat = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: ew_raw [--mb N] [--repeat N]\n");
      return 2;
    }
  }
  if (mb < 1 || g_repeat < 1) {
    std::fprintf(stderr, "ew_raw: --mb and --repeat must be >= 1\n");
    return 2;
  }
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  long long n = mb * 1000000 / 8;
  n -= n % 2;
  double *x, *y, *big0, *big1;
  CK(cudaMalloc(&x, n * sizeof(double)));
  CK(cudaMalloc(&y, n * sizeof(double)));
  CK(cudaMemset(x, 0, n * sizeof(double)));
  size_t big = 400000000;
  CK(cudaMalloc(&big0, big));
  CK(cudaMalloc(&big1, big));
  CK(cudaMemset(big0, 0, big));
  std::printf("ew_raw: %lld float64 (%lld MB), %d SMs, block %d\n", n, mb, sms, kBlock);
  measure("cudaMemcpy D2D 400 MB", 2.0 * big, [&] { CK(cudaMemcpyAsync(big1, big0, big, cudaMemcpyDeviceToDevice)); });
  measure("cudaMemcpy D2D same size", 2.0 * n * 8, [&] { CK(cudaMemcpyAsync(y, x, n * 8, cudaMemcpyDeviceToDevice)); });
  designs<false>("x*5", x, y, n, sms);
  designs<true>("fused", x, y, n, sms);
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaFree(big0));
  CK(cudaFree(big1));
  return 0;
}
