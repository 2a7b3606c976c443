/* The user allocator on its own: every request goes to the application's functions.
 * They need not know about streams, so a free waits (on the host) for the other streams
 * the memory was used on before it is handed back. */
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

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
