// The device side of a pageable H2D staged by pulling (transfer/staging_pull.c, the
// protocol at rs_be_pull in backend.h): blocks wait for a slice's ready flag in mapped
// pinned memory, read the slice over the bus with ordinary loads and write it to the
// destination, then mark the slot free. One launch serves a whole copy, so a 1 MiB copy
// costs one call to the driver instead of a DMA, an event and a poll per piece, and the
// first slice leaves as soon as the host has written its 32 KiB. On the H200 (2026-12-02,
// bench/pageable, one run): 21.4 GB/s at 1 MiB, 29.4 at 2 MiB, 33.3 at 4 MiB, where the
// DMA pieces gave 18.8, 25.2 and 29.6. From 8 MiB the DMAs are as fast or faster, so
// larger copies stay with them (staging_pull.h).
#include <cuda/atomic>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_internal.h"

namespace {

constexpr int kBlock = 512;
// Blocks of a job at most: each takes slices grid-stride, in the order the host fills
// them. 64 and 132 measured the same; fewer hold fewer of the multiprocessors' slots
// while the host is still copying.
constexpr int kGrid = 64;
// Words a thread loads before it stores them: 512 x 4 x 16 bytes = one 32 KiB slice in
// one round trip over the bus.
constexpr int kBatch = 4;

__device__ __forceinline__ uint64_t load_acquire_system(const uint64_t *p) {
  cuda::atomic_ref<uint64_t, cuda::thread_scope_system> a(*const_cast<uint64_t *>(p));
  return a.load(cuda::memory_order_acquire);
}

__device__ __forceinline__ void store_release_system(uint64_t *p, uint64_t v) {
  cuda::atomic_ref<uint64_t, cuda::thread_scope_system> a(*p);
  a.store(v, cuda::memory_order_release);
}

// Words of W bytes (the destination's alignment: slots are 64-byte aligned and slices a
// multiple of 64, so only dst decides), the tail byte by byte.
template <typename W>
__device__ void copy_slice(char *dst, const char *src, size_t len) {
  const W *s = reinterpret_cast<const W *>(src);
  W *d = reinterpret_cast<W *>(dst);
  const size_t words = len / sizeof(W);
  for (size_t base = threadIdx.x; base < words; base += (size_t)kBatch * kBlock) {
    W r[kBatch];
#pragma unroll
    for (int i = 0; i < kBatch; i++) {
      size_t w = base + (size_t)i * kBlock;
      if (w < words) r[i] = s[w];
    }
    // Each store needs its load's value: every read of the slot is done once all are issued.
#pragma unroll
    for (int i = 0; i < kBatch; i++) {
      size_t w = base + (size_t)i * kBlock;
      if (w < words) d[w] = r[i];
    }
  }
  for (size_t b = words * sizeof(W) + threadIdx.x; b < len; b += kBlock) dst[b] = src[b];
}

template <typename W>
__global__ void __launch_bounds__(kBlock) pull_kernel(rs_be_pull j) {
  for (size_t k = blockIdx.x; k < j.slices; k += gridDim.x) {
    const uint64_t g = j.first + k;
    const size_t flag = (size_t)(g % j.slots) * RS_BE_PULL_FLAG_STRIDE;
    if (threadIdx.x == 0) {
      while (load_acquire_system(&j.ready[flag]) < g + 1) __nanosleep(64);
      __threadfence_system();
    }
    __syncthreads();
    const size_t off = k * j.slice_bytes;
    const size_t len = j.bytes - off < j.slice_bytes ? j.bytes - off : j.slice_bytes;
    copy_slice<W>(static_cast<char *>(j.dst) + off, j.ring + (size_t)(g % j.slots) * j.slice_bytes, len);
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      store_release_system(&j.freed[flag], g + 1);
    }
  }
}

}  // namespace

extern "C" rs_status rs_cuda_stage_pull(rs_backend *b, const rs_be_pull *job, void *stream) {
  if (rs_be_pull_malformed(job)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "cuda stage_pull: a malformed job");
  RS_CUDA_ENTER(b);
  const int grid = job->slices < (size_t)kGrid ? (int)job->slices : kGrid;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const uintptr_t align = reinterpret_cast<uintptr_t>(job->dst);
  if (align % 16 == 0) pull_kernel<uint4><<<grid, kBlock, 0, s>>>(*job);
  else if (align % 8 == 0) pull_kernel<uint2><<<grid, kBlock, 0, s>>>(*job);
  else if (align % 4 == 0) pull_kernel<unsigned><<<grid, kBlock, 0, s>>>(*job);
  else pull_kernel<unsigned char><<<grid, kBlock, 0, s>>>(*job);
  RS_CUDA_CALL(cudaGetLastError(), "cuda stage_pull: launch of %zu slices", job->slices);
  return RS_OK;
}
