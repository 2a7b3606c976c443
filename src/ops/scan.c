/* cumulative_sum and cumulative_prod (the array API's, NumPy 2's cumulative_*): the input
 * is gathered (and cast to the accumulator's dtype) into a C-contiguous temporary only
 * when it is not already that, scanned by the backend along the axis where it lies - an
 * outer x n x inner block, no transpose (src/native/native_scan.c; CUB and a column
 * kernel on the GPU) - straight into the result when it can, and written into the
 * result's range after the optional initial value. */
#include "core/dtype_rules.h"
#include "core/error.h"
#include "ops/axis_view.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/stats.h"

/* NumPy's accumulator dtype: bool and signed integers int64, unsigned uint64, the rest
 * their own. */
static rs_dtype scan_dtype(rs_dtype in) {
  if (in == RS_BOOL || rs_dtype_is_signed(in)) return RS_INT64;
  if (rs_dtype_is_unsigned(in)) return RS_UINT64;
  return in;
}

/* Scan av along axis ax into body (the result's range, av's shape), working in wd. */
static rs_status scan_axis(rs_array *body, const rs_array *av, int ax, rs_scan_op op, rs_dtype wd, rs_stream *stream,
                           const char *name) {
  rs_context *ctx = av->ctx;
  rs_array *src = NULL, *dst = NULL;
  rs_status st = RS_OK;
  if (rs_array_is_c_contiguous(av) && av->dtype == wd) {
    src = (rs_array *)(uintptr_t)av;
    rs_array_retain(src);
  } else {
    st = rs_ops_alloc(&src, ctx, rs_ops_on_device(av), av->ndim, av->shape, wd, RS_ORDER_C, name);
    if (st == RS_OK) st = rs_astype_into(src, av, wd, stream);
  }
  /* straight into the result when it has the temporary's layout - and, over the input's
   * own memory, is exactly the input (an in-place scan; a shifted overlap goes through a
   * temporary) */
  int direct = rs_array_is_c_contiguous(body) && body->dtype == wd &&
               (body->buf != av->buf || body->offset == av->offset);
  if (st == RS_OK) {
    if (direct)
      dst = body;
    else if (src != av)
      dst = src; /* scanned in place in the private copy */
    else
      st = rs_ops_alloc(&dst, ctx, rs_ops_on_device(av), av->ndim, av->shape, wd, RS_ORDER_C, name);
    if (dst == body || dst == src) rs_array_retain(dst);
  }
  if (st == RS_OK) {
    rs_ops_stage s;
    const rs_array *in[1] = {src};
    st = rs_ops_stage_begin(&s, name, ctx, stream, 1, in, 1, &dst);
    if (st == RS_OK) {
      int64_t outer = 1, inner = 1;
      for (int k = 0; k < ax; k++) outer *= av->shape[k];
      for (int k = ax + 1; k < av->ndim; k++) inner *= av->shape[k];
      rs_scan_plan p = {op, wd, outer, av->shape[ax], inner, rs_ops_stage_ptr(&s, 0), rs_ops_stage_ptr(&s, 1)};
      st = s.ops->scan(s.be, &p, s.stream);
      st = rs_ops_stage_end(&s, st);
    }
  }
  if (st == RS_OK && !direct) st = rs_astype_into(body, dst, body->dtype, stream);
  rs_array_release(src);
  rs_array_release(dst);
  return st;
}

static rs_status scan_impl(rs_array **out, rs_scan_op op, const rs_array *a, int axis, int include_initial,
                           rs_stream *stream) {
  const char *name = op == RS_SCAN_PROD ? "cumulative_prod" : "cumulative_sum";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", name);
  RS_TRY(rs_array_check(a, name));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis to scan along", name);
  int ax = axis;
  if (axis == RS_ALL_AXES) {
    if (a->ndim != 1)
      return rs_fail(RS_ERR_AXIS, "%s: an axis is required for an array of dimension %d", name, a->ndim);
    ax = 0;
  } else {
    RS_TRY(rs_ops_axis(&ax, a->ndim, name));
  }
  rs_dtype rdt = scan_dtype(a->dtype);
  rs_dtype wd = rdt == RS_FLOAT16 ? RS_FLOAT32 : rdt; /* half is summed in float */
  int init = include_initial != 0;
  int64_t shape[RS_MAX_DIMS], n = a->shape[ax];
  for (int k = 0; k < a->ndim; k++) shape[k] = a->shape[k];
  shape[ax] += init;
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, out, a->ctx, rs_ops_on_device(a), a->ndim, shape, rdt, RS_ORDER_C,
                             RS_OPS_CAST_SAME_KIND, name));
  rs_array *body = NULL, *first = NULL;
  rs_status st = RS_OK;
  if (rs_array_size(a) > 0) {
    st = rs_ops_axis_range(&body, r.target, ax, init, init + n);
    if (st == RS_OK) st = scan_axis(body, a, ax, op, wd, stream, name);
  }
  if (st == RS_OK && init && rs_array_size(r.target) > 0) {
    st = rs_ops_axis_range(&first, r.target, ax, 0, 1);
    if (st == RS_OK) st = rs_full_into(first, rs_scalar_int(op == RS_SCAN_PROD ? 1 : 0), stream);
  }
  rs_array_release(body);
  rs_array_release(first);
  return rs_ops_result_end(&r, st);
}

#define SCAN_ (const rs_array *a, int axis, int include_initial, rs_stream *stream)
RS_OPS_PAIR(rs_cumulative_sum, SCAN_, scan_impl, (RS_SCAN_SUM, a, axis, include_initial, stream))
RS_OPS_PAIR(rs_cumulative_prod, SCAN_, scan_impl, (RS_SCAN_PROD, a, axis, include_initial, stream))
