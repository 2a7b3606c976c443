/* sort and argsort along the last axis: the backend sorts C-contiguous rows; views are
 * gathered into a contiguous temporary first (and a non-contiguous out is filled from
 * one after). */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/sort.h"
#include "transfer/copy.h"

static rs_status sort_impl(rs_array **out, const rs_array *a, int argsort, rs_stream *stream) {
  const char *name = argsort ? "argsort" : "sort";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", name);
  RS_TRY(rs_array_check(a, name));
  if (rs_dtype_is_complex(a->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", name,
                   rs_dtype_name(a->dtype));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis to sort along", name);
  rs_context *ctx = a->ctx;
  rs_dtype rdt = argsort ? RS_INT64 : a->dtype;
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, out, ctx, rs_ops_on_device(a), a->ndim, a->shape, rdt, RS_ORDER_C,
                             RS_OPS_CAST_EXACT, name));
  rs_array *target = r.target;
  int64_t n = a->shape[a->ndim - 1], size = rs_array_size(a);
  rs_status st = RS_OK;
  rs_array *src = NULL, *dst = NULL;
  if (size > 0) {
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
      rs_copy_cause cause = {1, name, -1};
      st = rs_copy_path(target, dst, stream, &cause);
    }
    rs_array_release(src);
    rs_array_release(dst);
  }
  return rs_ops_result_end(&r, st);
}

RS_OPS_PAIR(rs_sort, (const rs_array *a, rs_stream *stream), sort_impl, (a, 0, stream))
RS_OPS_PAIR(rs_argsort, (const rs_array *a, rs_stream *stream), sort_impl, (a, 1, stream))
