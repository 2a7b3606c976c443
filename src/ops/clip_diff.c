/* clip and diff (resident/stats.h), built from elementwise ops and views: clip is one
 * fused expression minimum(maximum(a, lo), hi); diff joins prepend / a / append along the
 * axis (only when asked) and subtracts the shifted views n times - the last difference
 * written straight into the destination. */
#include "core/dtype_rules.h"
#include "core/error.h"
#include "ops/axis_view.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/stats.h"

/* ---- clip ---- */

/* NumPy 2 clamps an integer bound outside an integer array's range to that range (the
 * result keeps the array's dtype) instead of refusing it as other ops do. */
static rs_scalar clamp_bound(rs_scalar s, rs_dtype dt) {
  if (s.kind != RS_SCALAR_INT || !rs_dtype_is_integer(dt)) return s;
  int bits = (int)rs_dtype_size(dt) * 8;
  int64_t lo = rs_dtype_is_signed(dt) ? (int64_t)(-(((uint64_t)1) << (bits - 1))) : 0;
  int64_t hi = bits == 64 ? INT64_MAX : rs_dtype_is_signed(dt) ? (int64_t)((((uint64_t)1) << (bits - 1)) - 1)
                                                                 : (int64_t)((((uint64_t)1) << bits) - 1);
  return rs_scalar_int(s.i < lo ? lo : s.i > hi ? hi : s.i);
}

/* A bound as an expression node: the array, the scalar, or -1 for none (0 = absent). */
static int bound(rs_expr *e, const rs_array *arr, const rs_scalar *s, rs_dtype dt, int *node) {
  if (arr) *node = rs_expr_array(e, arr);
  else if (s) *node = rs_expr_scalar(e, clamp_bound(*s, dt));
  else return 0;
  return 1;
}

static rs_status clip_impl(rs_array **io, const rs_array *a, const rs_array *lo, const rs_array *hi,
                           const rs_scalar *lo_s, const rs_scalar *hi_s, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "clip"));
  if (lo) RS_TRY(rs_array_check(lo, "clip (min)"));
  if (hi) RS_TRY(rs_array_check(hi, "clip (max)"));
  if (rs_dtype_is_complex(a->dtype))
    return rs_fail(RS_ERR_DTYPE, "clip: not supported for %s: complex numbers are not ordered", rs_dtype_name(a->dtype));
  rs_expr *e = NULL;
  RS_TRY(rs_expr_create(&e, a->ctx));
  int x = rs_expr_array(e, a), b = -1;
  if (bound(e, lo, lo_s, a->dtype, &b)) x = rs_expr_binary(e, RS_OP_MAXIMUM, x, b);
  if (bound(e, hi, hi_s, a->dtype, &b)) x = rs_expr_binary(e, RS_OP_MINIMUM, x, b);
  rs_status st = *io ? rs_expr_eval_into(*io, e, x, stream) : rs_expr_eval(io, e, x, stream);
  rs_expr_destroy(e);
  return st;
}

#define CLIP_ (const rs_array *a, const rs_array *lo, const rs_array *hi, rs_stream *stream)
#define CLIP_S_ (const rs_array *a, const rs_scalar *lo, const rs_scalar *hi, rs_stream *stream)
RS_OPS_PAIR(rs_clip, CLIP_, clip_impl, (a, lo, hi, NULL, NULL, stream))
RS_OPS_PAIR(rs_clip_scalar, CLIP_S_, clip_impl, (a, NULL, NULL, lo, hi, stream))

/* ---- diff ---- */

/* prepend / append: a's shape except along axis. */
static rs_status check_part(const rs_array *p, const rs_array *a, int ax, const char *what) {
  RS_TRY(rs_array_check(p, what));
  if (p->ctx != a->ctx) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s belongs to another context than the array", what);
  int ok = p->ndim == a->ndim;
  for (int k = 0; ok && k < a->ndim; k++) ok = k == ax || p->shape[k] == a->shape[k];
  if (!ok) return rs_fail(RS_ERR_SHAPE, "%s must have the array's shape except along axis %d", what, ax);
  return RS_OK;
}

/* prepend, a, append joined along ax into a new array (promoted dtype). */
static rs_status join(rs_array **out, const rs_array *a, const rs_array *pre, const rs_array *app, int ax,
                      rs_stream *stream) {
  const rs_array *parts[3] = {pre, a, app};
  int64_t shape[RS_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) shape[k] = a->shape[k];
  shape[ax] = 0;
  rs_dtype dt = a->dtype;
  int dev = 0;
  for (int i = 0; i < 3; i++)
    if (parts[i]) {
      shape[ax] += parts[i]->shape[ax];
      dt = rs_promote(dt, parts[i]->dtype);
      dev |= rs_ops_on_device(parts[i]);
    }
  rs_array *j = NULL;
  RS_TRY(rs_ops_alloc(&j, a->ctx, dev, a->ndim, shape, dt, RS_ORDER_C, "diff"));
  rs_status st = RS_OK;
  int64_t at = 0;
  for (int i = 0; i < 3 && st == RS_OK; i++) {
    if (!parts[i]) continue;
    int64_t len = parts[i]->shape[ax];
    rs_array *v = NULL;
    st = rs_ops_axis_range(&v, j, ax, at, at + len);
    if (st == RS_OK && rs_array_size(v) > 0) st = rs_astype_into(v, parts[i], dt, stream);
    rs_array_release(v);
    at += len;
  }
  if (st == RS_OK) *out = j;
  else rs_array_release(j);
  return st;
}

static rs_status diff_impl(rs_array **io, const rs_array *a, int n, int axis, const rs_array *pre,
                           const rs_array *app, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "diff"));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "diff: a 0-d array has no axis to take differences along");
  if (n < 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "diff: order n = %d must be >= 0", n);
  int ax = axis;
  RS_TRY(rs_ops_axis(&ax, a->ndim, "diff"));
  if (pre) RS_TRY(check_part(pre, a, ax, "diff: prepend"));
  if (app) RS_TRY(check_part(app, a, ax, "diff: append"));
  int64_t len = a->shape[ax] + (pre ? pre->shape[ax] : 0) + (app ? app->shape[ax] : 0);
  int64_t shape[RS_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) shape[k] = a->shape[k];
  shape[ax] = len > n ? len - n : 0;
  if (*io) RS_TRY(rs_ops_check_out(*io, a->ctx, a->ndim, shape, "diff"));
  rs_array *cur = NULL;
  rs_status st = RS_OK;
  if (pre || app) {
    st = join(&cur, a, pre, app, ax, stream);
  } else {
    cur = (rs_array *)(uintptr_t)a;
    rs_array_retain(cur);
  }
  for (int k = 0; st == RS_OK && k < n && cur->shape[ax] > 0; k++) {
    int64_t l = cur->shape[ax];
    int final = k == n - 1 || l == 1; /* the last difference (or an empty one) */
    rs_array *hi = NULL, *lo = NULL, *next = NULL;
    st = rs_ops_axis_range(&hi, cur, ax, 1, l);
    if (st == RS_OK) st = rs_ops_axis_range(&lo, cur, ax, 0, l - 1);
    rs_op op = cur->dtype == RS_BOOL ? RS_OP_NOT_EQUAL : RS_OP_SUBTRACT;
    if (st == RS_OK && final && *io)
      st = rs_binary_into(*io, op, hi, lo, stream);
    else if (st == RS_OK)
      st = rs_binary(&next, op, hi, lo, stream);
    rs_array_release(hi);
    rs_array_release(lo);
    rs_array_release(cur);
    cur = next;
    if (st == RS_OK && final && *io) return RS_OK;
  }
  if (st == RS_OK && *io) st = rs_copy_into(*io, cur, stream); /* n = 0, or no element left */
  if (st == RS_OK && !*io && cur == a) { /* a new array, never the input itself */
    rs_array *c = NULL;
    st = rs_copy(&c, a, stream);
    rs_array_release(cur);
    cur = c;
  }
  if (st == RS_OK && !*io) {
    *io = cur;
    return RS_OK;
  }
  rs_array_release(cur);
  return st;
}

#define DIFF_ (const rs_array *a, int n, int axis, const rs_array *prepend, const rs_array *append, rs_stream *stream)
RS_OPS_PAIR(rs_diff, DIFF_, diff_impl, (a, n, axis, prepend, append, stream))
