/* What the manipulation ops share: axis lists, the result with its temporary, views. */
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "ops/manip_internal.h"
#include "transfer/copy.h"

rs_status rs_manip_axes(int *norm, int naxes, const int *axes, int ndim, int repeats_ok, const char *who) {
  if (naxes < 0 || naxes > RS_MAX_DIMS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d axes (0..%d allowed)", who, naxes, RS_MAX_DIMS);
  if (naxes > 0 && !axes) return rs_fail(RS_ERR_NULL_POINTER, "%s: axes is NULL", who);
  for (int i = 0; i < naxes; i++) {
    int a = axes[i];
    if (a < -ndim || a >= ndim)
      return rs_fail(RS_ERR_AXIS, "%s: axis %d is out of bounds for an array of dimension %d", who, a, ndim);
    norm[i] = a < 0 ? a + ndim : a;
    for (int j = 0; j < i && !repeats_ok; j++)
      if (norm[j] == norm[i]) return rs_fail(RS_ERR_AXIS, "%s: axis %d is given twice", who, a);
  }
  return RS_OK;
}

/* The byte range of one array inside its buffer overlaps dst's: the same buffer is
 * enough to take the safe road (a temporary costs one more copy, never a wrong result). */
static int shares_buffer(const rs_array *dst, int n, const rs_array *const *in) {
  for (int i = 0; i < n; i++)
    if (in[i]->buf == dst->buf) return 1;
  return 0;
}

rs_status rs_manip_begin(rs_manip_out *m, rs_array **io, int n, const rs_array *const *in, int ndim,
                         const int64_t *shape, rs_dtype dtype, int need_contiguous, rs_stream *stream,
                         const char *who) {
  memset(m, 0, sizeof *m);
  m->stream = stream;
  m->who = who;
  if (!io) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_ops_check_arrays(&m->ctx, n, in, who));
  RS_TRY(rs_ops_result_begin(&m->r, io, m->ctx, rs_ops_any_on_device(n, in), ndim, shape, dtype, RS_ORDER_C,
                             RS_OPS_CAST_SAME_KIND, who));
  m->target = m->r.target;
  if (m->r.fresh) return RS_OK;
  int contiguous = rs_array_is_c_contiguous(m->target);
  if (!shares_buffer(m->target, n, in) && (contiguous || !need_contiguous)) return RS_OK;
  rs_status st = rs_ops_alloc(&m->tmp, m->ctx, rs_ops_on_device(m->target), ndim, shape, dtype, RS_ORDER_C, who);
  if (st != RS_OK) return rs_ops_result_end(&m->r, st);
  m->target = m->tmp;
  return RS_OK;
}

/* A plain move (same dtype and shape, device to device, two buffers) goes down the copy
 * path to the backend's strided copy: on the GPU a kernel built for layouts (aligned
 * 16-byte stores whatever the source's alignment or direction, a broadcast source read
 * once), where the elementwise kernel behind rs_copy_into moves one item per thread and
 * reached 57-88% of the copy bandwidth on tile, repeat, roll and flip (bench/manip.py).
 * Casts, broadcasts, host arrays and one buffer on both sides stay with rs_copy_into,
 * and so does a copy that a transfer guard on device-to-device copies or a graph capture
 * would refuse (the op never asked for a copy of its own). */
rs_status rs_manip_copy(rs_array *dst, const rs_array *src, rs_stream *stream) {
  int plain = dst->dtype == src->dtype && dst->ndim == src->ndim && dst->buf != src->buf && dst->ctx == src->ctx &&
              rs_ops_on_device(dst) && rs_ops_on_device(src);
  for (int k = 0; plain && k < dst->ndim; k++) plain = dst->shape[k] == src->shape[k];
  const rs_copy_cause cause = RS_EXPLICIT("a manipulation op");
  if (plain) {
    void *native = NULL;
    if (rs_stream_resolve(dst->ctx, stream, &native, cause.what) == RS_OK &&
        rs_guard_capture_check(dst->ctx, native, RS_DIR_D2D, 0, &cause) == RS_OK &&
        rs_guard_precheck(dst->ctx, RS_DIR_D2D, rs_array_nbytes(dst), &cause) == RS_OK)
      return rs_copy_path(dst, src, stream, &cause);
    rs_clear_error(); /* a refusal of the copy is no error here: the kernel does it */
  }
  return rs_copy_into(dst, src, stream);
}

rs_status rs_manip_end(rs_manip_out *m, rs_status st) {
  if (m->tmp) {
    if (st == RS_OK) st = rs_manip_copy(m->r.target, m->tmp, m->stream);
    rs_array_release(m->tmp);
    m->tmp = NULL;
  }
  return rs_ops_result_end(&m->r, st);
}

rs_status rs_manip_view(rs_array **out, const rs_array *a, int ndim, const int64_t *shape, const int64_t *strides,
                        int64_t offset) {
  int64_t off = 0;
  if (rs_add_i64(a->offset, offset, &off))
    return rs_fail(RS_ERR_OVERFLOW, "view: the offset overflows int64");
  return rs_array_new_view(out, a, ndim, shape, strides, off);
}

rs_status rs_manip_range(rs_array **out, const rs_array *a, int axis, int64_t start, int64_t count) {
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
  shape[axis] = count;
  int64_t off = 0;
  if (count > 0 && rs_mul_i64(start, a->strides[axis], &off))
    return rs_fail(RS_ERR_OVERFLOW, "view: the offset overflows int64");
  return rs_manip_view(out, a, a->ndim, shape, a->strides, off);
}

rs_status rs_manip_copy_release(rs_array *dst, rs_array *src, rs_status st, rs_stream *stream) {
  if (st == RS_OK) st = rs_manip_copy(dst, src, stream);
  rs_array_release(dst);
  rs_array_release(src);
  return st;
}
