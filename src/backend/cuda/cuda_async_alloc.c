/* cudaMallocAsync / cudaFreeAsync on the device's default memory pool.
 *
 * The release threshold: by default (0) the pool hands every freed byte back to the
 * driver at the next synchronization, so the allocation after a synchronize pays for
 * mapping the memory again - which is the cost the async allocator is there to avoid.
 * It is set to UINT64_MAX once per device, so freed memory stays in the pool; the memory
 * layer trims the pool (cudaMemPoolTrimTo) when it is asked to release cached memory or
 * when an allocation does not fit. The default pool is shared by every user of the device
 * in the process; keeping its memory cached is what CuPy and RMM do with it too. */
#include <stdatomic.h>
#include <stdint.h>
#include "backend/cuda/cuda_async_alloc.h"
#include "backend/cuda/cuda_internal.h"

#define RS_CUDA_MAX_POOL_DEVICES 64

/* Devices whose default pool has had its threshold set (setting it twice is harmless). */
static _Atomic int rs_threshold_set[RS_CUDA_MAX_POOL_DEVICES];

static rs_status default_pool(const rs_backend *b, cudaMemPool_t *pool) {
  RS_CUDA_CALL(cudaDeviceGetDefaultMemPool(pool, b->device),
               "cudaDeviceGetDefaultMemPool(device %d)", b->device);
  int known = b->device >= 0 && b->device < RS_CUDA_MAX_POOL_DEVICES;
  if (known && atomic_load_explicit(&rs_threshold_set[b->device], memory_order_acquire))
    return RS_OK;
  int supported = 0;
  RS_CUDA_CALL(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, b->device),
               "cudaDeviceGetAttribute(memory pools supported, device %d)", b->device);
  if (!supported)
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "device %d does not support stream-ordered allocation (cudaMallocAsync); use "
                   "the pool or direct allocator",
                   b->device);
  uint64_t threshold = UINT64_MAX;
  RS_CUDA_CALL(cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &threshold),
               "cudaMemPoolSetAttribute(release threshold, device %d)", b->device);
  if (known) atomic_store_explicit(&rs_threshold_set[b->device], 1, memory_order_release);
  return RS_OK;
}

rs_status rs_cuda_device_alloc_async(rs_backend *b, size_t bytes, void *stream, void **out) {
  RS_CUDA_ENTER(b);
  cudaMemPool_t pool;
  RS_TRY(default_pool(b, &pool));
  void *p = NULL;
  RS_CUDA_CALL(cudaMallocAsync(&p, bytes, (cudaStream_t)stream),
               "cudaMallocAsync(%zu bytes, stream %p)", bytes, stream);
  *out = p;
  return RS_OK;
}

rs_status rs_cuda_device_free_async(rs_backend *b, void *ptr, void *stream) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaFreeAsync(ptr, (cudaStream_t)stream), "cudaFreeAsync(%p, stream %p)", ptr,
               stream);
  return RS_OK;
}

rs_status rs_cuda_device_async_trim(rs_backend *b, size_t keep_bytes) {
  RS_CUDA_ENTER(b);
  cudaMemPool_t pool;
  RS_TRY(default_pool(b, &pool));
  RS_CUDA_CALL(cudaMemPoolTrimTo(pool, keep_bytes), "cudaMemPoolTrimTo(device %d, %zu bytes)",
               b->device, keep_bytes);
  return RS_OK;
}

rs_status rs_cuda_device_async_usage(rs_backend *b, size_t *reserved, size_t *used) {
  RS_CUDA_ENTER(b);
  cudaMemPool_t pool;
  RS_TRY(default_pool(b, &pool));
  uint64_t r = 0, u = 0;
  RS_CUDA_CALL(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &r),
               "cudaMemPoolGetAttribute(reserved, device %d)", b->device);
  RS_CUDA_CALL(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &u),
               "cudaMemPoolGetAttribute(used, device %d)", b->device);
  *reserved = (size_t)r;
  *used = (size_t)u;
  return RS_OK;
}
