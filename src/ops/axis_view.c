/* Views along one axis (ops/axis_view.h): thin wrappers over the public view calls, so
 * the ops that work along an axis say what they mean in one line. */
#include "ops/axis_view.h"
#include "core/objects.h"

rs_status rs_ops_axis_last(rs_array **out, const rs_array *a, int axis) {
  int perm[RS_MAX_DIMS];
  for (int k = 0, j = 0; k < a->ndim; k++)
    if (k != axis) perm[j++] = k;
  perm[a->ndim - 1] = axis;
  return rs_array_permute(out, a, perm);
}

rs_status rs_ops_axis_flip(rs_array **out, const rs_array *a, int axis) {
  rs_slice s[RS_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) s[k] = RS_SLICE_ALL;
  s[axis].step = -1;
  return rs_array_slice(out, a, a->ndim, s);
}

rs_status rs_ops_axis_range(rs_array **out, const rs_array *a, int axis, int64_t start, int64_t stop) {
  rs_slice s[RS_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) s[k] = RS_SLICE_ALL;
  s[axis].start = start;
  s[axis].stop = stop;
  return rs_array_slice(out, a, a->ndim, s);
}
