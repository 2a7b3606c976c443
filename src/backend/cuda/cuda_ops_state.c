/* What the CUDA ops keep per device: its properties and a private memory pool for
 * scratch space (sort buffers, CUB temporaries, partial sums), allocated and freed in
 * stream order so an op never waits for memory. The pool keeps freed memory (a 400 MB
 * sort would otherwise pay cudaMalloc every call). It gives it back when the device runs
 * out (for its own allocation, and through the memory layer's recovery for any other),
 * on rs_memory_release, and when a context on the device closes. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include "backend/cuda/cuda_ops.h"

#define RS_CUDA_OPS_MAX_DEVICES 64

typedef struct ops_device {
  _Atomic int ready;
  rs_cuda_ops_device info;
  cudaMemPool_t pool;
  int have_pool;
} ops_device;

static ops_device rs_ops_devices[RS_CUDA_OPS_MAX_DEVICES];
static pthread_mutex_t rs_ops_devices_lock = PTHREAD_MUTEX_INITIALIZER;

static rs_status ops_device_init(ops_device *d, int device) {
  rs_cuda_ops_device info = {device, 0, 0, 1};
  RS_CUDA_CALL(cudaDeviceGetAttribute(&info.cc_major, cudaDevAttrComputeCapabilityMajor, device),
               "cudaDeviceGetAttribute(compute capability, device %d)", device);
  RS_CUDA_CALL(cudaDeviceGetAttribute(&info.cc_minor, cudaDevAttrComputeCapabilityMinor, device),
               "cudaDeviceGetAttribute(compute capability, device %d)", device);
  RS_CUDA_CALL(cudaDeviceGetAttribute(&info.multiprocessors, cudaDevAttrMultiProcessorCount, device),
               "cudaDeviceGetAttribute(multiprocessors, device %d)", device);
  if (info.multiprocessors < 1) info.multiprocessors = 1;
  /* A pool of our own: the device's default pool belongs to the async allocator. A device
   * without memory pools falls back to cudaMallocAsync's default pool. */
  struct cudaMemPoolProps props;
  memset(&props, 0, sizeof props);
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  if (cudaMemPoolCreate(&d->pool, &props) == cudaSuccess) {
    uint64_t keep = UINT64_MAX;
    (void)cudaMemPoolSetAttribute(d->pool, cudaMemPoolAttrReleaseThreshold, &keep);
    d->have_pool = 1;
  } else {
    (void)cudaGetLastError();
    d->have_pool = 0;
  }
  d->info = info;
  return RS_OK;
}

static rs_status ops_device_get(rs_backend *b, ops_device **out) {
  if (b->device < 0 || b->device >= RS_CUDA_OPS_MAX_DEVICES)
    return rs_fail(RS_ERR_UNSUPPORTED, "array operations: device %d is beyond the %d supported", b->device,
                   RS_CUDA_OPS_MAX_DEVICES);
  ops_device *d = &rs_ops_devices[b->device];
  if (!atomic_load_explicit(&d->ready, memory_order_acquire)) {
    RS_CUDA_ENTER(b);
    pthread_mutex_lock(&rs_ops_devices_lock);
    rs_status st = RS_OK;
    if (!atomic_load_explicit(&d->ready, memory_order_relaxed)) {
      st = ops_device_init(d, b->device);
      if (st == RS_OK) atomic_store_explicit(&d->ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&rs_ops_devices_lock);
    RS_TRY(st);
  }
  *out = d;
  return RS_OK;
}

rs_status rs_cuda_ops_device_info(rs_backend *b, rs_cuda_ops_device *out) {
  ops_device *d = NULL;
  RS_TRY(ops_device_get(b, &d));
  *out = d->info;
  return RS_OK;
}

unsigned rs_cuda_ops_grid(rs_backend *b, int64_t n, int per_thread, int waves) {
  int64_t per_block = (int64_t)RS_CUDA_OPS_BLOCK * per_thread;
  int64_t blocks = (n + per_block - 1) / per_block;
  int64_t cap = (int64_t)(b->multiprocessors > 0 ? b->multiprocessors : 1) * waves;
  if (blocks > cap) blocks = cap;
  return blocks < 1 ? 1u : (unsigned)blocks;
}

static cudaError_t scratch_try(ops_device *d, size_t bytes, cudaStream_t s, void **out) {
  return d->have_pool ? cudaMallocFromPoolAsync(out, bytes, d->pool, s) : cudaMallocAsync(out, bytes, s);
}

rs_status rs_cuda_ops_scratch(rs_backend *b, size_t bytes, void *stream, void **out) {
  ops_device *d = NULL;
  *out = NULL;
  RS_TRY(ops_device_get(b, &d));
  RS_CUDA_ENTER(b);
  cudaStream_t s = (cudaStream_t)stream;
  if (bytes == 0) bytes = 1;
  cudaError_t err = scratch_try(d, bytes, s, out);
  if (err == cudaErrorMemoryAllocation && d->have_pool) {
    /* memory the pool holds from earlier ops may be what is missing */
    (void)cudaGetLastError();
    (void)cudaStreamSynchronize(s);
    (void)cudaMemPoolTrimTo(d->pool, 0);
    err = scratch_try(d, bytes, s, out);
  }
  if (err != cudaSuccess) {
    *out = NULL;
    return rs_cuda_fail(err, "array operations: %zu bytes of scratch memory on device %d", bytes, b->device);
  }
  return RS_OK;
}

void rs_cuda_ops_scratch_free(void *ptr, void *stream) {
  if (ptr && cudaFreeAsync(ptr, (cudaStream_t)stream) != cudaSuccess) (void)cudaGetLastError();
}

/* The device's ops state if the ops ever ran there (never creates it). */
static ops_device *ops_device_peek(rs_backend *b) {
  if (b->device < 0 || b->device >= RS_CUDA_OPS_MAX_DEVICES) return NULL;
  ops_device *d = &rs_ops_devices[b->device];
  return atomic_load_explicit(&d->ready, memory_order_acquire) && d->have_pool ? d : NULL;
}

static rs_status pool_attr(ops_device *d, enum cudaMemPoolAttr attr, size_t *out, const char *what) {
  uint64_t v = 0;
  RS_CUDA_CALL(cudaMemPoolGetAttribute(d->pool, attr, &v), "cudaMemPoolGetAttribute(ops scratch pool, %s)", what);
  *out = (size_t)v;
  return RS_OK;
}

rs_status rs_cuda_ops_scratch_held(rs_backend *b, size_t *bytes) {
  *bytes = 0;
  ops_device *d = ops_device_peek(b);
  if (!d) return RS_OK;
  RS_CUDA_ENTER(b);
  return pool_attr(d, cudaMemPoolAttrReservedMemCurrent, bytes, "reserved");
}

rs_status rs_cuda_ops_scratch_release(rs_backend *b, int wait) {
  ops_device *d = ops_device_peek(b);
  if (!d) return RS_OK;
  RS_CUDA_ENTER(b);
  size_t used = 0;
  RS_TRY(pool_attr(d, cudaMemPoolAttrUsedMemCurrent, &used, "used"));
  /* scratch still counted as used is either in an op's hands or freed on a stream that
   * has not reached the free yet: waiting for the device settles the second kind */
  if (wait && used > 0)
    RS_CUDA_CALL(cudaDeviceSynchronize(), "cudaDeviceSynchronize(device %d) before trimming ops scratch", b->device);
  RS_CUDA_CALL(cudaMemPoolTrimTo(d->pool, 0), "cudaMemPoolTrimTo(ops scratch pool, device %d)", b->device);
  return RS_OK;
}
