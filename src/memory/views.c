/* Views that never copy: reshape, ravel, transpose, permute, slice, expand, squeeze. */
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/layout.h"
#include "memory/buffer.h"

/* Resolve a -1 entry and check the element count is unchanged. */
static rs_status rs_reshape_target(int64_t *shape, const rs_array *a, int ndim,
                                   const int64_t *requested) {
  char from[512], to[512];
  int64_t total = 1, known = 1;
  int unknown = -1;
  for (int i = 0; i < a->ndim; i++) total *= a->shape[i];
  for (int i = 0; i < ndim; i++) {
    if (requested[i] == -1) {
      if (unknown >= 0)
        return rs_fail(RS_ERR_SHAPE, "reshape %s->%s: only one dimension can be -1",
                       rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                       rs_layout_shape_str(to, sizeof to, ndim, requested));
      unknown = i;
    } else if (requested[i] < 0) {
      return rs_fail(RS_ERR_SHAPE, "reshape %s->%s: dimension %d is negative",
                     rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                     rs_layout_shape_str(to, sizeof to, ndim, requested), i);
    } else if (rs_mul_i64(known, requested[i], &known)) {
      return rs_fail(RS_ERR_OVERFLOW, "reshape %s->%s: element count overflows",
                     rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                     rs_layout_shape_str(to, sizeof to, ndim, requested));
    }
  }
  if (ndim > 0) memcpy(shape, requested, (size_t)ndim * sizeof *shape);
  if (unknown >= 0) {
    if (known == 0 || total % known != 0)
      return rs_fail(RS_ERR_SHAPE, "reshape %s->%s: %lld elements cannot be split that way",
                     rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                     rs_layout_shape_str(to, sizeof to, ndim, requested), (long long)total);
    shape[unknown] = total / known;
    known = total;
  }
  if (known != total)
    return rs_fail(RS_ERR_SHAPE, "reshape %s->%s: %lld elements cannot become %lld",
                   rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                   rs_layout_shape_str(to, sizeof to, ndim, shape), (long long)total,
                   (long long)known);
  return RS_OK;
}

/* Strides for a C-order reshape without copying, or 0 if the layout cannot express it.
 * Old axes are matched to new axes in groups of equal element count; inside a group
 * the old axes must be laid out contiguously one after another. */
static int rs_reshape_strides(int64_t *nstrides, const rs_array *a, int nd, const int64_t *nshape) {
  size_t item = rs_dtype_size(a->dtype);
  int64_t oshape[RS_MAX_DIMS], ostride[RS_MAX_DIMS];
  int no = 0;
  for (int i = 0; i < a->ndim; i++) {
    if (a->shape[i] == 0) { /* empty: any strides do */
      rs_layout_contiguous_strides(nstrides, nd, nshape, item, RS_ORDER_C, "reshape");
      return 1;
    }
    if (a->shape[i] != 1) {
      oshape[no] = a->shape[i];
      ostride[no] = a->strides[i];
      no++;
    }
  }
  int i = 0, j = 0;
  while (i < no && j < nd) {
    int oi = i, nj = j;
    int64_t op = oshape[i], np = nshape[j];
    while (op != np) {
      if (np < op)
        np *= nshape[++j];
      else
        op *= oshape[++i];
    }
    int64_t next;
    for (int k = oi; k < i; k++)
      if (rs_mul_i64(oshape[k + 1], ostride[k + 1], &next) || ostride[k] != next) return 0;
    nstrides[j] = ostride[i];
    for (int k = j; k > nj; k--)
      if (rs_mul_i64(nstrides[k], nshape[k], &nstrides[k - 1])) return 0;
    i++;
    j++;
  }
  for (; j < nd; j++) nstrides[j] = (int64_t)item; /* trailing axes of length 1 */
  return 1;
}

rs_status rs_array_reshape(rs_array **out, const rs_array *a, int ndim, const int64_t *shape) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "reshape: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "reshape"));
  if (ndim < 0 || ndim > RS_MAX_DIMS)
    return rs_fail(ndim < 0 ? RS_ERR_INVALID_ARGUMENT : RS_ERR_TOO_MANY_DIMS,
                   "reshape: %d dimensions (0..%d allowed)", ndim, RS_MAX_DIMS);
  if (ndim > 0 && !shape) return rs_fail(RS_ERR_NULL_POINTER, "reshape: shape is NULL");
  int64_t nshape[RS_MAX_DIMS], nstrides[RS_MAX_DIMS];
  RS_TRY(rs_reshape_target(nshape, a, ndim, shape));
  if (!rs_reshape_strides(nstrides, a, ndim, nshape)) {
    char from[512], to[512];
    return rs_fail(RS_ERR_NOT_CONTIGUOUS,
                   "reshape %s->%s: the view's strides cannot express the new shape without a "
                   "copy (copy it to a contiguous array first)",
                   rs_layout_shape_str(from, sizeof from, a->ndim, a->shape),
                   rs_layout_shape_str(to, sizeof to, ndim, nshape));
  }
  return rs_array_new_view(out, a, ndim, nshape, nstrides, a->offset);
}

rs_status rs_array_ravel(rs_array **out, const rs_array *a) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "ravel: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "ravel"));
  if (!rs_array_is_c_contiguous(a)) {
    char d[600];
    return rs_fail(RS_ERR_NOT_CONTIGUOUS, "ravel: %s is not C-contiguous",
                   rs_array_describe(a, d, sizeof d));
  }
  int64_t n = rs_array_size(a), stride = (int64_t)rs_dtype_size(a->dtype);
  return rs_array_new_view(out, a, 1, &n, &stride, a->offset);
}

rs_status rs_array_permute(rs_array **out, const rs_array *a, const int *axes) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "permute: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "permute"));
  if (!axes && a->ndim > 0) return rs_fail(RS_ERR_NULL_POINTER, "permute: axes is NULL");
  int seen[RS_MAX_DIMS] = {0};
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int i = 0; i < a->ndim; i++) {
    int ax = axes[i] < 0 ? axes[i] + a->ndim : axes[i];
    if (ax < 0 || ax >= a->ndim)
      return rs_fail(RS_ERR_AXIS, "permute: axis %d is out of range for %d dimensions", axes[i],
                     a->ndim);
    if (seen[ax]++)
      return rs_fail(RS_ERR_AXIS, "permute: axis %d appears twice", ax);
    shape[i] = a->shape[ax];
    strides[i] = a->strides[ax];
  }
  return rs_array_new_view(out, a, a->ndim, shape, strides, a->offset);
}

rs_status rs_array_transpose(rs_array **out, const rs_array *a) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "transpose: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "transpose"));
  int axes[RS_MAX_DIMS];
  for (int i = 0; i < a->ndim; i++) axes[i] = a->ndim - 1 - i;
  return rs_array_permute(out, a, axes);
}

/* One axis of a slice: Python's negative indices, defaults, and no silent clamping. */
static rs_status rs_slice_axis(int64_t *first, int64_t *count, int64_t n, rs_slice s, int axis) {
  if (s.step == 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "slice: axis %d has step 0", axis);
  int64_t idx[2] = {s.start, s.stop};
  for (int k = 0; k < 2; k++) {
    if (idx[k] == RS_SLICE_DEFAULT) {
      idx[k] = s.step > 0 ? (k == 0 ? 0 : n) : (k == 0 ? n - 1 : -1);
      continue;
    }
    if (idx[k] < -n || idx[k] > n)
      return rs_fail(RS_ERR_INDEX, "slice: %s %lld is out of range for axis %d of length %lld",
                     k == 0 ? "start" : "stop", (long long)idx[k], axis, (long long)n);
    if (idx[k] < 0) idx[k] += n;
  }
  int64_t start = idx[0], stop = idx[1];
  if (n == 0) { /* every slice of an empty axis is empty, whatever its step (Python's too) */
    *first = 0;
    *count = 0;
    return RS_OK;
  }
  if (s.step < 0 && start == n)
    return rs_fail(RS_ERR_INDEX, "slice: start %lld is out of range for axis %d of length %lld",
                   (long long)s.start, axis, (long long)n);
  *first = start;
  *count = rs_slice_count(start, stop, s.step);
  return RS_OK;
}

rs_status rs_array_slice(rs_array **out, const rs_array *a, int nslices, const rs_slice *slices) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "slice: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "slice"));
  if (nslices < 0 || nslices > a->ndim)
    return rs_fail(RS_ERR_INDEX, "slice: %d slices for an array of %d dimensions", nslices,
                   a->ndim);
  if (nslices > 0 && !slices) return rs_fail(RS_ERR_NULL_POINTER, "slice: slices is NULL");
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS], offset = a->offset;
  int empty = 0;
  for (int i = 0; i < a->ndim; i++) {
    shape[i] = a->shape[i];
    strides[i] = a->strides[i];
    if (i >= nslices) continue;
    int64_t first = 0, count = 0;
    RS_TRY(rs_slice_axis(&first, &count, a->shape[i], slices[i], i));
    int64_t reach = 0;
    if (count > 0 && (rs_mul_i64(first, a->strides[i], &reach) || rs_add_i64(offset, reach, &offset)))
      return rs_fail(RS_ERR_OVERFLOW, "slice: the offset of axis %d overflows int64", i);
    if (count == 0) empty = 1;
    shape[i] = count;
    /* One element: its stride is never used, and the step may be anything at all. */
    if (rs_mul_i64(a->strides[i], slices[i].step, &strides[i])) {
      if (count > 1)
        return rs_fail(RS_ERR_OVERFLOW, "slice: stride %lld x step %lld of axis %d overflows int64",
                       (long long)a->strides[i], (long long)slices[i].step, i);
      strides[i] = a->strides[i];
    }
  }
  if (empty) offset = a->offset;
  return rs_array_new_view(out, a, a->ndim, shape, strides, offset);
}

rs_status rs_array_expand_dims(rs_array **out, const rs_array *a, int axis) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "expand_dims: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "expand_dims"));
  if (a->ndim >= RS_MAX_DIMS)
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "expand_dims: already %d dimensions", a->ndim);
  int ax = axis < 0 ? axis + a->ndim + 1 : axis;
  if (ax < 0 || ax > a->ndim)
    return rs_fail(RS_ERR_AXIS, "expand_dims: axis %d is out of range for %d dimensions", axis,
                   a->ndim);
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int i = 0, j = 0; i <= a->ndim; i++) {
    if (i == ax) {
      shape[i] = 1;
      /* The new axis has length 1, so its stride is never used: past the next axis as
       * NumPy puts it, or (should that overflow) anything. */
      strides[i] = (int64_t)rs_dtype_size(a->dtype);
      if (j < a->ndim && rs_mul_i64(a->strides[j], a->shape[j], &strides[i])) strides[i] = a->strides[j];
      continue;
    }
    shape[i] = a->shape[j];
    strides[i] = a->strides[j];
    j++;
  }
  return rs_array_new_view(out, a, a->ndim + 1, shape, strides, a->offset);
}

rs_status rs_array_squeeze(rs_array **out, const rs_array *a, int axis) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "squeeze: out is NULL");
  *out = NULL;
  RS_TRY(rs_array_check(a, "squeeze"));
  int ax = -1;
  if (axis != RS_ALL_AXES) {
    ax = axis < 0 ? axis + a->ndim : axis;
    if (ax < 0 || ax >= a->ndim)
      return rs_fail(RS_ERR_AXIS, "squeeze: axis %d is out of range for %d dimensions", axis,
                     a->ndim);
    if (a->shape[ax] != 1)
      return rs_fail(RS_ERR_SHAPE, "squeeze: axis %d has length %lld, not 1", axis,
                     (long long)a->shape[ax]);
  }
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  int nd = 0;
  for (int i = 0; i < a->ndim; i++) {
    int drop = ax >= 0 ? i == ax : a->shape[i] == 1;
    if (drop) continue;
    shape[nd] = a->shape[i];
    strides[nd] = a->strides[i];
    nd++;
  }
  return rs_array_new_view(out, a, nd, shape, strides, a->offset);
}
