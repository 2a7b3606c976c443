// The backend's built-in kernels: axpb (the library's own elementwise op for tests,
// demos and the pipeline benchmark) and sleep (a known device-side delay).
#include <cstdint>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_internal.h"

namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 2048 / kBlock;

// Same rounding as the simulator's fmaf / fma, so both backends agree bit for bit.
__device__ __forceinline__ float fused(float x, float a, float c) { return fmaf(x, a, c); }
__device__ __forceinline__ double fused(double x, double a, double c) { return fma(x, a, c); }

// V packs W elements of T into one 16-byte access: the kernel is bound by memory, and
// fewer, wider transactions get closer to the copy bandwidth.
template <typename T, typename V, int W>
__global__ void __launch_bounds__(kBlock) axpb_kernel(T *__restrict__ x, int64_t n, T a, T c) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nv = n / W;
  V *xv = reinterpret_cast<V *>(x);
  for (int64_t i = first; i < nv; i += step) {
    V v = xv[i];
    T *e = reinterpret_cast<T *>(&v);
#pragma unroll
    for (int k = 0; k < W; ++k) e[k] = fused(e[k], a, c);
    xv[i] = v;
  }
  for (int64_t i = nv * W + first; i < n; i += step) x[i] = fused(x[i], a, c);
}

unsigned grid_for(const rs_backend *b, int64_t work) {
  const int64_t want = (work + kBlock - 1) / kBlock;
  const int64_t cap = static_cast<int64_t>(b->multiprocessors) * kBlocksPerSm;
  return static_cast<unsigned>(want < 1 ? 1 : (want < cap ? want : cap));
}

template <typename T, typename V>
cudaError_t launch_axpb(const rs_backend *b, void *x, int64_t n, double a, double c, cudaStream_t st,
                        unsigned *blocks) {
  constexpr int W = sizeof(V) / sizeof(T);
  T *p = static_cast<T *>(x);
  if (reinterpret_cast<uintptr_t>(x) % sizeof(V) == 0) {
    *blocks = grid_for(b, n / W > 0 ? n / W : n);
    axpb_kernel<T, V, W><<<*blocks, kBlock, 0, st>>>(p, n, static_cast<T>(a), static_cast<T>(c));
  } else {  // a view starting off a 16-byte boundary
    *blocks = grid_for(b, n);
    axpb_kernel<T, T, 1><<<*blocks, kBlock, 0, st>>>(p, n, static_cast<T>(a), static_cast<T>(c));
  }
  return cudaGetLastError();
}

// %globaltimer counts nanoseconds independent of the SM clock, which boosts and throttles.
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void sleep_kernel(uint64_t ns) {
  const uint64_t start = global_ns();
  while (global_ns() - start < ns) __nanosleep(1000);  // yield the SM while waiting
}

}  // namespace

extern "C" rs_status rs_cuda_kernel_axpb(rs_backend *b, rs_dtype dtype, void *x, int64_t n, double a,
                                         double c, void *stream) {
  if (dtype != RS_FLOAT32 && dtype != RS_FLOAT64)
    return rs_fail(RS_ERR_DTYPE, "kernel_axpb: dtype %d is not float32 or float64", (int)dtype);
  if (n < 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "kernel_axpb: n = %lld", (long long)n);
  if (n == 0) return RS_OK;
  if (!x) return rs_fail(RS_ERR_NULL_POINTER, "kernel_axpb: x is NULL");
  RS_CUDA_ENTER(b);
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  unsigned blocks = 0;
  (void)cudaGetLastError();  // so the check below sees this launch, not an older call
  cudaError_t err = dtype == RS_FLOAT32 ? launch_axpb<float, float4>(b, x, n, a, c, st, &blocks)
                                        : launch_axpb<double, double2>(b, x, n, a, c, st, &blocks);
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "kernel_axpb: axpb kernel <<<%u, %d>>> (%s, %lld elements, stream %p)",
                        blocks, kBlock, dtype == RS_FLOAT32 ? "float32" : "float64", (long long)n,
                        stream);
  return RS_OK;
}

extern "C" rs_status rs_cuda_kernel_sleep(rs_backend *b, double ms, void *stream) {
  if (!(ms >= 0 && ms <= 86400000.0))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "kernel_sleep: %g ms is not a valid delay", ms);
  RS_CUDA_ENTER(b);
  (void)cudaGetLastError();
  sleep_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<uint64_t>(ms * 1e6));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "kernel_sleep: sleep kernel <<<1, 1>>> (%g ms, stream %p)", ms, stream);
  return RS_OK;
}
