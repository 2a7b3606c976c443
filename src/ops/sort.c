/* sort and argsort along any axis: the backend sorts C-contiguous rows; the axis is moved
 * last by a view, views are gathered into a contiguous temporary first (and a
 * non-contiguous out is filled from one after). */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/axis_view.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/sort.h"
#include "transfer/copy.h"

/* Sort the rows (last axis) of a into target (same shape, a view of the result). */
static rs_status sort_last(rs_array *target, const rs_array *a, int argsort, rs_stream *stream, const char *name) {
  rs_context *ctx = a->ctx;
  rs_dtype rdt = argsort ? RS_INT64 : a->dtype;
  int64_t n = a->shape[a->ndim - 1], size = rs_array_size(a);
  rs_status st = RS_OK;
  rs_array *src = NULL, *dst = NULL;
  /* the rows must be contiguous: gather a view first; sort straight into out when it is
   * contiguous, else into a private copy or a temporary, copied to out below */
  if (rs_array_is_c_contiguous(a)) {
    src = (rs_array *)(uintptr_t)a;
    rs_array_retain(src);
  } else { /* a C-ordered copy (rs_copy alone would keep an F layout) */
    st = rs_ops_alloc(&src, ctx, rs_ops_on_device(a), a->ndim, a->shape, a->dtype, RS_ORDER_C, name);
    if (st == RS_OK) st = rs_copy_into(src, a, stream);
  }
  if (st == RS_OK) {
    if (rs_array_is_c_contiguous(target)) {
      dst = target;
      rs_array_retain(dst);
    } else if (!argsort && src != a) {
      dst = src;
      rs_array_retain(dst);
    } else {
      st = rs_ops_alloc(&dst, ctx, rs_ops_on_device(target), a->ndim, a->shape, rdt, RS_ORDER_C, name);
    }
  }
  if (st == RS_OK) {
    rs_ops_stage s;
    const rs_array *in[1] = {src};
    st = rs_ops_stage_begin(&s, name, ctx, stream, 1, in, 1, &dst);
    if (st == RS_OK) {
      rs_sort_plan p = {a->dtype, argsort, size / n, n, NULL, NULL, NULL};
      p.src = rs_ops_stage_ptr(&s, 0);
      if (argsort)
        p.indices = (int64_t *)(void *)rs_ops_stage_ptr(&s, 1);
      else
        p.dst = rs_ops_stage_ptr(&s, 1);
      st = s.ops->sort(s.be, &p, s.stream);
      st = rs_ops_stage_end(&s, st);
    }
  }
  if (st == RS_OK && dst != target) {
    rs_copy_cause cause = RS_IMPLICIT(name, -1);
    st = rs_copy_path(target, dst, stream, &cause);
  }
  rs_array_release(src);
  rs_array_release(dst);
  return st;
}

/* Sort along `axis`: the axis is moved last (a view of the input and one of the result),
 * so the rows sorter serves every axis. Descending is the array API's stable descending
 * order (array_api_compat's for NumPy: the reverse of the ascending sort of the reversed
 * axis, so NaNs come first and equal elements keep their order): values are sorted
 * ascending into the reversed result; indices of the reversed input are written reversed
 * and turned into n-1-i. */
static rs_status sort_impl(rs_array **out, const rs_array *a, int axis, int descending, int stable, int argsort,
                           rs_stream *stream) {
  const char *name = argsort ? "argsort" : "sort";
  (void)stable; /* every sort here is stable */
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", name);
  RS_TRY(rs_array_check(a, name));
  if (rs_dtype_is_complex(a->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", name,
                   rs_dtype_name(a->dtype));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis to sort along", name);
  int ax = axis;
  RS_TRY(rs_ops_axis(&ax, a->ndim, name));
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, out, a->ctx, rs_ops_on_device(a), a->ndim, a->shape, argsort ? RS_INT64 : a->dtype,
                             RS_ORDER_C, RS_OPS_CAST_EXACT, name));
  rs_status st = RS_OK;
  if (rs_array_size(a) > 0) {
    int last = a->ndim - 1;
    int64_t n = a->shape[ax];
    rs_array *av = NULL, *tv = NULL, *fa = NULL, *ft = NULL;
    st = rs_ops_axis_last(&av, a, ax);
    if (st == RS_OK) st = rs_ops_axis_last(&tv, r.target, ax);
    if (st == RS_OK && descending) st = rs_ops_axis_flip(&ft, tv, last);
    if (st == RS_OK && descending && argsort) st = rs_ops_axis_flip(&fa, av, last);
    if (st == RS_OK) st = sort_last(descending ? ft : tv, fa ? fa : av, argsort, stream, name);
    if (st == RS_OK && descending && argsort)
      st = rs_scalar_binary_into(tv, RS_OP_SUBTRACT, rs_scalar_int(n - 1), tv, stream);
    rs_array_release(av);
    rs_array_release(tv);
    rs_array_release(fa);
    rs_array_release(ft);
  }
  return rs_ops_result_end(&r, st);
}

RS_OPS_PAIR(rs_sort, (const rs_array *a, rs_stream *stream), sort_impl, (a, -1, 0, 1, 0, stream))
RS_OPS_PAIR(rs_argsort, (const rs_array *a, rs_stream *stream), sort_impl, (a, -1, 0, 1, 1, stream))
#define AXIS_SORT_ (const rs_array *a, int axis, int descending, int stable, rs_stream *stream)
RS_OPS_PAIR(rs_sort_axis, AXIS_SORT_, sort_impl, (a, axis, descending, stable, 0, stream))
RS_OPS_PAIR(rs_argsort_axis, AXIS_SORT_, sort_impl, (a, axis, descending, stable, 1, stream))
