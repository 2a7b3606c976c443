/* Page-locked host memory: pinned arrays and the library's staging buffers. Pinning is
 * slow (cudaHostAlloc maps and locks every page, and cudaFreeHost synchronizes the
 * device), so flag-less requests come from a caching pool of the same design as the
 * device pool. Requests with flags (portable, write-combined, mapped) are rare and get
 * their own allocation. */
#include <stdio.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

rs_status rs_pinned_malloc(rs_context *ctx, size_t bytes, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "pinned allocation: out is NULL");
  *out = NULL;
  if (bytes == 0) return RS_OK;
  if (flags) return ctx->vt->host_alloc(ctx->be, bytes, flags, out);
  rs_memory *m = ctx->mem;
  rs_pool *p = &m->pinned_pool;
  rs_status st = rs_pool_alloc(p, bytes, NULL, out, NULL);
  if (st != RS_ERR_OUT_OF_MEMORY && st != RS_ERR_HOST_OUT_OF_MEMORY) return st;
  /* Cached pinned memory is host memory too: give it back and try once more. */
  (void)rs_pool_trim(p, 1);
  st = rs_pool_alloc(p, bytes, NULL, out, NULL);
  if (st == RS_OK) {
    atomic_fetch_add(&m->oom_recoveries[RS_SPACE_PINNED], 1);
    return RS_OK;
  }
  if (st != RS_ERR_OUT_OF_MEMORY && st != RS_ERR_HOST_OUT_OF_MEMORY) return st;
  atomic_fetch_add(&m->oom_failures[RS_SPACE_PINNED], 1);
  char cause[320];
  snprintf(cause, sizeof cause, "%s", rs_last_error());
  return rs_memory_oom_fail(m, RS_SPACE_PINNED, bytes, cause);
}

rs_status rs_pinned_mfree(rs_context *ctx, void *ptr, size_t bytes, unsigned flags,
                          rs_mem_track *track) {
  rs_mem_uses *uses = track ? track->uses : NULL;
  if (track) {
    track->uses = NULL;
    rs_memory_track_drop(ctx, track);
  }
  if (!ptr || flags) {
    /* Not pooled: cudaFreeHost waits for the device by itself. */
    rs_uses_free(ctx, uses);
    return ptr ? ctx->vt->host_free(ctx->be, ptr) : RS_OK;
  }
  return rs_pool_free(&ctx->mem->pinned_pool, ptr, bytes, NULL, uses, RS_POOL_UNUSED);
}
