/* Stream-ordered allocation on the simulator, as cudaMallocAsync / cudaFreeAsync behave:
 * the allocation is usable by work queued after it, and the free is queued on the stream
 * so it happens when the stream gets there - never under work still using the memory,
 * and without the host waiting.
 *
 * The simulator keeps no cache of its own behind it: memory goes back to the device heap
 * when the queued free runs, so trimming has nothing to do and the pool holds nothing
 * beyond what is in use or about to be freed. */
#include <stdlib.h>
#include "backend/sim/sim_async_alloc.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"

rs_status sim_device_alloc_async(rs_backend *b, size_t bytes, void *stream, void **out) {
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim device_alloc_async", &s));
  /* Memory handed out now is at least as available as stream order requires. */
  return sim_device_alloc(b, bytes, out);
}

typedef struct async_free_task {
  rs_backend *b;
  void *ptr;
} async_free_task;

/* On the stream's worker: sim_device_free does not wait for other streams there. An
 * error cannot be reported from a worker; the memory layer checked the pointer before
 * queueing. */
static void run_async_free(void *arg) {
  async_free_task *t = arg;
  (void)sim_device_free(t->b, t->ptr);
}

rs_status sim_device_free_async(rs_backend *b, void *ptr, void *stream) {
  if (!ptr) return RS_OK;
  if (!rs_sim_is_device_ptr(ptr))
    return rs_fail(RS_ERR_FOREIGN_MEMORY, "sim device_free_async(%p): not device memory", ptr);
  async_free_task *t = malloc(sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim device_free_async: out of host memory");
  t->b = b;
  t->ptr = ptr;
  rs_status st = rs_sim_enqueue(b, stream, run_async_free, t, free);
  if (st != RS_OK) free(t);
  return st;
}

rs_status sim_device_async_trim(rs_backend *b, size_t keep_bytes) {
  (void)b;
  (void)keep_bytes;
  return RS_OK;
}

rs_status sim_device_async_usage(rs_backend *b, size_t *reserved, size_t *used) {
  (void)b;
  /* Nothing is held beyond live allocations: report no cache. */
  *reserved = 0;
  *used = 0;
  return RS_OK;
}
