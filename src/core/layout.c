#include <stdio.h>
#include <stdlib.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/layout.h"

rs_status rs_layout_count(int64_t *elements, int ndim, const int64_t *shape, const char *who) {
  if (ndim < 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: ndim %d is negative", who, ndim);
  if (ndim > RS_MAX_DIMS)
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "%s: %d dimensions, at most RS_MAX_DIMS=%d", who, ndim,
                   RS_MAX_DIMS);
  if (ndim > 0 && !shape) return rs_fail(RS_ERR_NULL_POINTER, "%s: shape is NULL", who);
  int64_t n = 1;
  int overflow = 0;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return rs_fail(RS_ERR_SHAPE, "%s: dimension %d is negative (%lld)", who, i,
                     (long long)shape[i]);
    if (rs_mul_i64(n, shape[i], &n)) overflow = 1;
  }
  /* An empty axis makes the count 0 whatever the others say. */
  for (int i = 0; i < ndim; i++)
    if (shape[i] == 0) {
      *elements = 0;
      return RS_OK;
    }
  if (overflow) {
    char s[512];
    return rs_fail(RS_ERR_OVERFLOW, "%s: the element count of shape %s overflows int64", who,
                   rs_layout_shape_str(s, sizeof s, ndim, shape));
  }
  *elements = n;
  return RS_OK;
}

rs_status rs_layout_contiguous_strides(int64_t *strides, int ndim, const int64_t *shape,
                                       size_t itemsize, rs_order order, const char *who) {
  int64_t step = (int64_t)itemsize;
  int overflow = 0;
  for (int k = 0; k < ndim; k++) {
    int i = order == RS_ORDER_F ? k : ndim - 1 - k;
    strides[i] = step;
    int64_t extent = shape[i] > 0 ? shape[i] : 1;
    if (rs_mul_i64(step, extent, &step)) overflow = 1;
  }
  int64_t elements = 0;
  rs_status st = rs_layout_count(&elements, ndim, shape, who);
  if (st != RS_OK) return st;
  if (overflow && elements != 0) {
    char s[512];
    return rs_fail(RS_ERR_OVERFLOW, "%s: the byte count of shape %s x %zu bytes overflows int64",
                   who, rs_layout_shape_str(s, sizeof s, ndim, shape), itemsize);
  }
  return RS_OK;
}

typedef struct {
  int64_t stride, extent;
} rs_dim_pair;

static int rs_dim_cmp(const void *a, const void *b) {
  const rs_dim_pair *x = a, *y = b;
  return (x->stride > y->stride) - (x->stride < y->stride);
}

rs_status rs_layout_alloc_bytes(size_t *bytes, int ndim, const int64_t *shape,
                                const int64_t *strides, size_t itemsize, const char *who) {
  int64_t elements = 0;
  RS_TRY(rs_layout_count(&elements, ndim, shape, who));
  if (elements == 0) {
    *bytes = 0;
    return RS_OK;
  }
  rs_dim_pair dims[RS_MAX_DIMS];
  int n = 0;
  int64_t span = (int64_t)itemsize;
  for (int i = 0; i < ndim; i++) {
    if (strides[i] < 0 || strides[i] % (int64_t)itemsize != 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: stride %lld of axis %d must be a non-negative multiple of the item "
                     "size %zu",
                     who, (long long)strides[i], i, itemsize);
    if (shape[i] == 1) continue;
    int64_t reach;
    if (rs_mul_i64(strides[i], shape[i] - 1, &reach) || rs_add_i64(span, reach, &span))
      return rs_fail(RS_ERR_OVERFLOW, "%s: strides reach beyond int64 bytes", who);
    dims[n].stride = strides[i];
    dims[n].extent = shape[i];
    n++;
  }
  /* Sorted by stride, each axis must step over everything the smaller axes cover. */
  qsort(dims, (size_t)n, sizeof dims[0], rs_dim_cmp);
  int64_t covered = (int64_t)itemsize;
  for (int i = 0; i < n; i++) {
    if (dims[i].stride < covered)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: strides make elements overlap (stride %lld is below %lld bytes)", who,
                     (long long)dims[i].stride, (long long)covered);
    /* The last axis may reach past int64 by one stride (span above counts extent - 1):
     * then nothing can come after it anyway. */
    if (rs_mul_i64(dims[i].stride, dims[i].extent, &covered)) covered = INT64_MAX;
  }
  *bytes = (size_t)span;
  return RS_OK;
}

int rs_layout_is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                              size_t itemsize) {
  int64_t expect = (int64_t)itemsize;
  for (int i = ndim - 1; i >= 0; i--) {
    if (shape[i] == 0) return 1;
    if (shape[i] != 1 && strides[i] != expect) return 0;
    if (rs_mul_i64(expect, shape[i], &expect)) return 0;
  }
  return 1;
}

int rs_layout_is_f_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                              size_t itemsize) {
  int64_t expect = (int64_t)itemsize;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] == 0) return 1;
    if (shape[i] != 1 && strides[i] != expect) return 0;
    if (rs_mul_i64(expect, shape[i], &expect)) return 0;
  }
  return 1;
}

int rs_layout_extent(int64_t *low, int64_t *high, int *empty, int ndim, const int64_t *shape,
                     const int64_t *strides, size_t itemsize) {
  int64_t lo = 0, hi = 0;
  *low = *high = 0;
  *empty = 0;
  for (int i = 0; i < ndim; i++)
    if (shape[i] == 0) {
      *empty = 1;
      return 0;
    }
  for (int i = 0; i < ndim; i++) {
    int64_t reach;
    if (rs_mul_i64(strides[i], shape[i] - 1, &reach)) return 1;
    if (rs_add_i64(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi)) return 1;
  }
  if (rs_add_i64(hi, (int64_t)itemsize, &hi)) return 1;
  *low = lo;
  *high = hi;
  return 0;
}

const char *rs_layout_shape_str(char *buf, size_t len, int ndim, const int64_t *shape) {
  size_t pos = 0;
  pos += (size_t)snprintf(buf + pos, len - pos, "(");
  for (int i = 0; i < ndim && pos < len; i++)
    pos += (size_t)snprintf(buf + pos, len - pos, i ? ", %lld" : "%lld", (long long)shape[i]);
  if (pos < len) snprintf(buf + pos, len - pos, ndim == 1 ? ",)" : ")");
  return buf;
}
