/* repeat and tile: the result seen with one axis split in two, (count, times) for repeat
 * and (times, length) for tile, is one copy from the input seen with stride 0 along the
 * new axis - so a scalar repeat or a tile is a single broadcast copy. */
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "ops/into.h"
#include "ops/manip_internal.h"

/* v with axis k split into (outer, inner): strides (inner * t, t) when dense, or (t, 0)
 * when the inner axis is a broadcast (the source). */
static rs_status split_axis(rs_array **out, const rs_array *v, int k, int64_t outer, int64_t inner, int broadcast) {
  if (v->ndim + 1 > RS_MAX_DIMS) return rs_fail(RS_ERR_TOO_MANY_DIMS, "repeat: %d dimensions leave no room", v->ndim);
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int j = 0; j <= v->ndim; j++) {
    int i = j <= k ? j : j - 1; /* the axis of v */
    if (j == k) {
      shape[j] = outer;
      strides[j] = broadcast ? v->strides[k] : inner * v->strides[k];
    } else if (j == k + 1) {
      shape[j] = inner;
      strides[j] = broadcast ? 0 : v->strides[k];
    } else {
      shape[j] = v->shape[i];
      strides[j] = v->strides[i];
    }
  }
  return rs_manip_view(out, v, v->ndim + 1, shape, strides, 0);
}

/* Copy src[i0:i0+count] along axis, each element `times` times, to dst[off:...]. */
static rs_status repeat_run(rs_array *dst, const rs_array *src, int axis, int64_t i0, int64_t count, int64_t times,
                            int64_t off, rs_stream *stream) {
  rs_array *dpart = NULL, *spart = NULL, *dv = NULL, *sv = NULL;
  rs_status st = rs_manip_range(&dpart, dst, axis, off, count * times);
  if (st == RS_OK) st = rs_manip_range(&spart, src, axis, i0, count);
  if (st == RS_OK) st = split_axis(&dv, dpart, axis, count, times, 0);
  if (st == RS_OK) st = split_axis(&sv, spart, axis, count, times, 1);
  if (st == RS_OK) st = rs_manip_copy(dv, sv, stream);
  rs_array_release(dpart);
  rs_array_release(spart);
  rs_array_release(dv);
  rs_array_release(sv);
  return st;
}

static rs_status repeat(rs_array **io, const rs_array *a, int64_t nrepeats, const int64_t *repeats, int axis,
                        rs_stream *stream) {
  const char *who = "repeat";
  RS_TRY(rs_array_check(a, who));
  if (!repeats) return rs_fail(RS_ERR_NULL_POINTER, "%s: repeats is NULL", who);
  if (nrepeats < 1) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %lld repeat counts (at least 1)", who, (long long)nrepeats);
  for (int64_t i = 0; i < nrepeats; i++)
    if (repeats[i] < 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: repeats[%lld] is %lld, counts must be >= 0", who, (long long)i,
                     (long long)repeats[i]);
  int flat = axis == RS_ALL_AXES;
  if (!flat) {
    if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: axis %d is out of bounds for a 0-d array", who, axis);
    RS_TRY(rs_ops_axis(&axis, a->ndim, who));
  } else {
    axis = 0;
  }
  int64_t len = flat ? rs_array_size(a) : a->shape[axis];
  if (nrepeats != 1 && nrepeats != len)
    return rs_fail(RS_ERR_SHAPE, "%s: %lld repeat counts for an axis of length %lld", who, (long long)nrepeats,
                   (long long)len);
  int64_t total = 0;
  /* One count for all: a product, not a loop over the axis (32M additions cost ~10 ms, more
   * than the copy they size; bench/manip.py found it). */
  if (nrepeats == 1 ? rs_mul_i64(len, repeats[0], &total) != 0 : 0)
    return rs_fail(RS_ERR_OVERFLOW, "%s: the result's length overflows", who);
  for (int64_t i = 0; nrepeats != 1 && i < len; i++)
    if (rs_add_i64(total, repeats[i], &total))
      return rs_fail(RS_ERR_OVERFLOW, "%s: the result's length overflows", who);
  int ndim = flat ? 1 : a->ndim;
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
  shape[axis] = total;
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, 1, &a, ndim, shape, a->dtype, 0, stream, who));
  rs_status st = RS_OK;
  rs_array *dense = NULL, *src1 = NULL;
  const rs_array *src = a;
  if (flat) { /* the flattened input, copied first when its strides cannot be flattened */
    if (!rs_array_is_c_contiguous(a)) st = rs_copy(&dense, a, stream);
    if (st == RS_OK) st = rs_array_reshape(&src1, dense ? dense : a, 1, &len);
    src = src1;
  }
  int64_t off = 0;
  for (int64_t i = 0; i < len && st == RS_OK;) { /* one copy per run of equal counts */
    int64_t times = repeats[nrepeats == 1 ? 0 : i], j = i + 1;
    while (j < len && nrepeats != 1 && repeats[j] == times) j++;
    if (nrepeats == 1) j = len;
    if (times > 0) st = repeat_run(m.target, src, axis, i, j - i, times, off, stream);
    off += (j - i) * times;
    i = j;
  }
  rs_array_release(src1);
  rs_array_release(dense);
  return rs_manip_end(&m, st);
}

static rs_status tile(rs_array **io, const rs_array *a, int nreps, const int64_t *reps, rs_stream *stream) {
  const char *who = "tile";
  RS_TRY(rs_array_check(a, who));
  if (nreps < 0 || nreps > RS_MAX_DIMS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d repetition counts (0..%d allowed)", who, nreps, RS_MAX_DIMS);
  if (nreps > 0 && !reps) return rs_fail(RS_ERR_NULL_POINTER, "%s: reps is NULL", who);
  for (int i = 0; i < nreps; i++)
    if (reps[i] < 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: reps[%d] is %lld, counts must be >= 0", who, i, (long long)reps[i]);
  int d = a->ndim > nreps ? a->ndim : nreps, pa = d - a->ndim, pr = d - nreps;
  int64_t shape[RS_MAX_DIMS], r[RS_MAX_DIMS], as[RS_MAX_DIMS], ast[RS_MAX_DIMS];
  int extra = 0;
  for (int k = 0; k < d; k++) {
    as[k] = k < pa ? 1 : a->shape[k - pa];
    ast[k] = k < pa ? 0 : a->strides[k - pa];
    r[k] = k < pr ? 1 : reps[k - pr];
    if (rs_mul_i64(as[k], r[k], &shape[k])) return rs_fail(RS_ERR_OVERFLOW, "%s: the result's shape overflows", who);
    extra += r[k] != 1 && as[k] != 1; /* axes seen as (times, length) */
  }
  if (d + extra > RS_MAX_DIMS)
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "%s: tiling %d axes of %d needs more than %d dimensions", who, extra, d,
                   RS_MAX_DIMS);
  rs_manip_out m;
  RS_TRY(rs_manip_begin(&m, io, 1, &a, d, shape, a->dtype, 0, stream, who));
  int64_t dsh[RS_MAX_DIMS], dst_st[RS_MAX_DIMS], sst[RS_MAX_DIMS];
  int n = 0;
  const int64_t *tst = m.target->strides;
  for (int k = 0; k < d; k++) {
    if (r[k] != 1 && as[k] != 1) { /* (times, length): the source repeats with stride 0 */
      dsh[n] = r[k], dst_st[n] = as[k] * tst[k], sst[n++] = 0;
      dsh[n] = as[k], dst_st[n] = tst[k], sst[n++] = ast[k];
    } else {
      dsh[n] = shape[k], dst_st[n] = tst[k], sst[n++] = as[k] == 1 ? 0 : ast[k];
    }
  }
  rs_array *dv = NULL, *sv = NULL;
  rs_status st = RS_OK;
  if (rs_array_size(m.target) > 0) {
    st = rs_manip_view(&dv, m.target, n, dsh, dst_st, 0);
    if (st == RS_OK) st = rs_manip_view(&sv, a, n, dsh, sst, 0);
    st = rs_manip_copy_release(dv, sv, st, stream);
  }
  return rs_manip_end(&m, st);
}

RS_OPS_PAIR(rs_repeat, (const rs_array *a, int64_t nrepeats, const int64_t *repeats, int axis, rs_stream *stream),
            repeat, (a, nrepeats, repeats, axis, stream))
RS_OPS_PAIR(rs_tile, (const rs_array *a, int nreps, const int64_t *reps, rs_stream *stream), tile,
            (a, nreps, reps, stream))
