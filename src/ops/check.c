/* Checks: allclose, assert_allclose (with the worst element in the message) and
 * array_equal. The comparison is one elementwise pass where the data is; reductions find
 * the count, the extremes and the worst element, and only those few values come to the
 * host - each through rs_array_item_to_host, so the ledger shows them. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/ops_internal.h"
#include "resident/reduce.h"

enum { OUT_CLOSE, OUT_EXCESS, OUT_DIFF, OUT_REL, NOUT };

/* close, excess over the tolerance (-inf for equal values, +inf for a NaN mismatch), and
 * the absolute and relative differences with NaN pairs counted as 0. */
static rs_status compare(rs_array **outs, const rs_array *x, const rs_array *y, double rtol, double atol, int equal_nan,
                         rs_stream *stream) {
  const char *who = "allclose";
  /* the handles first: the builder below reads their dtypes */
  RS_TRY(rs_array_check(x, "allclose (actual)"));
  RS_TRY(rs_array_check(y, "allclose (desired)"));
  rs_ew_builder b;
  rs_ewb_init(&b, who);
  rs_dtype wd = (rs_dtype_is_complex(x->dtype) || rs_dtype_is_complex(y->dtype)) ? RS_COMPLEX128 : RS_FLOAT64;
  int xc = rs_ewb_cast(&b, rs_ewb_load(&b, x->dtype), wd);
  int yc = rs_ewb_cast(&b, rs_ewb_load(&b, y->dtype), wd);
  int ad = rs_ewb_unary(&b, RS_OP_ABS, rs_ewb_binary(&b, RS_OP_SUBTRACT, xc, yc));
  int ay = rs_ewb_unary(&b, RS_OP_ABS, yc);
  int tol = rs_ewb_binary(&b, RS_OP_ADD, rs_ewb_const(&b, rs_scalar_float(atol), RS_FLOAT64),
                          rs_ewb_binary(&b, RS_OP_MULTIPLY, rs_ewb_const(&b, rs_scalar_float(rtol), RS_FLOAT64), ay));
  int ex = rs_ewb_binary(&b, RS_OP_SUBTRACT, ad, tol);
  int zero = rs_ewb_const(&b, rs_scalar_float(0), RS_FLOAT64);
  int close = rs_ewb_binary(&b, RS_OP_LOGICAL_OR, rs_ewb_binary(&b, RS_OP_EQUAL, xc, yc),
                            rs_ewb_binary(&b, RS_OP_LESS_EQUAL, ex, zero));
  if (equal_nan)
    close = rs_ewb_binary(&b, RS_OP_LOGICAL_OR, close,
                          rs_ewb_binary(&b, RS_OP_LOGICAL_AND, rs_ewb_unary(&b, RS_OP_ISNAN, xc), rs_ewb_unary(&b, RS_OP_ISNAN, yc)));
  int exnan = rs_ewb_unary(&b, RS_OP_ISNAN, ex);
  int ninf = rs_ewb_const(&b, rs_scalar_float(-INFINITY), RS_FLOAT64);
  int pinf = rs_ewb_const(&b, rs_scalar_float(INFINITY), RS_FLOAT64);
  int excess = rs_ewb_where(&b, close, rs_ewb_where(&b, exnan, ninf, ex), rs_ewb_where(&b, exnan, pinf, ex));
  int diff = rs_ewb_where(&b, rs_ewb_unary(&b, RS_OP_ISNAN, ad), zero, ad);
  int rel0 = rs_ewb_binary(&b, RS_OP_DIVIDE, ad, ay);
  int rel = rs_ewb_where(&b, rs_ewb_unary(&b, RS_OP_ISNAN, rel0), zero, rel0);
  int regs[NOUT] = {close, excess, diff, rel};
  rs_dtype dts[NOUT] = {RS_BOOL, RS_FLOAT64, RS_FLOAT64, RS_FLOAT64};
  for (int i = 0; i < NOUT; i++) RS_TRY(rs_ewb_output(&b, regs[i], dts[i], 0));
  rs_ewb_finish(&b);
  const rs_array *in[2] = {x, y};
  int ndim;
  int64_t shape[RS_MAX_DIMS];
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 2, in, who));
  RS_TRY(rs_ops_broadcast(&ndim, shape, 2, in, who));
  int dev = rs_ops_any_on_device(2, in);
  rs_status st = RS_OK;
  for (int i = 0; i < NOUT && st == RS_OK; i++) st = rs_ops_alloc(&outs[i], ctx, dev, ndim, shape, dts[i], RS_ORDER_C, who);
  if (st == RS_OK) st = rs_ops_run_program(&b.prog, who, ctx, stream, 2, in, NOUT, outs, ndim, shape);
  return st;
}

static double item_d(const rs_array *a, const int64_t *index, rs_stream *stream, rs_status *st) {
  double v = 0;
  if (*st == RS_OK) *st = rs_array_item_double(a, index, &v, stream);
  return v;
}

/* The element of x (broadcast to ndim) at the broadcast index idx. */
static double broadcast_item(const rs_array *x, int ndim, const int64_t *idx, rs_stream *stream, rs_status *st) {
  int64_t xi[RS_MAX_DIMS];
  for (int k = 0; k < x->ndim; k++) {
    int64_t i = idx[ndim - x->ndim + k];
    xi[k] = x->shape[k] == 1 ? 0 : i;
  }
  return item_d(x, x->ndim ? xi : NULL, stream, st);
}

rs_status rs_allclose_report(const rs_array *actual, const rs_array *desired, double rtol, double atol,
                             int equal_nan, rs_close_report *r, rs_stream *stream) {
  if (!r) return rs_fail(RS_ERR_NULL_POINTER, "allclose: report is NULL");
  if (!(rtol >= 0) || !(atol >= 0))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "allclose: rtol (%g) and atol (%g) must be >= 0", rtol, atol);
  memset(r, 0, sizeof *r);
  rs_array *outs[NOUT] = {0}, *notclose = NULL, *red = NULL;
  rs_status st = compare(outs, actual, desired, rtol, atol, equal_nan, stream);
  int64_t total = st == RS_OK ? rs_array_size(outs[OUT_CLOSE]) : 0;
  r->total = total;
  r->close = 1;
  if (st == RS_OK && total > 0) {
    int ndim = outs[OUT_CLOSE]->ndim;
    const int64_t *shape = outs[OUT_CLOSE]->shape;
    r->ndim = ndim;
    st = rs_unary(&notclose, RS_OP_LOGICAL_NOT, outs[OUT_CLOSE], stream);
    if (st == RS_OK) st = rs_sum(&red, notclose, 0, NULL, 0, stream);
    if (st == RS_OK) st = rs_array_item_int64(red, NULL, &r->mismatched, stream);
    rs_array_release(red), red = NULL;
    r->close = r->mismatched == 0;
    int64_t worst = 0;
    if (st == RS_OK) st = rs_argmax(&red, outs[OUT_EXCESS], RS_ALL_AXES, 0, stream);
    if (st == RS_OK) st = rs_array_item_int64(red, NULL, &worst, stream);
    rs_array_release(red), red = NULL;
    for (int k = ndim - 1; k >= 0; k--) {
      r->worst_index[k] = worst % shape[k];
      worst /= shape[k];
    }
    if (st == RS_OK) st = rs_max(&red, outs[OUT_DIFF], 0, NULL, 0, stream);
    r->max_abs_diff = item_d(red, NULL, stream, &st);
    rs_array_release(red), red = NULL;
    if (st == RS_OK) st = rs_max(&red, outs[OUT_REL], 0, NULL, 0, stream);
    r->max_rel_diff = item_d(red, NULL, stream, &st);
    rs_array_release(red), red = NULL;
    r->worst_actual = broadcast_item(actual, ndim, r->worst_index, stream, &st);
    r->worst_desired = broadcast_item(desired, ndim, r->worst_index, stream, &st);
  }
  if (st == RS_OK) {
    char idx[256] = "(";
    size_t used = 1;
    for (int k = 0; k < r->ndim && used < sizeof idx - 24; k++)
      used += (size_t)snprintf(idx + used, sizeof idx - used, "%s%lld", k ? ", " : "", (long long)r->worst_index[k]);
    snprintf(idx + used, sizeof idx - used, ")");
    double allowed = atol + rtol * fabs(r->worst_desired);
    /* (the return value is looked at so that a long message may be cut, knowingly) */
    int w = snprintf(r->message, sizeof r->message,
             "%s to tolerance rtol=%g, atol=%g: mismatched elements %lld / %lld (%.3g%%), max absolute "
             "difference %.6g, max relative difference %.6g; worst element at index %s: actual %.17g, "
             "desired %.17g (difference %.6g, allowed %.6g)",
             r->close ? "Equal" : "Not equal", rtol, atol, (long long)r->mismatched, (long long)r->total,
             r->total ? 100.0 * (double)r->mismatched / (double)r->total : 0.0, r->max_abs_diff, r->max_rel_diff,
             idx, r->worst_actual, r->worst_desired, fabs(r->worst_actual - r->worst_desired), allowed);
    if (w < 0) r->message[0] = '\0';
  }
  for (int i = 0; i < NOUT; i++) rs_array_release(outs[i]);
  rs_array_release(notclose);
  return st;
}

rs_status rs_allclose(const rs_array *actual, const rs_array *desired, double rtol, double atol, int equal_nan,
                      int *result, rs_stream *stream) {
  if (!result) return rs_fail(RS_ERR_NULL_POINTER, "allclose: result is NULL");
  rs_close_report r;
  RS_TRY(rs_allclose_report(actual, desired, rtol, atol, equal_nan, &r, stream));
  *result = r.close;
  return RS_OK;
}

rs_status rs_assert_allclose(const rs_array *actual, const rs_array *desired, double rtol, double atol,
                             rs_stream *stream) {
  RS_TRY(rs_array_check(actual, "assert_allclose"));
  RS_TRY(rs_array_check(desired, "assert_allclose"));
  if (actual->ndim != desired->ndim ||
      memcmp(actual->shape, desired->shape, (size_t)actual->ndim * sizeof(int64_t)) != 0) {
    char sa[512], sd[512];
    return rs_fail(RS_ERR_SHAPE, "assert_allclose: shapes %s (actual) and %s (desired) differ",
                   rs_ops_shape_str(sa, sizeof sa, actual->ndim, actual->shape),
                   rs_ops_shape_str(sd, sizeof sd, desired->ndim, desired->shape));
  }
  rs_close_report r;
  RS_TRY(rs_allclose_report(actual, desired, rtol, atol, 1, &r, stream));
  if (!r.close) return rs_fail(RS_ERR_NOT_CLOSE, "%s", r.message);
  return RS_OK;
}

rs_status rs_array_equal(const rs_array *a, const rs_array *b, int *result, rs_stream *stream) {
  if (!result) return rs_fail(RS_ERR_NULL_POINTER, "array_equal: result is NULL");
  RS_TRY(rs_array_check(a, "array_equal"));
  RS_TRY(rs_array_check(b, "array_equal"));
  if (a->ndim != b->ndim || memcmp(a->shape, b->shape, (size_t)a->ndim * sizeof(int64_t)) != 0) {
    *result = 0;
    return RS_OK;
  }
  rs_array *eq = NULL, *all = NULL;
  rs_status st = rs_binary(&eq, RS_OP_EQUAL, a, b, stream);
  if (st == RS_OK) st = rs_all(&all, eq, 0, NULL, 0, stream);
  int64_t v = 0;
  if (st == RS_OK) st = rs_array_item_int64(all, NULL, &v, stream);
  rs_array_release(eq);
  rs_array_release(all);
  if (st == RS_OK) *result = v != 0;
  return st;
}
