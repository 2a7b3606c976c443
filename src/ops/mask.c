/* Boolean masks (reads and writes), nonzero and count_nonzero: a compaction of flags to
 * positions (ops/index_internal.h; the count read back once), then a gather or scatter
 * along the first axis of the array seen with the mask's axes as one. */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/index_internal.h"
#include "ops/into.h"
#include "resident/indexing.h"
#include "resident/reduce.h"

static rs_status check_mask(const rs_array *a, const rs_array *mask, const char *who) {
  if (mask->dtype != RS_BOOL)
    return rs_fail(RS_ERR_DTYPE, "%s: a mask must be bool, not %s", who, rs_dtype_name(mask->dtype));
  int ok = mask->ndim >= 1 && mask->ndim <= a->ndim;
  for (int k = 0; ok && k < mask->ndim; k++) ok = mask->shape[k] == a->shape[k];
  if (!ok) {
    char sm[160], sa[160];
    return rs_fail(RS_ERR_SHAPE, "%s: a mask of shape %s does not match the leading axes of an array of shape %s",
                   who, rs_ops_shape_str(sm, sizeof sm, mask->ndim, mask->shape),
                   rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape));
  }
  return RS_OK;
}

/* a seen as (prod(a.shape[:k]), a.shape[k:]...): a itself for k == 1, a view of a when it
 * is C-contiguous, else a C-ordered copy (*copied = 1). */
static rs_status merged(rs_array **out, int *copied, const rs_array *a, int k, rs_stream *stream, const char *who) {
  *copied = 0;
  int64_t shape[RS_MAX_DIMS];
  shape[0] = 1;
  for (int j = 0; j < k; j++) shape[0] *= a->shape[j];
  for (int j = k; j < a->ndim; j++) shape[j - k + 1] = a->shape[j];
  if (k == 1 || rs_array_is_c_contiguous(a)) {
    if (k == 1) {
      *out = (rs_array *)(uintptr_t)a;
      return rs_array_retain(*out);
    }
    return rs_array_reshape(out, a, a->ndim - k + 1, shape);
  }
  rs_array *d = NULL;
  RS_TRY(rs_index_dense(&d, a, a->dtype, 1, stream, who));
  *copied = 1;
  rs_status st = rs_array_reshape(out, d, a->ndim - k + 1, shape);
  rs_array_release(d);
  return st;
}

/* A mask of all a's axes: the count first (a sum of the flags, read back), then one
 * compaction of the elements themselves - no positions written and read again. */
static rs_status mask_get_full(rs_array **io, const rs_array *a, const rs_array *mask, rs_stream *stream,
                               const char *who) {
  const rs_array *ops[2] = {a, mask};
  rs_array *flags = NULL, *sum = NULL;
  int64_t k = 0;
  rs_status st = rs_index_dense(&flags, mask, RS_BOOL, 0, stream, who);
  if (st == RS_OK) st = rs_sum(&sum, flags, 0, NULL, 0, stream); /* int64 */
  if (st == RS_OK) st = rs_index_read_count(&k, sum, stream, who);
  rs_array_release(sum);
  rs_ops_result r;
  if (st == RS_OK)
    st = rs_ops_result_begin(&r, io, a->ctx, rs_ops_any_on_device(2, ops), 1, &k, a->dtype, RS_ORDER_C,
                             RS_OPS_CAST_SAME_KIND, who);
  if (st != RS_OK) {
    rs_array_release(flags);
    return st;
  }
  rs_array *t = r.target, *src = NULL, *cnt = NULL, *tmp = NULL;
  if (k > 0) {
    int dev = rs_ops_on_device(t);
    int64_t n = rs_array_size(a), one = 1;
    st = rs_index_dense(&src, a, a->dtype, 0, stream, who);
    if (st == RS_OK && (!rs_array_is_c_contiguous(t) || t->dtype != a->dtype || rs_index_share(t, src) ||
                        rs_index_share(t, flags)))
      st = rs_ops_alloc(&tmp, a->ctx, dev, 1, &k, a->dtype, RS_ORDER_C, who);
    if (st == RS_OK) st = rs_ops_alloc(&cnt, a->ctx, dev, 1, &one, RS_INT64, RS_ORDER_C, who);
    rs_array *o = tmp ? tmp : t;
    rs_ops_stage s;
    const rs_array *in[2] = {flags, src};
    rs_array *out[2] = {o, cnt};
    if (st == RS_OK) st = rs_ops_stage_begin(&s, who, a->ctx, stream, 2, in, 2, out);
    if (st == RS_OK) {
      rs_select_plan p = {n, (const uint8_t *)rs_ops_stage_ptr(&s, 0), NULL, (int64_t *)(void *)rs_ops_stage_ptr(&s, 3),
                          rs_ops_stage_ptr(&s, 1), (int)rs_dtype_size(a->dtype), rs_ops_stage_ptr(&s, 2)};
      st = rs_ops_stage_end(&s, s.ops->select(s.be, &p, s.stream));
    }
    if (st == RS_OK && tmp) st = rs_index_deliver(t, tmp, stream);
  }
  rs_array_release(tmp);
  rs_array_release(cnt);
  rs_array_release(src);
  rs_array_release(flags);
  return rs_ops_result_end(&r, st);
}

static rs_status mask_get_impl(rs_array **io, const rs_array *a, const rs_array *mask, rs_stream *stream) {
  const char *who = "mask_get";
  const rs_array *ops[2] = {a, mask};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 2, ops, who));
  RS_TRY(check_mask(a, mask, who));
  if (mask->ndim == a->ndim) return mask_get_full(io, a, mask, stream, who);
  rs_array *pos = NULL, *data = NULL;
  int64_t count = 0;
  int copied;
  rs_index_geom g;
  RS_TRY(rs_index_nonzero_flat(&pos, &count, mask, stream, who));
  rs_status st = merged(&data, &copied, a, mask->ndim, stream, who);
  if (st == RS_OK) st = rs_index_take_geom(&g, data, 0, pos, who);
  if (st == RS_OK) st = rs_index_gather(io, data, pos, &g, 1, stream, who);
  rs_array_release(data);
  rs_array_release(pos);
  return st;
}

RS_OPS_PAIR(rs_mask_get, (const rs_array *a, const rs_array *mask, rs_stream *stream), mask_get_impl,
            (a, mask, stream))

/* a = where(mask, v, a) for a single value v (any array of one element, as a 0-d view) */
static rs_status mask_where(rs_array *a, const rs_array *mask, const rs_array *v, rs_stream *stream) {
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  for (int k = 0; k < a->ndim; k++) { /* the mask with a's trailing axes as length 1 */
    shape[k] = k < mask->ndim ? mask->shape[k] : 1;
    strides[k] = k < mask->ndim ? mask->strides[k] : 0;
  }
  rs_array *m = NULL, *v0 = NULL;
  RS_TRY(rs_array_new_view(&m, mask, a->ndim, shape, strides, mask->offset));
  rs_status st = rs_array_new_view(&v0, v, 0, NULL, NULL, v->offset);
  if (st == RS_OK) st = rs_where_into(a, m, v0, a, stream);
  rs_array_release(v0);
  rs_array_release(m);
  return st;
}

rs_status rs_mask_set(rs_array *a, const rs_array *mask, const rs_array *values, rs_stream *stream) {
  const char *who = "rs_mask_set";
  const rs_array *ops[3] = {a, mask, values};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 3, ops, who));
  RS_TRY(check_mask(a, mask, who));
  if (values->dtype != a->dtype && !rs_can_cast_same_kind(values->dtype, a->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: cannot assign %s values to a %s array (casting \"same_kind\")", who,
                   rs_dtype_name(values->dtype), rs_dtype_name(a->dtype));
  if (rs_array_size(values) == 1 && !rs_index_share(values, a)) return mask_where(a, mask, values, stream);
  rs_array *pos = NULL, *data = NULL, *vals = NULL;
  int64_t count = 0;
  int copied = 0;
  rs_index_geom g;
  RS_TRY(rs_index_nonzero_flat(&pos, &count, mask, stream, who));
  rs_status st = merged(&data, &copied, a, mask->ndim, stream, who);
  if (st == RS_OK) st = rs_index_take_geom(&g, data, 0, pos, who);
  if (st == RS_OK) st = rs_index_values(&vals, values, data, &g, stream, who);
  if (st == RS_OK) st = rs_index_run(2, &g, data, pos, vals, stream, who); /* positions are distinct */
  if (st == RS_OK && copied) { /* the copy of a non-contiguous a goes back */
    rs_array *shaped = NULL;
    st = rs_array_reshape(&shaped, data, a->ndim, a->shape);
    if (st == RS_OK) st = rs_copy_into(a, shaped, stream);
    rs_array_release(shaped);
  }
  rs_array_release(vals);
  rs_array_release(data);
  rs_array_release(pos);
  return st;
}

rs_status rs_mask_set_scalar(rs_array *a, const rs_array *mask, rs_scalar s, rs_stream *stream) {
  const char *who = "rs_mask_set_scalar";
  const rs_array *ops[2] = {a, mask};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, 2, ops, who));
  RS_TRY(check_mask(a, mask, who));
  rs_array *v = NULL;
  RS_TRY(rs_full(&v, ctx, rs_array_kind(a), 0, NULL, a->dtype, s, stream));
  rs_status st = mask_where(a, mask, v, stream);
  rs_array_release(v);
  return st;
}

static rs_status nonzero_impl(rs_array **io, const rs_array *a, rs_stream *stream) {
  const char *who = "nonzero";
  RS_TRY(rs_array_check(a, who));
  if (a->ndim == 0)
    return rs_fail(RS_ERR_AXIS, "%s: a 0-d array has no axes (NumPy 2 refuses it too: use a 1-d view)", who);
  rs_array *pos = NULL;
  int64_t count = 0;
  RS_TRY(rs_index_nonzero_flat(&pos, &count, a, stream, who));
  int64_t shape[2] = {a->ndim, count};
  rs_ops_result r;
  rs_status st = rs_ops_result_begin(&r, io, a->ctx, rs_ops_on_device(a), 2, shape, RS_INT64, RS_ORDER_C,
                                     RS_OPS_CAST_EXACT, who);
  if (st != RS_OK) {
    rs_array_release(pos);
    return st;
  }
  int64_t below = rs_array_size(a); /* elements below axis k (C order) */
  for (int k = 0; st == RS_OK && k < a->ndim && count > 0; k++) {
    below = a->shape[k] ? below / a->shape[k] : 0;
    rs_array *row = NULL, *q = NULL;
    int64_t stride = r.target->strides[1];
    st = rs_array_new_view(&row, r.target, 1, &count, &stride, r.target->offset + k * r.target->strides[0]);
    if (st == RS_OK && a->ndim == 1) st = rs_copy_into(row, pos, stream);
    else if (st == RS_OK && k == 0) st = rs_binary_scalar_into(row, RS_OP_FLOOR_DIVIDE, pos, rs_scalar_int(below), stream);
    else if (st == RS_OK) {
      st = rs_binary_scalar(&q, RS_OP_FLOOR_DIVIDE, pos, rs_scalar_int(below), stream);
      if (st == RS_OK) st = rs_binary_scalar_into(row, RS_OP_REMAINDER, q, rs_scalar_int(a->shape[k]), stream);
    }
    rs_array_release(q);
    rs_array_release(row);
  }
  rs_array_release(pos);
  return rs_ops_result_end(&r, st);
}

RS_OPS_PAIR(rs_nonzero, (const rs_array *a, rs_stream *stream), nonzero_impl, (a, stream))

static rs_status count_nonzero_impl(rs_array **io, const rs_array *a, int naxes, const int *axes, int keepdims,
                                    rs_stream *stream) {
  const char *who = "count_nonzero";
  RS_TRY(rs_array_check(a, who));
  rs_array *flags = NULL;
  RS_TRY(rs_binary_scalar(&flags, RS_OP_NOT_EQUAL, a, rs_scalar_int(0), stream));
  rs_status st;
  if (*io) {
    if ((*io)->dtype != RS_INT64)
      st = rs_fail(RS_ERR_DTYPE, "%s: out is %s, the result is int64", who, rs_dtype_name((*io)->dtype));
    else
      st = rs_sum_into(*io, flags, naxes, axes, keepdims, stream);
  } else {
    st = rs_sum(io, flags, naxes, axes, keepdims, stream);
  }
  rs_array_release(flags);
  return st;
}

RS_OPS_PAIR(rs_count_nonzero, (const rs_array *a, int naxes, const int *axes, int keepdims, rs_stream *stream),
            count_nonzero_impl, (a, naxes, axes, keepdims, stream))
