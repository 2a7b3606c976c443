/* The public copy calls: thin wrappers that all go through rs_copy_path. */
#include "core/error.h"
#include "resident/transfer.h"
#include "transfer/copy.h"

/* One explicit copy of src into the new array `made`, handed to *out on success and
 * released on failure. */
static rs_status fill_new(rs_array **out, rs_array *made, const rs_array *src, rs_stream *stream,
                          const char *who) {
  rs_copy_cause cause = RS_EXPLICIT(who);
  rs_status st = rs_copy_path(made, src, stream, &cause);
  if (st != RS_OK) {
    rs_array_release(made);
    return st;
  }
  *out = made;
  return RS_OK;
}

/* A new array like src, made by make_like, filled by an explicit copy unless `copy` is 0;
 * released again if the copy fails, so *out is set only on success. */
static rs_status copy_to_new(rs_array **out, const rs_array *src, rs_stream *stream, int copy, const char *who,
                             rs_status (*make_like)(rs_array **, const rs_array *)) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(rs_array_check(src, who));
  rs_array *made = NULL;
  RS_TRY(make_like(&made, src));
  if (copy) return fill_new(out, made, src, stream, who);
  *out = made;
  return RS_OK;
}

rs_status rs_to_device(rs_array **out, const rs_array *src, unsigned flags, rs_stream *stream) {
  const char *who = "rs_to_device";
  if (out && (flags & ~RS_COPY_NONE)) { /* after the checks copy_to_new makes first */
    *out = NULL;
    RS_TRY(rs_array_check(src, who));
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x (known: RS_COPY_NONE)", who,
                   flags & ~RS_COPY_NONE);
  }
  return copy_to_new(out, src, stream, !(flags & RS_COPY_NONE), who, rs_device_array_like);
}

rs_status rs_asarray(rs_array **out, const rs_array *a, rs_mem_kind where, rs_stream *stream) {
  const char *who = "rs_asarray";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(rs_array_check(a, who));
  if (where < RS_MEM_DEVICE || where > RS_MEM_MANAGED)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: where = %d is not a memory kind", who, (int)where);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(a->ctx, stream, &native, who));
  /* Already there: the same memory under a new handle - nothing moves, nothing is
   * recorded, and writes through either handle are seen by the other. */
  if (a->buf->kind == where) return rs_array_new_view(out, a, a->ndim, a->shape, a->strides, a->offset);
  rs_array *made = NULL;
  RS_TRY(rs_array_alloc_like(&made, a, where, 0, who));
  return fill_new(out, made, a, stream, who);
}

rs_status rs_to_device_into(rs_array *to, const rs_array *src, rs_stream *stream) {
  const char *who = "rs_to_device_into";
  RS_TRY(rs_array_check(to, who));
  if (!rs_kind_on_device(to->buf->kind))
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: the destination is %s memory, not device memory", who,
                   rs_mem_kind_name(to->buf->kind));
  rs_copy_cause cause = RS_EXPLICIT(who);
  return rs_copy_path(to, src, stream, &cause);
}

rs_status rs_copy_to_host(rs_array **out, const rs_array *src, rs_stream *stream) {
  return copy_to_new(out, src, stream, 1, "rs_copy_to_host", rs_host_array_like);
}

rs_status rs_copy_to_host_into(rs_array *dst, const rs_array *src, rs_stream *stream) {
  const char *who = "rs_copy_to_host_into";
  RS_TRY(rs_array_check(dst, who));
  if (rs_kind_on_device(dst->buf->kind) && dst->buf->kind != RS_MEM_MANAGED)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: the destination is device memory, not host-visible", who);
  rs_copy_cause cause = RS_EXPLICIT(who);
  return rs_copy_path(dst, src, stream, &cause);
}

rs_status rs_array_copy(rs_array *dst, const rs_array *src, rs_stream *stream) {
  rs_copy_cause cause = RS_EXPLICIT("rs_array_copy");
  return rs_copy_path(dst, src, stream, &cause);
}
