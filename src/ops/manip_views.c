/* The standard's manipulation functions that are views: expand_dims and squeeze with
 * several axes, permute_dims, moveaxis, broadcast_to, broadcast_arrays, unstack. They never
 * copy: each builds a shape and strides over the same buffer. */
#include <string.h>
#include "core/error.h"
#include "core/layout.h"
#include "ops/manip_internal.h"

rs_status rs_array_expand_dims_axes(rs_array **out, const rs_array *a, int naxes, const int *axes) {
  const char *who = "expand_dims";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_array_check(a, who));
  if (naxes < 0 || a->ndim + naxes > RS_MAX_DIMS)
    return rs_fail(naxes < 0 ? RS_ERR_INVALID_ARGUMENT : RS_ERR_TOO_MANY_DIMS,
                   "%s: %d new axes for %d dimensions (at most %d in all)", who, naxes, a->ndim, RS_MAX_DIMS);
  int nd = a->ndim + naxes, norm[RS_MAX_DIMS], isnew[RS_MAX_DIMS] = {0};
  RS_TRY(rs_manip_axes(norm, naxes, axes, nd, 0, who));
  for (int i = 0; i < naxes; i++) isnew[norm[i]] = 1;
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int k = 0, j = 0; k < nd; k++) {
    if (isnew[k]) {
      shape[k] = 1; /* a stride never used: the item size */
      strides[k] = (int64_t)rs_dtype_size(a->dtype);
    } else {
      shape[k] = a->shape[j];
      strides[k] = a->strides[j++];
    }
  }
  return rs_manip_view(out, a, nd, shape, strides, 0);
}

rs_status rs_array_squeeze_axes(rs_array **out, const rs_array *a, int naxes, const int *axes) {
  const char *who = "squeeze";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_array_check(a, who));
  int norm[RS_MAX_DIMS], drop[RS_MAX_DIMS] = {0};
  RS_TRY(rs_manip_axes(norm, naxes, axes, a->ndim, 0, who));
  for (int i = 0; i < naxes; i++) {
    if (a->shape[norm[i]] != 1)
      return rs_fail(RS_ERR_SHAPE, "%s: axis %d has length %lld, not 1", who, axes[i], (long long)a->shape[norm[i]]);
    drop[norm[i]] = 1;
  }
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  int nd = 0;
  for (int k = 0; k < a->ndim; k++) {
    if (drop[k]) continue;
    shape[nd] = a->shape[k];
    strides[nd++] = a->strides[k];
  }
  return rs_manip_view(out, a, nd, shape, strides, 0);
}

rs_status rs_array_permute_dims(rs_array **out, const rs_array *a, const int *axes) {
  return rs_array_permute(out, a, axes);
}

rs_status rs_array_moveaxis(rs_array **out, const rs_array *a, int naxes, const int *source,
                            const int *destination) {
  const char *who = "moveaxis";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_array_check(a, who));
  int src[RS_MAX_DIMS], dst[RS_MAX_DIMS];
  RS_TRY(rs_manip_axes(src, naxes, source, a->ndim, 0, who));
  RS_TRY(rs_manip_axes(dst, naxes, destination, a->ndim, 0, who));
  /* NumPy's order: the axes not moved keep their order in the free places */
  int perm[RS_MAX_DIMS], taken[RS_MAX_DIMS] = {0}, moved[RS_MAX_DIMS] = {0};
  for (int k = 0; k < a->ndim; k++) perm[k] = -1;
  for (int i = 0; i < naxes; i++) {
    perm[dst[i]] = src[i];
    taken[dst[i]] = 1;
    moved[src[i]] = 1;
  }
  for (int k = 0, next = 0; k < a->ndim; k++) {
    if (taken[k]) continue;
    while (moved[next]) next++;
    perm[k] = next++;
  }
  return rs_array_permute(out, a, perm);
}

/* Strides of a seen from shape (right-aligned, 0 on broadcast axes), or a failure. */
static rs_status broadcast_view(rs_array **out, const rs_array *a, int ndim, const int64_t *shape, const char *who) {
  char have[512], want[512];
  if (ndim < a->ndim)
    return rs_fail(RS_ERR_BROADCAST, "%s: cannot broadcast shape %s to %s (fewer dimensions)", who,
                   rs_ops_shape_str(have, sizeof have, a->ndim, a->shape), rs_ops_shape_str(want, sizeof want, ndim, shape));
  int64_t strides[RS_MAX_DIMS];
  for (int k = 0; k < ndim; k++) {
    int ka = k - (ndim - a->ndim);
    if (shape[k] < 0)
      return rs_fail(RS_ERR_SHAPE, "%s: length %lld of axis %d is negative", who, (long long)shape[k], k);
    if (ka < 0) {
      strides[k] = 0;
    } else if (a->shape[ka] == shape[k]) {
      strides[k] = a->strides[ka];
    } else if (a->shape[ka] == 1) {
      strides[k] = 0;
    } else {
      return rs_fail(RS_ERR_BROADCAST, "%s: cannot broadcast shape %s to %s", who,
                     rs_ops_shape_str(have, sizeof have, a->ndim, a->shape),
                     rs_ops_shape_str(want, sizeof want, ndim, shape));
    }
  }
  int64_t count = 0;
  RS_TRY(rs_layout_count(&count, ndim, shape, who));
  return rs_manip_view(out, a, ndim, shape, strides, 0);
}

rs_status rs_array_broadcast_to(rs_array **out, const rs_array *a, int ndim, const int64_t *shape) {
  const char *who = "broadcast_to";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_array_check(a, who));
  if (ndim < 0 || ndim > RS_MAX_DIMS)
    return rs_fail(ndim < 0 ? RS_ERR_INVALID_ARGUMENT : RS_ERR_TOO_MANY_DIMS, "%s: %d dimensions (0..%d allowed)",
                   who, ndim, RS_MAX_DIMS);
  if (ndim > 0 && !shape) return rs_fail(RS_ERR_NULL_POINTER, "%s: shape is NULL", who);
  return broadcast_view(out, a, ndim, shape, who);
}

rs_status rs_array_broadcast_arrays(rs_array **outs, int n, const rs_array *const *arrays) {
  const char *who = "broadcast_arrays";
  if (!outs) return rs_fail(RS_ERR_NULL_POINTER, "%s: outs is NULL", who);
  if (n < 1) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d arrays (at least 1)", who, n);
  if (!arrays) return rs_fail(RS_ERR_NULL_POINTER, "%s: arrays is NULL", who);
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, n, arrays, who));
  int ndim = 0;
  int64_t shape[RS_MAX_DIMS];
  RS_TRY(rs_ops_broadcast(&ndim, shape, n, arrays, who));
  for (int i = 0; i < n; i++) {
    rs_status st = broadcast_view(&outs[i], arrays[i], ndim, shape, who);
    if (st == RS_OK) continue;
    for (int j = 0; j < i; j++) rs_array_release(outs[j]);
    return st;
  }
  return RS_OK;
}

rs_status rs_array_unstack(rs_array **outs, int64_t nouts, const rs_array *a, int axis) {
  const char *who = "unstack";
  if (!outs) return rs_fail(RS_ERR_NULL_POINTER, "%s: outs is NULL", who);
  RS_TRY(rs_array_check(a, who));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis to split", who);
  RS_TRY(rs_ops_axis(&axis, a->ndim, who));
  if (nouts != a->shape[axis])
    return rs_fail(RS_ERR_SHAPE, "%s: axis %d has length %lld, outs has room for %lld", who, axis,
                   (long long)a->shape[axis], (long long)nouts);
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int k = 0, j = 0; k < a->ndim; k++) {
    if (k == axis) continue;
    shape[j] = a->shape[k];
    strides[j++] = a->strides[k];
  }
  for (int64_t i = 0; i < nouts; i++) {
    rs_status st = rs_manip_view(&outs[i], a, a->ndim - 1, shape, strides, i * a->strides[axis]);
    if (st == RS_OK) continue;
    for (int64_t j = 0; j < i; j++) rs_array_release(outs[j]);
    return st;
  }
  return RS_OK;
}
