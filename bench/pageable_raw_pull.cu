// The device side of bench/pageable_raw's pull, written apart from resident's
// (backend/cuda/cuda_stage_pull.cu) so that the raw floor is raw CUDA: one block a 32 KiB
// slice waits for the slice's flag in mapped pinned memory, reads it in one round trip
// over the bus, stores it and flags the slot free.
#include <cuda_runtime.h>
#include <stdint.h>
#include "pageable_raw.h"

namespace {

constexpr int kThreads = 512;
constexpr int kPerThread = RAW_SLICE / 16 / kThreads;

__device__ __forceinline__ uint64_t load_acquire_sys(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_sys(uint64_t *p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__global__ void __launch_bounds__(kThreads) pull_kernel(uint4 *dst, const uint4 *ring, const uint64_t *ready,
                                                        uint64_t *freed, uint64_t first, int slices) {
  for (int k = blockIdx.x; k < slices; k += gridDim.x) {
    if (threadIdx.x == 0) {
      while (load_acquire_sys(&ready[k * RAW_FLAG_STRIDE]) < first + k + 1) __nanosleep(64);
      __threadfence_system();
    }
    __syncthreads();
    const uint4 *s = ring + (size_t)k * (RAW_SLICE / 16);
    uint4 *d = dst + (size_t)k * (RAW_SLICE / 16);
    uint4 r[kPerThread];
#pragma unroll
    for (int i = 0; i < kPerThread; i++) r[i] = s[threadIdx.x + i * kThreads];
#pragma unroll
    for (int i = 0; i < kPerThread; i++) d[threadIdx.x + i * kThreads] = r[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      store_release_sys(&freed[k * RAW_FLAG_STRIDE], first + k + 1);
    }
  }
}

}  // namespace

extern "C" int raw_pull_launch(void *dst, const void *ring_dev, const uint64_t *ready_dev, uint64_t *freed_dev,
                               uint64_t first, int slices, void *stream) {
  pull_kernel<<<slices, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<uint4 *>(dst), static_cast<const uint4 *>(ring_dev), ready_dev, freed_dev, first, slices);
  return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
