/* take, take_along_axis and put: integer-array reads and writes along one axis, all one
 * gather / scatter (ops/index_internal.h) after the indices are checked. */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/index_internal.h"
#include "ops/into.h"
#include "resident/indexing.h"

/* The array to index and its axis: a itself, or a flattened for RS_INDEX_FLAT. */
static rs_status resolve_axis(rs_array **data, int *axis, const rs_array *a, rs_stream *stream, const char *who) {
  if (*axis == RS_INDEX_FLAT) {
    *axis = 0;
    return rs_index_flat(data, a, stream, who);
  }
  if (a->ndim == 0)
    return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis %d (take from the flattened array instead)", who, *axis);
  RS_TRY(rs_ops_axis(axis, a->ndim, who));
  *data = (rs_array *)(uintptr_t)a;
  return rs_array_retain(*data);
}

/* a.shape[:axis] + idx.shape + a.shape[axis+1:], walked by data / idx dims */
rs_status rs_index_take_geom(rs_index_geom *g, const rs_array *data, int axis, const rs_array *idx, const char *who) {
  g->ndim = data->ndim - 1 + idx->ndim;
  g->axis = axis;
  if (g->ndim > RS_MAX_DIMS)
    return rs_fail(RS_ERR_SHAPE, "%s: the result would have %d dimensions (at most %d)", who, g->ndim, RS_MAX_DIMS);
  for (int k = 0; k < g->ndim; k++) {
    if (k < axis) {
      g->shape[k] = data->shape[k], g->data_dim[k] = k, g->idx_dim[k] = -1;
    } else if (k < axis + idx->ndim) {
      g->shape[k] = idx->shape[k - axis], g->data_dim[k] = -1, g->idx_dim[k] = k - axis;
    } else {
      int d = k - idx->ndim + 1;
      g->shape[k] = data->shape[d], g->data_dim[k] = d, g->idx_dim[k] = -1;
    }
  }
  return RS_OK;
}

/* The common body of take and take_along_axis once the geometry is known. */
rs_status rs_index_gather(rs_array **io, rs_array *data, const rs_array *indices, const rs_index_geom *g,
                          int checked, rs_stream *stream, const char *who) {
  rs_ops_result r;
  const rs_array *ops[2] = {data, indices};
  RS_TRY(rs_ops_result_begin(&r, io, data->ctx, rs_ops_any_on_device(2, ops), g->ndim, g->shape, data->dtype,
                             RS_ORDER_C, RS_OPS_CAST_SAME_KIND, who));
  rs_array *idx = NULL, *tmp = NULL;
  rs_status st = checked ? RS_OK : rs_index_check(indices, data->shape[g->axis], stream, who);
  if (st == RS_OK) st = rs_index_dense(&idx, indices, RS_INT64, 0, stream, who);
  /* straight into the target unless it is another dtype or shares memory with an input */
  rs_array *t = r.target;
  if (st == RS_OK && (t->dtype != data->dtype || rs_index_share(t, data) || rs_index_share(t, idx)))
    st = rs_ops_alloc(&tmp, data->ctx, rs_ops_on_device(t), g->ndim, g->shape, data->dtype, RS_ORDER_C, who);
  if (st == RS_OK) st = rs_index_run(0, g, data, idx, tmp ? tmp : t, stream, who);
  if (st == RS_OK && tmp) st = rs_index_deliver(t, tmp, stream);
  rs_array_release(tmp);
  rs_array_release(idx);
  return rs_ops_result_end(&r, st);
}

static rs_status take_impl(rs_array **io, const rs_array *a, const rs_array *indices, int axis, rs_stream *stream) {
  const char *who = "take";
  const rs_array *ops[2] = {a, indices};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 2, ops, who));
  rs_array *data = NULL;
  RS_TRY(resolve_axis(&data, &axis, a, stream, who));
  rs_index_geom g;
  rs_status st = rs_index_take_geom(&g, data, axis, indices, who);
  if (st == RS_OK) st = rs_index_gather(io, data, indices, &g, 0, stream, who);
  rs_array_release(data);
  return st;
}

static rs_status take_along_impl(rs_array **io, const rs_array *a, const rs_array *indices, int axis,
                                 rs_stream *stream) {
  const char *who = "take_along_axis";
  const rs_array *ops[2] = {a, indices};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 2, ops, who));
  if (a->ndim == 0) return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axis", who);
  RS_TRY(rs_ops_axis(&axis, a->ndim, who));
  if (indices->ndim != a->ndim)
    return rs_fail(RS_ERR_SHAPE, "%s: indices have %d dimensions, the array %d (they must match)", who, indices->ndim,
                   a->ndim);
  rs_index_geom g;
  g.ndim = a->ndim;
  g.axis = axis;
  for (int k = 0; k < a->ndim; k++) {
    int64_t x = a->shape[k], y = indices->shape[k];
    if (k == axis) {
      g.shape[k] = y;
    } else if (x == y || x == 1 || y == 1) {
      g.shape[k] = x == 1 ? y : x;
    } else {
      char sa[160], si[160];
      return rs_fail(RS_ERR_SHAPE, "%s: shapes %s and %s do not broadcast outside axis %d", who,
                     rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape),
                     rs_ops_shape_str(si, sizeof si, indices->ndim, indices->shape), axis);
    }
    g.data_dim[k] = k == axis ? -1 : k;
    g.idx_dim[k] = k;
  }
  return rs_index_gather(io, (rs_array *)(uintptr_t)a, indices, &g, 0, stream, who);
}

RS_OPS_PAIR(rs_take, (const rs_array *a, const rs_array *indices, int axis, rs_stream *stream), take_impl,
            (a, indices, axis, stream))
RS_OPS_PAIR(rs_take_along_axis, (const rs_array *a, const rs_array *indices, int axis, rs_stream *stream),
            take_along_impl, (a, indices, axis, stream))

rs_status rs_index_values(rs_array **out, const rs_array *values, const rs_array *data, const rs_index_geom *g,
                          rs_stream *stream, const char *who) {
  if (values->dtype != data->dtype && !rs_can_cast_same_kind(values->dtype, data->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: cannot assign %s values to a %s array (casting \"same_kind\")", who,
                   rs_dtype_name(values->dtype), rs_dtype_name(data->dtype));
  if (rs_array_size(values) == 1 && values->ndim > 0) { /* one value of any shape broadcasts (np.put) */
    rs_array *v0 = NULL;
    RS_TRY(rs_array_new_view(&v0, values, 0, NULL, NULL, values->offset));
    rs_status st = rs_index_values(out, v0, data, g, stream, who);
    rs_array_release(v0);
    return st;
  }
  if (values->ndim > g->ndim) goto mismatch;
  int64_t strides[RS_MAX_DIMS];
  for (int k = 0; k < g->ndim; k++) { /* align from the right; 1 broadcasts */
    int j = k - (g->ndim - values->ndim);
    if (j < 0) {
      strides[k] = 0;
    } else if (values->shape[j] == g->shape[k]) {
      strides[k] = values->strides[j];
    } else if (values->shape[j] == 1) {
      strides[k] = 0;
    } else {
      goto mismatch;
    }
  }
  if (values->dtype == data->dtype && !rs_index_share(values, data))
    return rs_array_new_view(out, values, g->ndim, g->shape, strides, values->offset);
  /* a converted (or separated) copy, broadcast by the copy */
  rs_array *c = NULL;
  RS_TRY(rs_ops_alloc(&c, data->ctx, rs_ops_on_device(values), g->ndim, g->shape, data->dtype, RS_ORDER_C, who));
  rs_status st = rs_copy_into(c, values, stream);
  if (st != RS_OK) {
    rs_array_release(c);
    return st;
  }
  *out = c;
  return RS_OK;
mismatch:;
  char sv[160], sg[160];
  return rs_fail(RS_ERR_SHAPE, "%s: values of shape %s do not broadcast to the indexed shape %s", who,
                 rs_ops_shape_str(sv, sizeof sv, values->ndim, values->shape),
                 rs_ops_shape_str(sg, sizeof sg, g->ndim, g->shape));
}

rs_status rs_put(rs_array *a, const rs_array *indices, int axis, const rs_array *values, rs_stream *stream) {
  const char *who = "rs_put";
  const rs_array *ops[3] = {a, indices, values};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 3, ops, who));
  int flat = axis == RS_INDEX_FLAT;
  rs_array *data = NULL;
  if (flat) { /* a C-contiguous a is written through a flat view; any other through a copy */
    axis = 0;
    if (rs_array_is_c_contiguous(a)) {
      int64_t n = rs_array_size(a);
      RS_TRY(rs_array_reshape(&data, a, 1, &n));
    } else {
      RS_TRY(rs_index_flat(&data, a, stream, who));
    }
  } else {
    RS_TRY(resolve_axis(&data, &axis, a, stream, who));
  }
  rs_index_geom g;
  rs_array *idx = NULL, *vals = NULL;
  rs_status st = rs_index_take_geom(&g, data, axis, indices, who);
  if (st == RS_OK) st = rs_index_check(indices, data->shape[axis], stream, who);
  if (st == RS_OK) st = rs_index_dense(&idx, indices, RS_INT64, rs_index_share(indices, a), stream, who);
  if (st == RS_OK) st = rs_index_values(&vals, values, data, &g, stream, who);
  if (st == RS_OK) st = rs_index_run(1, &g, data, idx, vals, stream, who);
  if (st == RS_OK && data->buf != a->buf) { /* the copy of a non-contiguous a goes back */
    rs_array *shaped = NULL;
    st = rs_array_reshape(&shaped, data, a->ndim, a->shape);
    if (st == RS_OK) st = rs_copy_into(a, shaped, stream);
    rs_array_release(shaped);
  }
  rs_array_release(vals);
  rs_array_release(idx);
  rs_array_release(data);
  return st;
}
