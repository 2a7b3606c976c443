/* CUDA IPC of device memory, and managed-memory prefetch and advice (at the end).
 *
 * A cudaIpcMemHandle_t names a whole allocation, and cudaIpcOpenMemHandle maps it at its
 * base, so an array inside a pool segment is exported as the segment's handle plus the
 * array's offset in it; the base and size come from the driver (cuMemGetAddressRange,
 * reached through cudaGetDriverEntryPointByVersion so that nothing links libcuda
 * directly). Memory of the stream-ordered allocator (cudaMallocAsync, the `async`
 * allocator) cannot be exported this way - its pool would have to be created shareable
 * and exported with cudaMemPoolExportPointer - and is refused with a message: the default
 * pool and the direct allocator take their memory from cudaMalloc, which can.
 *
 * Closing: an opened array's release runs in stream order, inside a stream callback where
 * no CUDA call may be made, so the close is queued here and done at the next open and when
 * the context closes. */
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_internal.h"
#include "resident/memory.h"

_Static_assert(sizeof(cudaIpcMemHandle_t) == RS_BE_IPC_BYTES, "a CUDA IPC handle is 64 bytes");

typedef int (*get_range_fn)(unsigned long long *base, size_t *size, unsigned long long ptr);
static get_range_fn range_fn;
static pthread_once_t range_once = PTHREAD_ONCE_INIT;

static void find_range_fn(void) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
      q == cudaDriverEntryPointSuccess)
    range_fn = (get_range_fn)fn;
  else
    (void)cudaGetLastError();
}

rs_status rs_cuda_ipc_mem_export(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset,
                                 size_t *alloc_bytes) {
  RS_CUDA_ENTER(b);
  pthread_once(&range_once, find_range_fn);
  if (!range_fn) return rs_fail(RS_ERR_UNSUPPORTED, "ipc export: the driver has no cuMemGetAddressRange");
  unsigned long long base = 0;
  size_t size = 0;
  int r = range_fn(&base, &size, (unsigned long long)(uintptr_t)ptr);
  if (r != 0)
    return rs_fail(RS_ERR_FOREIGN_MEMORY, "ipc export: cuMemGetAddressRange(%p) failed with CUresult %d "
                   "(not device memory of this process)", ptr, r);
  cudaIpcMemHandle_t h;
  cudaError_t err = cudaIpcGetMemHandle(&h, (void *)(uintptr_t)base);
  if (err != cudaSuccess) {
    rs_status st = rs_cuda_fail(err, "cudaIpcGetMemHandle(%p)", (void *)(uintptr_t)base);
    return rs_fail_prefix(st == RS_ERR_DEVICE ? RS_ERR_UNSUPPORTED : st,
                          "ipc export (memory of the async allocator, cudaMallocAsync, cannot be shared "
                          "this way: use the pool or the direct allocator for arrays you share): ");
  }
  memcpy(handle, &h, sizeof h);
  *offset = (size_t)((uintptr_t)ptr - (uintptr_t)base);
  *alloc_bytes = size;
  return RS_OK;
}

void rs_cuda_ipc_drain(rs_backend *b) {
  pthread_mutex_lock(&b->ipc_lock);
  void **items = b->ipc_closing;
  size_t n = b->ipc_nclosing;
  b->ipc_closing = NULL;
  b->ipc_nclosing = b->ipc_cap = 0;
  pthread_mutex_unlock(&b->ipc_lock);
  if (n && rs_cuda_enter(b) == RS_OK)
    for (size_t i = 0; i < n; i++)
      if (cudaIpcCloseMemHandle(items[i]) != cudaSuccess) (void)cudaGetLastError();
  free(items);
}

rs_status rs_cuda_ipc_mem_open(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base) {
  (void)alloc_bytes;
  rs_cuda_ipc_drain(b);
  RS_CUDA_ENTER(b);
  cudaIpcMemHandle_t h;
  memcpy(&h, handle, sizeof h);
  void *p = NULL;
  cudaError_t err = cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess);
  if (err != cudaSuccess) {
    rs_status st = rs_cuda_fail(err, "cudaIpcOpenMemHandle");
    return rs_fail_prefix(st, "ipc open (a stale handle - the exporter freed the memory or exited - or one "
                              "this process exported itself): ");
  }
  *base = p;
  return RS_OK;
}

rs_status rs_cuda_ipc_mem_close(rs_backend *b, void *base) {
  pthread_mutex_lock(&b->ipc_lock);
  if (b->ipc_nclosing == b->ipc_cap) {
    size_t cap = b->ipc_cap ? b->ipc_cap * 2 : 8;
    void **items = realloc(b->ipc_closing, cap * sizeof *items);
    if (!items) {
      pthread_mutex_unlock(&b->ipc_lock);
      return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "ipc close(%p): no host memory to queue the close", base);
    }
    b->ipc_closing = items;
    b->ipc_cap = cap;
  }
  b->ipc_closing[b->ipc_nclosing++] = base;
  pthread_mutex_unlock(&b->ipc_lock);
  return RS_OK;
}

/* ---- events ---------------------------------------------------------------------------- */

_Static_assert(sizeof(cudaIpcEventHandle_t) == RS_BE_IPC_BYTES, "a CUDA IPC event handle is 64 bytes");

rs_status rs_cuda_ipc_event_export(rs_backend *b, void *ev, unsigned char *handle) {
  RS_CUDA_ENTER(b);
  cudaIpcEventHandle_t h;
  RS_CUDA_CALL(cudaIpcGetEventHandle(&h, (cudaEvent_t)ev),
               "cudaIpcGetEventHandle (the event needs RS_EVENT_INTERPROCESS | RS_EVENT_DISABLE_TIMING)");
  memcpy(handle, &h, sizeof h);
  return RS_OK;
}

rs_status rs_cuda_ipc_event_open(rs_backend *b, const unsigned char *handle, void **ev) {
  RS_CUDA_ENTER(b);
  cudaIpcEventHandle_t h;
  memcpy(&h, handle, sizeof h);
  cudaEvent_t e = NULL;
  RS_CUDA_CALL(cudaIpcOpenEventHandle(&e, h), "cudaIpcOpenEventHandle (a stale handle, or this process's own)");
  *ev = e;
  return RS_OK;
}

/* ---- managed memory --------------------------------------------------------------------- */

/* rs_mem_advice passes through as cudaMemoryAdvise. */
_Static_assert((int)RS_ADVISE_READ_MOSTLY == (int)cudaMemAdviseSetReadMostly &&
                   (int)RS_ADVISE_UNSET_READ_MOSTLY == (int)cudaMemAdviseUnsetReadMostly &&
                   (int)RS_ADVISE_PREFERRED_LOCATION == (int)cudaMemAdviseSetPreferredLocation &&
                   (int)RS_ADVISE_UNSET_PREFERRED_LOCATION == (int)cudaMemAdviseUnsetPreferredLocation &&
                   (int)RS_ADVISE_ACCESSED_BY == (int)cudaMemAdviseSetAccessedBy &&
                   (int)RS_ADVISE_UNSET_ACCESSED_BY == (int)cudaMemAdviseUnsetAccessedBy,
               "the advice values are CUDA's");

static struct cudaMemLocation location(const rs_backend *b, int on_device) {
  struct cudaMemLocation l;
  memset(&l, 0, sizeof l);
  l.type = on_device ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
  l.id = on_device ? b->device : 0;
  return l;
}

rs_status rs_cuda_managed_prefetch(rs_backend *b, const void *ptr, size_t bytes, int to_device, void *stream) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemPrefetchAsync(ptr, bytes, location(b, to_device), 0, (cudaStream_t)stream),
               "cudaMemPrefetchAsync(%p, %zu bytes, to the %s)", ptr, bytes, to_device ? "device" : "host");
  return RS_OK;
}

rs_status rs_cuda_managed_advise(rs_backend *b, const void *ptr, size_t bytes, int advice, int on_device) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemAdvise(ptr, bytes, (enum cudaMemoryAdvise)advice, location(b, on_device)),
               "cudaMemAdvise(%p, %zu bytes, advice %d, for the %s)", ptr, bytes, advice,
               on_device ? "device" : "host");
  return RS_OK;
}
