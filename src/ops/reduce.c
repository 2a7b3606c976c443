/* Reductions: axes, result dtypes and shapes, then a plan of kept and reduced axes for
 * the backend (src/backend/ops_table.h). */
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/dtype_rules.h"
#include "kernel/kernel_jit.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/reduce.h"
#include "transfer/copy.h"

static const char *const rs_reduce_names[RS_REDUCE_COUNT] = {"sum",    "prod",   "mean", "min", "max",
                                                             "argmin", "argmax", "all",  "any"};

const char *rs_reduce_op_name(rs_reduce_op op) {
  return (unsigned)op < RS_REDUCE_COUNT ? rs_reduce_names[op] : "invalid";
}

/* NumPy's result dtype. */
static rs_status result_dtype(rs_reduce_op op, rs_dtype in, rs_dtype *out) {
  const char *name = rs_reduce_op_name(op);
  switch (op) {
    case RS_REDUCE_SUM:
    case RS_REDUCE_PROD:
      *out = (in == RS_BOOL || rs_dtype_is_signed(in)) ? RS_INT64 : rs_dtype_is_unsigned(in) ? RS_UINT64 : in;
      return RS_OK;
    case RS_REDUCE_MEAN:
      *out = (in == RS_BOOL || rs_dtype_is_integer(in)) ? RS_FLOAT64 : in;
      return RS_OK;
    case RS_REDUCE_MIN:
    case RS_REDUCE_MAX:
      if (rs_dtype_is_complex(in))
        return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", name, rs_dtype_name(in));
      *out = in;
      return RS_OK;
    case RS_REDUCE_ARGMIN:
    case RS_REDUCE_ARGMAX:
      if (rs_dtype_is_complex(in))
        return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", name, rs_dtype_name(in));
      *out = RS_INT64;
      return RS_OK;
    case RS_REDUCE_ALL:
    case RS_REDUCE_ANY:
      *out = RS_BOOL;
      return RS_OK;
    default:
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "reduce: op %d is not an rs_reduce_op", (int)op);
  }
}

/* Fill plan's kept and reduced axes from a (with strides as the backend sees it) and the
 * output (its strides over the kept axes). */
static void make_plan(rs_reduce_plan *p, const rs_array *a, const int64_t *a_strides, const int *reduced,
                      const rs_array *out, const int64_t *out_strides, int keepdims) {
  int oi = 0;
  p->nkeep = p->nred = 0;
  p->n_out = p->n_red = 1;
  for (int k = 0; k < a->ndim; k++) {
    int64_t n = a->shape[k];
    if (reduced[k]) {
      p->n_red *= n;
      if (keepdims) oi++;
      if (n == 1) continue; /* no effect on the C-order position over the reduced axes */
      int j = p->nred - 1;
      if (j >= 0 && rs_stride_follows(p->red_strides[j], a_strides[k], n)) { /* contiguous with the previous: merge */
        p->red_shape[j] *= n;
        p->red_strides[j] = a_strides[k];
        continue;
      }
      p->red_shape[p->nred] = n;
      p->red_strides[p->nred++] = a_strides[k];
    } else {
      p->n_out *= n;
      int64_t os = out_strides[oi++];
      if (n == 1) continue;
      p->keep_shape[p->nkeep] = n;
      p->keep_in_strides[p->nkeep] = a_strides[k];
      p->keep_out_strides[p->nkeep++] = os;
    }
  }
  (void)out;
}

static rs_status reduce(rs_array **out, rs_reduce_op op, const rs_array *a, int naxes, const int *axes, int keepdims,
                        rs_stream *stream) {
  const char *name = rs_reduce_op_name(op);
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", name);
  RS_TRY(rs_array_check(a, name));
  rs_dtype rdt = RS_FLOAT64;
  RS_TRY(result_dtype(op, a->dtype, &rdt));
  int reduced[RS_MAX_DIMS] = {0};
  RS_TRY(rs_ops_reduced_axes(reduced, a->ndim, naxes, axes, name));
  if ((op == RS_REDUCE_ARGMIN || op == RS_REDUCE_ARGMAX) && axes && naxes > 1)
    return rs_fail(RS_ERR_AXIS, "%s: takes one axis or all, not %d", name, naxes);
  int ndim = 0;
  int64_t shape[RS_MAX_DIMS], n_red = 1, n_out = 1;
  for (int k = 0; k < a->ndim; k++) {
    if (reduced[k]) {
      n_red *= a->shape[k];
      if (keepdims) shape[ndim++] = 1;
    } else {
      n_out *= a->shape[k];
      shape[ndim++] = a->shape[k];
    }
  }
  if (n_red == 0 && n_out > 0 && op != RS_REDUCE_SUM && op != RS_REDUCE_PROD && op != RS_REDUCE_MEAN &&
      op != RS_REDUCE_ALL && op != RS_REDUCE_ANY)
    return rs_fail(RS_ERR_SHAPE, "%s: zero-size array to a reduction that has no identity", name);
  rs_context *ctx = a->ctx;
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, out, ctx, rs_ops_on_device(a), ndim, shape, rdt, RS_ORDER_C,
                             RS_OPS_CAST_SAME_KIND, name));
  rs_array *target = r.target, *tmp = NULL;
  rs_status st = RS_OK;
  if (target->buf == a->buf) { /* reducing into the input's own memory: through a temporary */
    st = rs_ops_alloc(&tmp, ctx, rs_ops_on_device(target), ndim, shape, target->dtype, RS_ORDER_C, name);
    target = tmp;
  }
  if (st == RS_OK && n_out > 0) {
    rs_ops_stage s;
    const rs_array *in[1] = {a};
    st = rs_ops_stage_begin(&s, name, ctx, stream, 1, in, 1, &target);
    if (st == RS_OK) {
      rs_reduce_plan p;
      memset(&p, 0, sizeof p);
      p.op = op;
      p.in_dtype = a->dtype;
      p.out_dtype = target->dtype;
      p.in = rs_ops_stage_ptr(&s, 0);
      p.out = rs_ops_stage_ptr(&s, 1);
      make_plan(&p, a, rs_ops_stage_strides(&s, 0), reduced, target, rs_ops_stage_strides(&s, 1), keepdims);
      p.jit = &rs_kernel_jit;
      p.cache_dir = ctx->cfg.cache_dir;
      p.cache_max = ctx->cfg.cache_max;
      st = s.ops->reduce(s.be, &p, s.stream);
      st = rs_ops_stage_end(&s, st);
    }
  }
  if (tmp) {
    if (st == RS_OK) {
      rs_copy_cause cause = RS_IMPLICIT(name, -1);
      st = rs_copy_path(r.target, tmp, stream, &cause);
    }
    rs_array_release(tmp);
  }
  return rs_ops_result_end(&r, st);
}

static rs_status arg_reduce(rs_array **io, rs_reduce_op op, const rs_array *a, int axis, int keepdims,
                            rs_stream *stream) {
  if (axis == RS_ALL_AXES) return reduce(io, op, a, 0, NULL, keepdims, stream);
  return reduce(io, op, a, 1, &axis, keepdims, stream);
}

#define AXES_ (const rs_array *a, int naxes, const int *axes, int keepdims, rs_stream *stream)
#define AXIS_ (const rs_array *a, int axis, int keepdims, rs_stream *stream)
RS_OPS_PAIR(rs_reduce, (rs_reduce_op op, const rs_array *a, int naxes, const int *axes, int keepdims, rs_stream *stream),
            reduce, (op, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_sum, AXES_, reduce, (RS_REDUCE_SUM, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_prod, AXES_, reduce, (RS_REDUCE_PROD, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_mean, AXES_, reduce, (RS_REDUCE_MEAN, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_min, AXES_, reduce, (RS_REDUCE_MIN, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_max, AXES_, reduce, (RS_REDUCE_MAX, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_all, AXES_, reduce, (RS_REDUCE_ALL, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_any, AXES_, reduce, (RS_REDUCE_ANY, a, naxes, axes, keepdims, stream))
RS_OPS_PAIR(rs_argmin, AXIS_, arg_reduce, (RS_REDUCE_ARGMIN, a, axis, keepdims, stream))
RS_OPS_PAIR(rs_argmax, AXIS_, arg_reduce, (RS_REDUCE_ARGMAX, a, axis, keepdims, stream))
