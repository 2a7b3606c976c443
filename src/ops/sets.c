/* unique_values / _counts / _inverse / _all: a sort (or a stable argsort when first
 * indices or the inverse are wanted) of the flattened array, the runs of equal values
 * (plan: native/plans_index.h) into scratch of the input's length, one read of the
 * number of runs, then results of exactly that length. */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/index_internal.h"
#include "resident/sets.h"
#include "resident/sort.h"

enum { V = 0, I, INV, C, NOUT }; /* values, first indices, inverse, counts */

/* Sorted data (and the permutation when wanted) of the flattened x. */
static rs_status sorted_of(rs_array **sorted, rs_array **perm, const rs_array *flat, int want_perm,
                           rs_stream *stream, const char *who) {
  if (!want_perm) return rs_sort(sorted, flat, stream);
  RS_TRY(rs_argsort(perm, flat, stream));
  rs_index_geom g;
  rs_status st = rs_index_take_geom(&g, flat, 0, *perm, who);
  *sorted = NULL;
  if (st == RS_OK) st = rs_index_gather(sorted, (rs_array *)(uintptr_t)flat, *perm, &g, 1, stream, who);
  if (st != RS_OK) {
    rs_array_release(*perm);
    *perm = NULL;
  }
  return st;
}

/* io[k] NULL: output k not wanted; *io[k] NULL: a new array; else the destination. */
static rs_status unique_impl(rs_array **io[NOUT], const rs_array *x, rs_stream *stream, const char *who) {
  RS_TRY(rs_array_check(x, who));
  if (rs_dtype_is_complex(x->dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", who,
                   rs_dtype_name(x->dtype));
  rs_context *ctx = x->ctx;
  int dev = rs_ops_on_device(x);
  int64_t n = rs_array_size(x), one = 1, k = 0;
  rs_array *flat = NULL, *sorted = NULL, *perm = NULL, *cap[NOUT] = {NULL}, *nruns = NULL;
  rs_status st = rs_index_flat(&flat, x, stream, who);
  if (st == RS_OK && n > 0) st = sorted_of(&sorted, &perm, flat, io[I] || io[INV], stream, who);
  for (int o = 0; o < NOUT && st == RS_OK && n > 0; o++)
    if (io[o]) st = rs_ops_alloc(&cap[o], ctx, dev, 1, &n, o == V ? x->dtype : RS_INT64, RS_ORDER_C, who);
  if (st == RS_OK && n > 0) st = rs_ops_alloc(&nruns, ctx, dev, 1, &one, RS_INT64, RS_ORDER_C, who);
  if (st == RS_OK && n > 0) {
    const rs_array *in[2] = {sorted, perm};
    rs_array *out[NOUT + 1];
    int slot[NOUT], nout = 0;
    for (int o = 0; o < NOUT; o++) {
      slot[o] = -1;
      if (cap[o]) slot[o] = nout, out[nout++] = cap[o];
    }
    out[nout++] = nruns;
    int nin = perm ? 2 : 1;
    rs_ops_stage s;
    st = rs_ops_stage_begin(&s, who, ctx, stream, nin, in, nout, out);
    if (st == RS_OK) {
#define PTR_(o) (slot[o] < 0 ? NULL : (void *)rs_ops_stage_ptr(&s, nin + slot[o]))
      rs_unique_plan p = {x->dtype, n, rs_ops_stage_ptr(&s, 0), perm ? (const int64_t *)(void *)rs_ops_stage_ptr(&s, 1) : NULL,
                          PTR_(V), PTR_(C), PTR_(I), PTR_(INV),
                          (int64_t *)(void *)rs_ops_stage_ptr(&s, nin + nout - 1)};
#undef PTR_
      st = rs_ops_stage_end(&s, s.ops->unique(s.be, &p, s.stream));
    }
    if (st == RS_OK) st = rs_index_read_count(&k, nruns, stream, who);
  }
  /* every result checked (or made) before any is written */
  rs_ops_result r[NOUT];
  int begun = 0;
  for (int o = 0; o < NOUT && st == RS_OK; o++, begun++) {
    if (!io[o]) continue;
    int inv = o == INV;
    st = rs_ops_result_begin(&r[o], io[o], ctx, dev, inv ? x->ndim : 1, inv ? x->shape : &k,
                             o == V ? x->dtype : RS_INT64, RS_ORDER_C, RS_OPS_CAST_EXACT, who);
    if (st != RS_OK) break;
  }
  for (int o = 0; o < NOUT && st == RS_OK && n > 0; o++) {
    if (!io[o]) continue;
    rs_array *part = NULL;
    if (o == INV) {
      st = rs_array_reshape(&part, cap[o], x->ndim, x->shape);
    } else {
      int64_t stride = (int64_t)rs_dtype_size(cap[o]->dtype);
      st = rs_array_new_view(&part, cap[o], 1, &k, &stride, cap[o]->offset);
    }
    if (st == RS_OK) st = rs_index_deliver(r[o].target, part, stream);
    rs_array_release(part);
  }
  for (int o = 0; o < begun; o++)
    if (io[o]) rs_ops_result_end(&r[o], st);
  for (int o = 0; o < NOUT; o++) rs_array_release(cap[o]);
  rs_array_release(nruns);
  rs_array_release(perm);
  rs_array_release(sorted);
  rs_array_release(flat);
  return st;
}

/* The public forms: new arrays (every wanted out non-NULL, set on success only) ... */
static rs_status unique_new(rs_array **v, rs_array **i, rs_array **inv, rs_array **c, unsigned want,
                            const rs_array *x, rs_stream *stream, const char *who) {
  rs_array **outs[NOUT] = {v, i, inv, c}, *made[NOUT] = {NULL}, **io[NOUT];
  for (int o = 0; o < NOUT; o++) {
    io[o] = NULL;
    if (!(want >> o & 1)) continue;
    if (!outs[o]) return rs_fail(RS_ERR_NULL_POINTER, "%s: an out-parameter is NULL", who);
    io[o] = &made[o];
  }
  RS_TRY(unique_impl(io, x, stream, who));
  for (int o = 0; o < NOUT; o++)
    if (want >> o & 1) *outs[o] = made[o];
  return RS_OK;
}

/* ... or destinations (every wanted one non-NULL) */
static rs_status unique_dst(rs_array *v, rs_array *i, rs_array *inv, rs_array *c, unsigned want,
                            const rs_array *x, rs_stream *stream, const char *who) {
  rs_array *dst[NOUT] = {v, i, inv, c}, **io[NOUT];
  for (int o = 0; o < NOUT; o++) {
    io[o] = NULL;
    if (!(want >> o & 1)) continue;
    if (!dst[o]) return rs_fail(RS_ERR_NULL_POINTER, "%s: a destination is NULL", who);
    io[o] = &dst[o];
  }
  return unique_impl(io, x, stream, who);
}

#define W_(o) (1u << (o))
rs_status rs_unique_values(rs_array **values, const rs_array *x, rs_stream *stream) {
  return unique_new(values, NULL, NULL, NULL, W_(V), x, stream, "rs_unique_values");
}
rs_status rs_unique_values_into(rs_array *values, const rs_array *x, rs_stream *stream) {
  return unique_dst(values, NULL, NULL, NULL, W_(V), x, stream, "rs_unique_values_into");
}
rs_status rs_unique_counts(rs_array **values, rs_array **counts, const rs_array *x, rs_stream *stream) {
  return unique_new(values, NULL, NULL, counts, W_(V) | W_(C), x, stream, "rs_unique_counts");
}
rs_status rs_unique_counts_into(rs_array *values, rs_array *counts, const rs_array *x, rs_stream *stream) {
  return unique_dst(values, NULL, NULL, counts, W_(V) | W_(C), x, stream, "rs_unique_counts_into");
}
rs_status rs_unique_inverse(rs_array **values, rs_array **inverse, const rs_array *x, rs_stream *stream) {
  return unique_new(values, NULL, inverse, NULL, W_(V) | W_(INV), x, stream, "rs_unique_inverse");
}
rs_status rs_unique_inverse_into(rs_array *values, rs_array *inverse, const rs_array *x, rs_stream *stream) {
  return unique_dst(values, NULL, inverse, NULL, W_(V) | W_(INV), x, stream, "rs_unique_inverse_into");
}
rs_status rs_unique_all(rs_array **values, rs_array **indices, rs_array **inverse, rs_array **counts,
                        const rs_array *x, rs_stream *stream) {
  return unique_new(values, indices, inverse, counts, 0xfu, x, stream, "rs_unique_all");
}
rs_status rs_unique_all_into(rs_array *values, rs_array *indices, rs_array *inverse, rs_array *counts,
                             const rs_array *x, rs_stream *stream) {
  return unique_dst(values, indices, inverse, counts, 0xfu, x, stream, "rs_unique_all_into");
}
#undef W_
