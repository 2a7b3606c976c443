/* The public memory calls that take a stream handle: raw stream-ordered allocations and
 * wrapping device memory once a stream's work is done. They resolve the handle here, in
 * the stream layer, and hand the memory layer only the backend's stream. */
#include "backend/backend.h"
#include "core/error.h"
#include "memory/buffer.h"
#include "stream/stream.h"

rs_status rs_memory_alloc(void **out, rs_context *ctx, size_t bytes, rs_stream *stream) {
  const char *who = "rs_memory_alloc";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_status st = rs_memory_raw_alloc(ctx, bytes, native, out);
  if (st != RS_OK) return rs_fail_prefix(st, "%s(%zu bytes): ", who, bytes);
  return RS_OK;
}

rs_status rs_memory_free(rs_context *ctx, void *ptr, rs_stream *stream) {
  const char *who = "rs_memory_free";
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (!ptr) return RS_OK;
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_status st = rs_memory_raw_free(ctx, ptr, native);
  if (st != RS_OK) return rs_fail_prefix(st, "%s(%p): ", who, ptr);
  return RS_OK;
}

rs_status rs_device_array_wrap(rs_array **out, rs_context *ctx, void *device_ptr, int ndim,
                               const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                               rs_stream *wait_on, rs_release_fn release, void *user_data) {
  const char *who = "rs_device_array_wrap";
  if (out) *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (wait_on) {
    void *native = NULL;
    RS_TRY(rs_stream_resolve(ctx, wait_on, &native, who));
    RS_TRY(ctx->vt->stream_synchronize(ctx->be, native));
  }
  return rs_array_wrap(out, ctx, RS_MEM_DEVICE, device_ptr, ndim, shape, dtype, strides, release,
                       user_data, who);
}
