/* var and std (resident/stats.h). float32 / float64 reduced over consecutive axes of a
 * contiguous array (axis None included) are one backend op (the GPU reads the input once,
 * the host twice).
 * Everything else is built from the reductions and one fused elementwise expression - the
 * mean over the axes (kept, so it broadcasts), the squared deviations |x - mean|^2 in one
 * pass, their sum over the axes, divided by the degrees of freedom N - correction (and
 * the square root for std). Integers and bool are converted to float64 and float16 to
 * float32 first, so no deviation is computed in a narrow type. */
#include <math.h>
#include "core/dtype_rules.h"
#include "core/error.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/reduce.h"
#include "resident/stats.h"

/* NumPy's result dtype of var / std. */
static rs_dtype var_dtype(rs_dtype in) {
  if (in == RS_COMPLEX64) return RS_FLOAT32;
  if (rs_dtype_is_float(in)) return in;
  return RS_FLOAT64; /* bool, integers, complex128 */
}

/* The reduced axes (checked as the reductions check them), N (their element count), the
 * result's shape, and - when the reduced axes are consecutive (*block) - the element
 * count of the axes after them (*inner). */
static rs_status reduced_count(int64_t *count, int *ndim_out, int64_t *shape, int64_t *out_size, int *block,
                               int64_t *inner, const rs_array *a, int naxes, const int *axes, int keepdims,
                               const char *name) {
  int reduced[RS_MAX_DIMS] = {0};
  RS_TRY(rs_ops_reduced_axes(reduced, a->ndim, naxes, axes, name));
  int64_t n = 1, o = 1;
  int nd = 0;
  for (int k = 0; k < a->ndim; k++) {
    if (reduced[k]) n *= a->shape[k];
    else o *= a->shape[k];
    if (!reduced[k] || keepdims) shape[nd++] = reduced[k] ? 1 : a->shape[k];
  }
  int first = 0, last = a->ndim - 1, gap = 0;
  while (first < a->ndim && !reduced[first]) first++;
  while (last >= 0 && !reduced[last]) last--;
  for (int k = first; k <= last; k++) gap |= !reduced[k];
  *block = first <= last && !gap;
  *inner = 1;
  for (int k = last + 1; k < a->ndim; k++) *inner *= a->shape[k];
  *count = n;
  *ndim_out = nd;
  *out_size = o;
  return RS_OK;
}

/* The squared deviations of x from m (m broadcasts), in one fused pass. */
static rs_status squared_deviations(rs_array **sq, const rs_array *x, const rs_array *m, rs_stream *stream) {
  rs_expr *e = NULL;
  RS_TRY(rs_expr_create(&e, x->ctx));
  int d = rs_expr_binary(e, RS_OP_SUBTRACT, rs_expr_array(e, x), rs_expr_array(e, m)), r;
  if (rs_dtype_is_complex(x->dtype)) {
    int re = rs_expr_unary(e, RS_OP_REAL, d), im = rs_expr_unary(e, RS_OP_IMAG, d);
    r = rs_expr_binary(e, RS_OP_ADD, rs_expr_binary(e, RS_OP_MULTIPLY, re, re), rs_expr_binary(e, RS_OP_MULTIPLY, im, im));
  } else {
    r = rs_expr_binary(e, RS_OP_MULTIPLY, d, d);
  }
  rs_status st = rs_expr_eval(sq, e, r, stream);
  rs_expr_destroy(e);
  return st;
}

/* The common case in one backend op: float32 / float64, C-contiguous, reduced over
 * consecutive axes - an outer x n x inner block, nothing written but the result (the
 * "moments" entry of the op tables: native two-pass loops, one Welford pass on the GPU). */
static rs_status var_block(rs_array **io, const rs_array *a, int64_t outer, int64_t n, int64_t inner,
                           double correction, int take_sqrt, int ndim, const int64_t *shape, rs_stream *stream,
                           const char *name) {
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, io, a->ctx, rs_ops_on_device(a), ndim, shape, a->dtype, RS_ORDER_C,
                             RS_OPS_CAST_SAME_KIND, name));
  rs_array *dst = NULL;
  rs_status st = RS_OK;
  if (rs_array_is_c_contiguous(r.target) && r.target->dtype == a->dtype && r.target->buf != a->buf) {
    dst = r.target;
    rs_array_retain(dst);
  } else { /* a temporary, cast into the destination after */
    st = rs_ops_alloc(&dst, a->ctx, rs_ops_on_device(a), ndim, shape, a->dtype, RS_ORDER_C, name);
  }
  if (st == RS_OK) {
    rs_ops_stage s;
    const rs_array *in[1] = {a};
    st = rs_ops_stage_begin(&s, name, a->ctx, stream, 1, in, 1, &dst);
    if (st == RS_OK) {
      rs_moments_plan p = {a->dtype, a->dtype, outer, n, inner, correction, take_sqrt, rs_ops_stage_ptr(&s, 0),
                           rs_ops_stage_ptr(&s, 1)};
      st = s.ops->moments(s.be, &p, s.stream);
      st = rs_ops_stage_end(&s, st);
    }
  }
  if (st == RS_OK && dst != r.target) st = rs_astype_into(r.target, dst, r.target->dtype, stream);
  rs_array_release(dst);
  return rs_ops_result_end(&r, st);
}

static rs_status var_impl(rs_array **io, const rs_array *a, int naxes, const int *axes, double correction,
                          int keepdims, int take_sqrt, rs_stream *stream) {
  const char *name = take_sqrt ? "std" : "var";
  RS_TRY(rs_array_check(a, name));
  if (!(correction >= 0)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: correction %g must be >= 0", name, correction);
  int64_t count = 0, out_size = 0, shape[RS_MAX_DIMS];
  int ndim = 0, block = 0;
  int64_t inner = 1;
  RS_TRY(reduced_count(&count, &ndim, shape, &out_size, &block, &inner, a, naxes, axes, keepdims, name));
  if (out_size > 0 && !((double)count - correction > 0))
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: correction %g leaves no degrees of freedom for %lld elements per result (NumPy warns "
                   "\"Degrees of freedom <= 0\" and gives inf or NaN)",
                   name, correction, (long long)count);
  rs_dtype rdt = var_dtype(a->dtype);
  rs_dtype wd = rs_dtype_is_complex(a->dtype) ? a->dtype : rdt == RS_FLOAT16 ? RS_FLOAT32 : rdt;
  if (*io) { /* a destination is checked before anything is computed */
    RS_TRY(rs_ops_check_out(*io, a->ctx, ndim, shape, name));
    if (!rs_can_cast_same_kind(rdt, (*io)->dtype))
      return rs_fail(RS_ERR_DTYPE, "%s: a %s result cannot be cast to dst's %s", name, rs_dtype_name(rdt),
                     rs_dtype_name((*io)->dtype));
  }
  if (block && out_size > 0 && count > 0 && rs_array_is_c_contiguous(a) &&
      (a->dtype == RS_FLOAT32 || a->dtype == RS_FLOAT64))
    return var_block(io, a, out_size / inner, count, inner, correction, take_sqrt, ndim, shape, stream, name);
  rs_array *x = NULL, *m = NULL, *sq = NULL, *s = NULL;
  rs_status st = RS_OK;
  if (a->dtype == wd) {
    x = (rs_array *)(uintptr_t)a;
    rs_array_retain(x);
  } else {
    st = rs_astype(&x, a, wd, stream);
  }
  if (st == RS_OK) st = rs_mean(&m, x, naxes, axes, 1, stream);
  if (st == RS_OK) st = squared_deviations(&sq, x, m, stream);
  if (st == RS_OK) st = rs_sum(&s, sq, naxes, axes, keepdims, stream);
  if (st == RS_OK) {
    rs_scalar dof = rs_scalar_float((double)count - correction);
    if (*io) { /* one elementwise pass: s / dof, its root for std, into dst */
      if (!take_sqrt) {
        st = rs_binary_scalar_into(*io, RS_OP_DIVIDE, s, dof, stream);
      } else {
        rs_array *v = NULL;
        st = rs_binary_scalar(&v, RS_OP_DIVIDE, s, dof, stream);
        if (st == RS_OK) st = rs_sqrt_into(*io, v, stream);
        rs_array_release(v);
      }
    } else {
      rs_array *v = NULL;
      st = rs_binary_scalar(&v, RS_OP_DIVIDE, s, dof, stream);
      if (st == RS_OK && take_sqrt) st = rs_sqrt_into(v, v, stream);
      if (st == RS_OK && v->dtype != rdt) {
        rs_array *c = NULL;
        st = rs_astype(&c, v, rdt, stream);
        rs_array_release(v);
        v = c;
      }
      if (st == RS_OK) *io = v;
      else rs_array_release(v);
    }
  }
  rs_array_release(x);
  rs_array_release(m);
  rs_array_release(sq);
  rs_array_release(s);
  return st;
}

#define VAR_ (const rs_array *a, int naxes, const int *axes, double correction, int keepdims, rs_stream *stream)
RS_OPS_PAIR(rs_var, VAR_, var_impl, (a, naxes, axes, correction, keepdims, 0, stream))
RS_OPS_PAIR(rs_std, VAR_, var_impl, (a, naxes, axes, correction, keepdims, 1, stream))
