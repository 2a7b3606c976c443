/* concat, stack, flip and roll: each a few copies through rs_manip_copy (the backend's
 * strided copy, or rs_copy_into for a cast or a broadcast) between views of the inputs
 * and of the result. */
#include <string.h>
#include "core/checked.h"
#include "core/dtype_rules.h"
#include "core/error.h"
#include "ops/into.h"
#include "ops/manip_internal.h"

/* n >= 1 valid arrays; their promoted dtype. */
static rs_status check_list(rs_dtype *dt, int n, const rs_array *const *arrays, const char *who) {
  if (n < 1) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d arrays (at least 1)", who, n);
  if (!arrays) return rs_fail(RS_ERR_NULL_POINTER, "%s: arrays is NULL", who);
  for (int i = 0; i < n; i++) {
    rs_status st = rs_array_check(arrays[i], who);
    if (st != RS_OK) return rs_fail_prefix(st, "array %d: ", i);
    *dt = i == 0 ? arrays[0]->dtype : rs_promote(*dt, arrays[i]->dtype);
  }
  return RS_OK;
}

/* Every array of arrays has arrays[0]'s shape, except along axis `skip` (-1: none). */
static rs_status same_shapes(int n, const rs_array *const *arrays, int skip, const char *who) {
  const rs_array *a0 = arrays[0];
  for (int i = 1; i < n; i++) {
    const rs_array *a = arrays[i];
    if (a->ndim != a0->ndim)
      return rs_fail(RS_ERR_SHAPE, "%s: array 0 has %d dimensions and array %d has %d", who, a0->ndim, i, a->ndim);
    for (int k = 0; k < a0->ndim; k++)
      if (k != skip && a->shape[k] != a0->shape[k])
        return rs_fail(RS_ERR_SHAPE, "%s: along axis %d, array 0 has length %lld and array %d has %lld", who, k,
                       (long long)a0->shape[k], i, (long long)a->shape[k]);
  }
  return RS_OK;
}

static rs_status concat(rs_array **io, int n, const rs_array *const *arrays, int axis, rs_stream *stream) {
  const char *who = "concat";
  rs_dtype dt = RS_FLOAT64;
  RS_TRY(check_list(&dt, n, arrays, who));
  int flat = axis == RS_ALL_AXES, ndim = 1;
  int64_t shape[RS_MAX_DIMS] = {0};
  if (!flat) {
    if (arrays[0]->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: 0-d arrays cannot be joined along an axis", who);
    RS_TRY(rs_ops_axis(&axis, arrays[0]->ndim, who));
    RS_TRY(same_shapes(n, arrays, axis, who));
    ndim = arrays[0]->ndim;
    memcpy(shape, arrays[0]->shape, (size_t)ndim * sizeof *shape);
    shape[axis] = 0;
  }
  int ax = flat ? 0 : axis;
  for (int i = 0; i < n; i++) {
    int64_t len = flat ? rs_array_size(arrays[i]) : arrays[i]->shape[axis];
    if (rs_add_i64(shape[ax], len, &shape[ax])) return rs_fail(RS_ERR_OVERFLOW, "%s: the result's length overflows", who);
  }
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, n, arrays, ndim, shape, dt, 0, stream, who));
  rs_status st = RS_OK;
  int64_t off = 0;
  for (int i = 0; i < n && st == RS_OK; i++) {
    const rs_array *a = arrays[i];
    int64_t len = flat ? rs_array_size(a) : a->shape[axis];
    rs_array *part = NULL, *shaped = NULL;
    st = rs_manip_range(&part, m.target, ax, off, len);
    if (st == RS_OK && flat) { /* a 1-d piece of the result seen in a's shape */
      st = rs_array_reshape(&shaped, part, a->ndim, a->shape);
      rs_array_release(part);
      part = shaped;
    }
    if (st == RS_OK && len > 0) st = rs_manip_copy(part, a, stream);
    rs_array_release(part);
    off += len;
  }
  return rs_manip_end(&m, st);
}

static rs_status stack(rs_array **io, int n, const rs_array *const *arrays, int axis, rs_stream *stream) {
  const char *who = "stack";
  rs_dtype dt = RS_FLOAT64;
  RS_TRY(check_list(&dt, n, arrays, who));
  RS_TRY(same_shapes(n, arrays, -1, who));
  int nd = arrays[0]->ndim;
  if (nd + 1 > RS_MAX_DIMS) return rs_fail(RS_ERR_TOO_MANY_DIMS, "%s: the result would have %d dimensions", who, nd + 1);
  RS_TRY(rs_ops_axis(&axis, nd + 1, who));
  int64_t shape[RS_MAX_DIMS];
  for (int k = 0, j = 0; k <= nd; k++) shape[k] = k == axis ? n : arrays[0]->shape[j++];
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, n, arrays, nd + 1, shape, dt, 0, stream, who));
  rs_status st = RS_OK;
  for (int i = 0; i < n && st == RS_OK; i++) {
    rs_array *part = NULL, *slot = NULL;
    st = rs_manip_range(&part, m.target, axis, i, 1);
    if (st == RS_OK) st = rs_array_squeeze(&slot, part, axis);
    if (st == RS_OK) st = rs_manip_copy(slot, arrays[i], stream);
    rs_array_release(slot);
    rs_array_release(part);
  }
  return rs_manip_end(&m, st);
}

static rs_status flip(rs_array **io, const rs_array *a, int naxes, const int *axes, rs_stream *stream) {
  const char *who = "flip";
  RS_TRY(rs_array_check(a, who));
  int norm[RS_MAX_DIMS];
  if (!axes) {
    naxes = a->ndim;
    for (int k = 0; k < naxes; k++) norm[k] = k;
  } else {
    RS_TRY(rs_manip_axes(norm, naxes, axes, a->ndim, 0, who));
  }
  /* a seen backwards along those axes: negative strides from the last element */
  int64_t strides[RS_MAX_DIMS], off = 0;
  memcpy(strides, a->strides, (size_t)a->ndim * sizeof *strides);
  int empty = rs_array_size(a) == 0;
  for (int i = 0; i < naxes && !empty; i++) {
    int k = norm[i];
    off += (a->shape[k] - 1) * a->strides[k];
    strides[k] = -a->strides[k];
  }
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, 1, &a, a->ndim, a->shape, a->dtype, 0, stream, who));
  rs_array *rev = NULL;
  rs_status st = rs_manip_view(&rev, a, a->ndim, a->shape, strides, off);
  if (st == RS_OK && !empty) st = rs_manip_copy(m.target, rev, stream);
  rs_array_release(rev);
  return rs_manip_end(&m, st);
}

/* The block of `v` that starts at start[k] with count[k] elements along each axis. */
static rs_status block(rs_array **out, const rs_array *v, const int64_t *start, const int64_t *count) {
  int64_t off = 0;
  for (int k = 0; k < v->ndim; k++) off += start[k] * v->strides[k];
  return rs_manip_view(out, v, v->ndim, count, v->strides, off);
}

/* dst = src rolled by shift[k] along every axis: per axis the two pieces [0, L-s) ->
 * [s, L) and [L-s, L) -> [0, s), so 2^r block copies for r rolled axes. */
static rs_status roll_blocks(rs_array *dst, const rs_array *src, const int64_t *shift, rs_stream *stream) {
  int nd = src->ndim, rolled[RS_MAX_DIMS], r = 0;
  for (int k = 0; k < nd; k++)
    if (shift[k] != 0) rolled[r++] = k;
  if (r == 0) return rs_manip_copy(dst, src, stream);
  rs_status st = RS_OK;
  for (uint64_t mask = 0; mask < (1ull << r) && st == RS_OK; mask++) {
    int64_t s0[RS_MAX_DIMS] = {0}, d0[RS_MAX_DIMS] = {0}, cnt[RS_MAX_DIMS];
    memcpy(cnt, src->shape, (size_t)nd * sizeof *cnt);
    int skip = 0;
    for (int j = 0; j < r; j++) {
      int k = rolled[j];
      int64_t len = src->shape[k], s = shift[k];
      if (mask >> j & 1) { /* the tail wraps to the front */
        s0[k] = len - s, d0[k] = 0, cnt[k] = s;
      } else {
        s0[k] = 0, d0[k] = s, cnt[k] = len - s;
      }
      skip |= cnt[k] == 0;
    }
    if (skip) continue;
    rs_array *sv = NULL, *dv = NULL;
    st = block(&sv, src, s0, cnt);
    if (st == RS_OK) st = block(&dv, dst, d0, cnt);
    if (st == RS_OK) st = rs_manip_copy(dv, sv, stream);
    rs_array_release(sv);
    rs_array_release(dv);
  }
  return st;
}

static rs_status roll(rs_array **io, const rs_array *a, int nshifts, const int64_t *shifts, const int *axes,
                      rs_stream *stream) {
  const char *who = "roll";
  RS_TRY(rs_array_check(a, who));
  if (!shifts) return rs_fail(RS_ERR_NULL_POINTER, "%s: shifts is NULL", who);
  int flat = axes == NULL, norm[RS_MAX_DIMS];
  if (flat && nshifts != 1)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d shifts for the flattened array (1 needed)", who, nshifts);
  if (!flat) RS_TRY(rs_manip_axes(norm, nshifts, axes, a->ndim, 1, who));
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, 1, &a, a->ndim, a->shape, a->dtype, flat, stream, who));
  rs_status st = RS_OK;
  const rs_array *src = a;
  rs_array *dense = NULL, *src1 = NULL, *dst1 = NULL;
  int64_t shift[RS_MAX_DIMS] = {0};
  if (flat) { /* both seen as 1-d; the target is C-contiguous (rs_manip_begin) */
    int64_t n = rs_array_size(a);
    if (!rs_array_is_c_contiguous(a)) st = rs_copy(&dense, a, stream);
    if (st == RS_OK) st = rs_array_reshape(&src1, dense ? dense : a, 1, &n);
    if (st == RS_OK) st = rs_array_reshape(&dst1, m.target, 1, &n);
    if (st == RS_OK && n > 0) shift[0] = ((shifts[0] % n) + n) % n;
    src = src1;
  } else {
    for (int i = 0; i < nshifts; i++) {
      int64_t len = a->shape[norm[i]];
      if (len > 0) shift[norm[i]] = (((shift[norm[i]] + shifts[i] % len) % len) + len) % len;
    }
  }
  if (st == RS_OK && rs_array_size(a) > 0) st = roll_blocks(flat ? dst1 : m.target, src, shift, stream);
  rs_array_release(src1);
  rs_array_release(dst1);
  rs_array_release(dense);
  return rs_manip_end(&m, st);
}

#define LIST_ (int n, const rs_array *const *arrays, int axis, rs_stream *stream)
RS_OPS_PAIR(rs_concat, LIST_, concat, (n, arrays, axis, stream))
RS_OPS_PAIR(rs_stack, LIST_, stack, (n, arrays, axis, stream))
RS_OPS_PAIR(rs_flip, (const rs_array *a, int naxes, const int *axes, rs_stream *stream), flip,
            (a, naxes, axes, stream))
RS_OPS_PAIR(rs_roll, (const rs_array *a, int nshifts, const int64_t *shifts, const int *axes, rs_stream *stream),
            roll, (a, nshifts, shifts, axes, stream))
