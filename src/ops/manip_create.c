/* The standard's creation functions resident lacked: meshgrid (a broadcast copy per
 * output), tril / triu (one elementwise program over the element index), and astype's
 * copy flag. */
#include <string.h>
#include "core/dtype_rules.h"
#include "core/error.h"
#include "core/layout.h"
#include "ops/into.h"
#include "ops/manip_internal.h"

/* The shape of the grid and, for output i, the axis its input runs along. */
static rs_status grid_shape(int64_t *shape, int *axis_of, int n, const rs_array *const *arrays,
                            rs_meshgrid_indexing indexing, const char *who) {
  if (n < 1 || n > RS_MAX_DIMS) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d arrays (1..%d allowed)", who, n, RS_MAX_DIMS);
  if (!arrays) return rs_fail(RS_ERR_NULL_POINTER, "%s: arrays is NULL", who);
  if (indexing != RS_MESHGRID_XY && indexing != RS_MESHGRID_IJ)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: indexing %d is neither RS_MESHGRID_XY nor RS_MESHGRID_IJ", who,
                   (int)indexing);
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, n, arrays, who));
  for (int i = 0; i < n; i++) {
    if (arrays[i]->ndim != 1)
      return rs_fail(RS_ERR_SHAPE, "%s: array %d has %d dimensions, not 1", who, i, arrays[i]->ndim);
    axis_of[i] = i;
    shape[i] = arrays[i]->shape[0];
  }
  if (indexing == RS_MESHGRID_XY && n >= 2) { /* Cartesian: the first two axes swap */
    axis_of[0] = 1, axis_of[1] = 0;
    shape[0] = arrays[1]->shape[0], shape[1] = arrays[0]->shape[0];
  }
  int64_t count = 0;
  return rs_layout_count(&count, n, shape, who);
}

/* outs (new, *dsts NULL) or dsts, each through rs_manip_begin: the _into form checks every
 * dst before writing any. */
static rs_status meshgrid(rs_array **io, int n, const rs_array *const *arrays, rs_meshgrid_indexing indexing,
                          rs_stream *stream) {
  const char *who = "meshgrid";
  int64_t shape[RS_MAX_DIMS];
  int axis_of[RS_MAX_DIMS];
  RS_TRY(grid_shape(shape, axis_of, n, arrays, indexing, who));
  for (int i = 0; i < n && io[0]; i++) {
    if (!io[i]) return rs_fail(RS_ERR_NULL_POINTER, "%s: dsts[%d] is NULL", who, i);
    rs_ops_result r;
    RS_TRY(rs_ops_result_begin(&r, &io[i], arrays[0]->ctx, 0, n, shape, arrays[i]->dtype, RS_ORDER_C,
                               RS_OPS_CAST_SAME_KIND, who));
  }
  rs_status st = RS_OK;
  for (int i = 0; i < n && st == RS_OK; i++) {
    int64_t strides[RS_MAX_DIMS] = {0}; /* arrays[i] along its axis, repeated along the others */
    strides[axis_of[i]] = arrays[i]->strides[0];
    rs_manip_out m;
    st = rs_manip_begin(&m, &io[i], n, arrays, n, shape, arrays[i]->dtype, 0, stream, who);
    if (st != RS_OK) break;
    rs_array *src = NULL;
    st = rs_manip_view(&src, arrays[i], n, shape, strides, 0);
    if (st == RS_OK && rs_array_size(m.target) > 0) st = rs_manip_copy(m.target, src, stream);
    rs_array_release(src);
    st = rs_manip_end(&m, st);
  }
  return st;
}

rs_status rs_meshgrid(rs_array **outs, int n, const rs_array *const *arrays, rs_meshgrid_indexing indexing,
                      rs_stream *stream) {
  if (!outs) return rs_fail(RS_ERR_NULL_POINTER, "meshgrid: outs is NULL");
  if (n < 1 || n > RS_MAX_DIMS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "meshgrid: %d arrays (1..%d allowed)", n, RS_MAX_DIMS);
  rs_array *made[RS_MAX_DIMS] = {0}; /* *outs is never read */
  rs_status st = meshgrid(made, n, arrays, indexing, stream);
  for (int i = 0; i < n; i++) {
    if (st == RS_OK) outs[i] = made[i];
    else rs_array_release(made[i]);
  }
  return st;
}

rs_status rs_meshgrid_into(rs_array *const *dsts, int n, const rs_array *const *arrays,
                           rs_meshgrid_indexing indexing, rs_stream *stream) {
  if (!dsts) return rs_fail(RS_ERR_NULL_POINTER, "meshgrid_into: dsts is NULL");
  if (n < 1 || n > RS_MAX_DIMS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "meshgrid_into: %d arrays (1..%d allowed)", n, RS_MAX_DIMS);
  rs_array *given[RS_MAX_DIMS];
  for (int i = 0; i < n; i++) {
    if (!dsts[i]) return rs_fail(RS_ERR_NULL_POINTER, "meshgrid_into: dsts[%d] is NULL", i);
    given[i] = dsts[i];
  }
  return meshgrid(given, n, arrays, indexing, stream);
}

/* where(j - i <= k, a, 0) (tril) or >= k (triu), i and j the row and column of each
 * element computed from its C-order index: one generated kernel on the GPU. */
static rs_status tri(rs_array **io, const rs_array *a, int64_t k, int upper, rs_stream *stream) {
  const char *who = upper ? "triu" : "tril";
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2) return rs_fail(RS_ERR_SHAPE, "%s: needs at least 2 dimensions, the array has %d", who, a->ndim);
  int64_t rows = a->shape[a->ndim - 2], cols = a->shape[a->ndim - 1];
  rs_ew_spec spec = {.name = who, .stream = stream};
  spec.in[spec.nin++] = a;
  rs_ew_builder b;
  rs_ewb_init(&b, who);
  int x = rs_ewb_load(&b, a->dtype);
  int idx = rs_ewb_index(&b);
  int nc = rs_ewb_const(&b, rs_scalar_int(cols > 0 ? cols : 1), RS_INT64);
  int nr = rs_ewb_const(&b, rs_scalar_int(rows > 0 ? rows : 1), RS_INT64);
  int col = rs_ewb_binary(&b, RS_OP_REMAINDER, idx, nc);
  int row = rs_ewb_binary(&b, RS_OP_REMAINDER, rs_ewb_binary(&b, RS_OP_FLOOR_DIVIDE, idx, nc), nr);
  int d = rs_ewb_binary(&b, RS_OP_SUBTRACT, col, row);
  int keep = rs_ewb_binary(&b, upper ? RS_OP_GREATER_EQUAL : RS_OP_LESS_EQUAL, d,
                           rs_ewb_const(&b, rs_scalar_int(k), RS_INT64));
  int zero = rs_ewb_const(&b, rs_scalar_int(0), a->dtype);
  return rs_ops_elementwise(io, &b, rs_ewb_where(&b, keep, x, zero), &spec);
}

static rs_status tril(rs_array **io, const rs_array *a, int64_t k, rs_stream *stream) { return tri(io, a, k, 0, stream); }
static rs_status triu(rs_array **io, const rs_array *a, int64_t k, rs_stream *stream) { return tri(io, a, k, 1, stream); }

RS_OPS_PAIR(rs_tril, (const rs_array *a, int64_t k, rs_stream *stream), tril, (a, k, stream))
RS_OPS_PAIR(rs_triu, (const rs_array *a, int64_t k, rs_stream *stream), triu, (a, k, stream))

rs_status rs_astype_copy(rs_array **out, const rs_array *a, rs_dtype dtype, int copy, rs_stream *stream) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "astype: out is NULL");
  RS_TRY(rs_array_check(a, "astype"));
  if (copy || a->dtype != dtype) return rs_astype(out, a, dtype, stream);
  RS_TRY(rs_array_retain((rs_array *)(uintptr_t)a)); /* the same array, one more reference */
  *out = (rs_array *)(uintptr_t)a;
  return RS_OK;
}
