/* The allocators that pass each request through to another, over the tracked live set
 * (tracked.c): async, the backend's stream-ordered allocator, and user, the application's
 * functions. */
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

/* The async allocator: the backend's stream-ordered allocation (cudaMallocAsync /
 * cudaFreeAsync). The free is queued on the allocation's stream after that stream has
 * been made to wait for every other stream the memory was used on, so the memory goes
 * back to the CUDA pool exactly when the last work touching it is done - without the
 * host waiting. */
static rs_status rs_obtain_async(void *ctx_arg, size_t bytes, void *stream, void **out) {
  rs_context *ctx = ctx_arg;
  return ctx->vt->device_alloc_async(ctx->be, bytes, stream, out);
}

rs_status rs_async_alloc(rs_memory *m, size_t bytes, void *stream, void **out,
                         rs_mem_event **ready) {
  rs_context *ctx = m->ctx;
  if (ready) *ready = NULL;
  rs_tracked *t = &m->async_live;
  if (!ctx->vt->device_alloc_async)
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "async allocator: the %s backend has no stream-ordered allocation",
                   ctx->vt->name);
  rs_status st = rs_tracked_alloc(t, bytes, NULL, "async", rs_obtain_async, ctx, stream, out);
  if (st == RS_OK && ready) {
    *ready = rs_mem_event_record(ctx, stream);
    /* Without an event, make sure nothing earlier is pending instead. */
    if (!*ready) (void)ctx->vt->stream_synchronize(ctx->be, stream);
  }
  return st;
}

/* Queued on the allocation's stream once it waits for the other streams: no host wait. */
static rs_status give_back_async(rs_context *ctx, void *arg, void *ptr, size_t bytes, void *alloc_stream,
                                 const rs_mem_uses *uses) {
  (void)arg, (void)bytes;
  rs_status st = rs_uses_order_on(ctx, uses, alloc_stream);
  return st == RS_OK ? ctx->vt->device_free_async(ctx->be, ptr, alloc_stream) : st;
}

rs_status rs_async_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses) {
  /* A stream wait captures the event as it is now: the events can be reused at once. */
  return rs_tracked_free(&m->async_live, m->ctx, ptr, bytes, stream, uses, "async", give_back_async, NULL);
}

rs_status rs_async_trim(rs_memory *m) {
  rs_context *ctx = m->ctx;
  if (!ctx->vt->device_async_trim) return RS_OK;
  /* Frees still queued on streams are not in the pool yet: let them land first. */
  RS_TRY(ctx->vt->synchronize(ctx->be));
  return ctx->vt->device_async_trim(ctx->be, 0);
}

void rs_async_stats(rs_memory *m, rs_memory_stats *out) {
  rs_context *ctx = m->ctx;
  rs_tracked_stats(&m->async_live, out);
  out->misses = 0;
  size_t reserved = 0, used = 0;
  if (ctx->vt->device_async_usage &&
      ctx->vt->device_async_usage(ctx->be, &reserved, &used) == RS_OK && reserved >= used) {
    /* The CUDA pool is per device, shared by every user of the default pool. */
    out->cached_bytes = (int64_t)(reserved - used);
    out->reserved_bytes = out->in_use_bytes + out->cached_bytes;
    if (out->reserved_bytes > out->peak_reserved_bytes)
      out->peak_reserved_bytes = out->reserved_bytes;
  }
}

/* The user allocator on its own: every request goes to the application's functions.
 * They need not know about streams, so a free waits (on the host) for the other streams
 * the memory was used on before it is handed back. */
rs_status rs_user_alloc(rs_memory *m, size_t bytes, void *stream, void **out) {
  return rs_tracked_alloc(&m->user_live, bytes, NULL, m->user_name, rs_source_obtain, &m->device_src, stream, out);
}

/* The application's free knows no streams: wait on the host for the other streams first. */
static rs_status give_back_user(rs_context *ctx, void *arg, void *ptr, size_t bytes, void *alloc_stream,
                                const rs_mem_uses *uses) {
  rs_memory *m = arg;
  rs_status st = rs_uses_wait(ctx, uses);
  return st == RS_OK ? rs_source_free(&m->device_src, ptr, bytes, alloc_stream) : st;
}

rs_status rs_user_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses) {
  return rs_tracked_free(&m->user_live, m->ctx, ptr, bytes, stream, uses, m->user_name, give_back_user, m);
}
