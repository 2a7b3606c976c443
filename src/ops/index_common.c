/* What the indexing, searching and set ops share (ops/index_internal.h). */
#include <string.h>
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/index_internal.h"
#include "resident/reduce.h"
#include "transfer/copy.h"

int rs_index_share(const rs_array *a, const rs_array *b) { return a && b && a->buf == b->buf; }

/* n int64 values of a (element 0 on: contiguous) to the host, in one implicit copy. */
static rs_status read_int64s(int64_t *out, int64_t n, const rs_array *a, rs_stream *stream, const char *who) {
  rs_array *view = NULL, *host = NULL;
  int64_t stride = 8;
  RS_TRY(rs_array_new_view(&view, a, 1, &n, &stride, a->offset));
  rs_status st = rs_host_array_wrap(&host, a->ctx, out, 1, &n, RS_INT64, NULL);
  rs_copy_cause cause = RS_IMPLICIT(who, -1); /* implicit: the op needs the values, the caller did not ask */
  if (st == RS_OK) st = rs_copy_path(host, view, stream, &cause);
  rs_array_release(host);
  rs_array_release(view);
  return st;
}

rs_status rs_index_read_count(int64_t *out, const rs_array *a, rs_stream *stream, const char *who) {
  return read_int64s(out, 1, a, stream, who);
}

rs_status rs_index_check(const rs_array *idx, int64_t n, rs_stream *stream, const char *who) {
  if (!rs_dtype_is_integer(idx->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: indices must be integers, not %s", who, rs_dtype_name(idx->dtype));
  if (rs_array_size(idx) == 0) return RS_OK;
  /* min and max side by side where idx is, as int64 (a uint64 above INT64_MAX reads negative) */
  rs_array *ext = NULL, *lo = NULL, *hi = NULL, *ext64 = NULL;
  int64_t two = 2, mm[2] = {0, 0};
  rs_status st = rs_ops_alloc(&ext, idx->ctx, rs_ops_on_device(idx), 1, &two, idx->dtype, RS_ORDER_C, who);
  if (st == RS_OK) st = rs_array_new_view(&lo, ext, 0, NULL, NULL, ext->offset);
  if (st == RS_OK) st = rs_array_new_view(&hi, ext, 0, NULL, NULL, ext->offset + (int64_t)rs_dtype_size(idx->dtype));
  if (st == RS_OK) st = rs_min_into(lo, idx, 0, NULL, 0, stream);
  if (st == RS_OK) st = rs_max_into(hi, idx, 0, NULL, 0, stream);
  if (st == RS_OK) st = rs_index_dense(&ext64, ext, RS_INT64, 0, stream, who);
  if (st == RS_OK) st = read_int64s(mm, 2, ext64, stream, who);
  rs_array_release(ext64);
  rs_array_release(lo);
  rs_array_release(hi);
  rs_array_release(ext);
  RS_TRY(st);
  if (rs_dtype_is_unsigned(idx->dtype) && mm[1] < 0)
    return rs_fail(RS_ERR_INDEX, "%s: index %llu is out of bounds for an axis of size %lld", who,
                   (unsigned long long)mm[1], (long long)n);
  if (mm[0] < -n || mm[0] >= n)
    return rs_fail(RS_ERR_INDEX, "%s: index %lld is out of bounds for an axis of size %lld", who, (long long)mm[0],
                   (long long)n);
  if (mm[1] >= n || mm[1] < -n)
    return rs_fail(RS_ERR_INDEX, "%s: index %lld is out of bounds for an axis of size %lld", who, (long long)mm[1],
                   (long long)n);
  return RS_OK;
}

rs_status rs_index_dense(rs_array **out, const rs_array *a, rs_dtype dtype, int fresh, rs_stream *stream,
                         const char *who) {
  if (!fresh && a->dtype == dtype && rs_array_is_c_contiguous(a)) {
    rs_array *r = (rs_array *)(uintptr_t)a;
    RS_TRY(rs_array_retain(r));
    *out = r;
    return RS_OK;
  }
  rs_array *r = NULL;
  RS_TRY(rs_ops_alloc(&r, a->ctx, rs_ops_on_device(a), a->ndim, a->shape, dtype, RS_ORDER_C, who));
  rs_status st = rs_array_size(a) ? rs_copy_into(r, a, stream) : RS_OK;
  if (st != RS_OK) {
    rs_array_release(r);
    return st;
  }
  *out = r;
  return RS_OK;
}

rs_status rs_index_flat(rs_array **out, const rs_array *a, rs_stream *stream, const char *who) {
  rs_array *d = NULL;
  RS_TRY(rs_index_dense(&d, a, a->dtype, 0, stream, who));
  int64_t n = rs_array_size(a);
  rs_status st = rs_array_reshape(out, d, 1, &n);
  rs_array_release(d);
  return st;
}

rs_status rs_index_deliver(rs_array *target, rs_array *tmp, rs_stream *stream) {
  if (target == tmp || rs_array_size(target) == 0) return RS_OK;
  return rs_copy_into(target, tmp, stream);
}

/* C-order element strides of a's logical shape (the data element numbers of a scatter). */
static void element_ids(int64_t *ids, const rs_array *a) {
  int64_t s = 1;
  for (int k = a->ndim - 1; k >= 0; k--) {
    ids[k] = s;
    s *= a->shape[k];
  }
}

rs_status rs_index_run(int scatter, const rs_index_geom *g, rs_array *data, const rs_array *idx, rs_array *vals,
                       rs_stream *stream, const char *who) {
  rs_index_plan p;
  memset(&p, 0, sizeof p);
  p.scatter = scatter;
  p.itemsize = (int)rs_dtype_size(data->dtype);
  p.ndim = g->ndim > 0 ? g->ndim : 1;
  p.count = 1;
  for (int k = 0; k < g->ndim; k++) {
    p.shape[k] = g->shape[k];
    p.count *= g->shape[k];
  }
  if (g->ndim == 0) p.shape[0] = 1;
  if (p.count == 0) return RS_OK;
  p.axis_len = data->shape[g->axis];
  p.data_size = rs_array_size(data);
  int64_t ids[RS_MAX_DIMS];
  element_ids(ids, data);
  rs_ops_stage s;
  /* scatter: data is read (kept where not written) and written */
  const rs_array *in_g[2] = {data, idx}, *in_s[3] = {data, idx, vals};
  rs_array *out_g[1] = {vals}, *out_s[1] = {data};
  RS_TRY(scatter ? rs_ops_stage_begin(&s, who, data->ctx, stream, 3, in_s, 1, out_s)
                 : rs_ops_stage_begin(&s, who, data->ctx, stream, 2, in_g, 1, out_g));
  /* stage arguments: gather in {data, idx} out {vals}; scatter in {data, idx, vals} out {data} */
  int di = scatter ? 3 : 0, ii = 1, vi = 2;
  const int64_t *ds = rs_ops_stage_strides(&s, di), *is = rs_ops_stage_strides(&s, ii),
                *vs = rs_ops_stage_strides(&s, vi);
  for (int k = 0; k < g->ndim; k++) {
    int dd = g->data_dim[k], id = g->idx_dim[k];
    int dbc = dd < 0 || (data->shape[dd] == 1 && g->shape[k] != 1);
    int ibc = id < 0 || (idx->shape[id] == 1 && g->shape[k] != 1);
    p.data_strides[k] = dbc ? 0 : ds[dd];
    p.data_ids[k] = dbc ? 0 : ids[dd];
    p.idx_strides[k] = ibc ? 0 : is[id];
    p.vals_strides[k] = vs[k];
  }
  p.axis_stride = ds[g->axis];
  p.axis_id = ids[g->axis];
  p.data = rs_ops_stage_ptr(&s, di);
  p.idx = rs_ops_stage_ptr(&s, ii);
  p.vals = rs_ops_stage_ptr(&s, vi);
  rs_status st = s.ops->index(s.be, &p, s.stream);
  return rs_ops_stage_end(&s, st);
}

rs_status rs_index_nonzero_flat(rs_array **positions, int64_t *count, const rs_array *a, rs_stream *stream,
                                const char *who) {
  int64_t n = rs_array_size(a), one = 1, k = 0;
  rs_array *flags = NULL, *pos = NULL, *cnt = NULL, *res = NULL;
  rs_status st = RS_OK;
  if (a->dtype == RS_BOOL) {
    st = rs_index_dense(&flags, a, RS_BOOL, 0, stream, who);
  } else { /* a != 0, then C order (the comparison keeps an F-ordered a's order) */
    rs_array *ne = NULL;
    st = rs_binary_scalar(&ne, RS_OP_NOT_EQUAL, a, rs_scalar_int(0), stream);
    if (st == RS_OK) st = rs_index_dense(&flags, ne, RS_BOOL, 0, stream, who);
    rs_array_release(ne);
  }
  int dev = rs_ops_on_device(a);
  if (st == RS_OK && n > 0) st = rs_ops_alloc(&pos, a->ctx, dev, 1, &n, RS_INT64, RS_ORDER_C, who);
  if (st == RS_OK && n > 0) st = rs_ops_alloc(&cnt, a->ctx, dev, 1, &one, RS_INT64, RS_ORDER_C, who);
  if (st == RS_OK && n > 0) {
    rs_ops_stage s;
    const rs_array *in[1] = {flags};
    rs_array *out[2] = {pos, cnt};
    st = rs_ops_stage_begin(&s, who, a->ctx, stream, 1, in, 2, out);
    if (st == RS_OK) {
      rs_select_plan p = {n, (const uint8_t *)rs_ops_stage_ptr(&s, 0), (int64_t *)(void *)rs_ops_stage_ptr(&s, 1),
                          (int64_t *)(void *)rs_ops_stage_ptr(&s, 2), NULL, 0, NULL};
      st = rs_ops_stage_end(&s, s.ops->select(s.be, &p, s.stream));
    }
    if (st == RS_OK) st = rs_index_read_count(&k, cnt, stream, who);
  }
  /* the exact length: a view of the first k positions */
  if (st == RS_OK && n > 0) {
    int64_t stride = 8;
    st = rs_array_new_view(&res, pos, 1, &k, &stride, pos->offset);
  } else if (st == RS_OK) {
    st = rs_ops_alloc(&res, a->ctx, dev, 1, &k, RS_INT64, RS_ORDER_C, who);
  }
  rs_array_release(flags);
  rs_array_release(pos);
  rs_array_release(cnt);
  if (st != RS_OK) return st;
  *positions = res;
  *count = k;
  return RS_OK;
}
