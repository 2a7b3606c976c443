/* searchsorted: a binary search per value (plan: native/plans_index.h) over a - or a
 * taken through sorter - with a and v in their promoted dtype. */
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/index_internal.h"
#include "ops/into.h"
#include "resident/indexing.h"

static rs_status search_impl(rs_array **io, const rs_array *a, const rs_array *v, rs_side side,
                             const rs_array *sorter, rs_stream *stream) {
  const char *who = "searchsorted";
  const rs_array *ops[3] = {a, v, sorter};
  rs_context *ctx = NULL;
  RS_TRY(rs_ops_check_arrays(&ctx, sorter ? 3 : 2, ops, who));
  if (side != RS_SIDE_LEFT && side != RS_SIDE_RIGHT)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: side %d is neither RS_SIDE_LEFT nor RS_SIDE_RIGHT", who, (int)side);
  if (a->ndim != 1) return rs_fail(RS_ERR_SHAPE, "%s: the sorted array must be 1-d, not %d-d", who, a->ndim);
  rs_dtype dt = rs_promote(a->dtype, v->dtype);
  if (rs_dtype_is_complex(dt))
    return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s: complex numbers are not ordered", who, rs_dtype_name(dt));
  if (sorter && (sorter->ndim != 1 || sorter->shape[0] != a->shape[0]))
    return rs_fail(RS_ERR_SHAPE, "%s: sorter must be 1-d of the array's length %lld", who, (long long)a->shape[0]);
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, io, ctx, rs_ops_any_on_device(sorter ? 3 : 2, ops), v->ndim, v->shape, RS_INT64,
                             RS_ORDER_C, RS_OPS_CAST_EXACT, who));
  rs_array *t = r.target, *taken = NULL, *sa = NULL, *sv = NULL, *tmp = NULL;
  int64_t n = a->shape[0], m = rs_array_size(v);
  rs_status st = RS_OK;
  if (m > 0 && n == 0) st = rs_zeros_into(t, stream);
  if (m > 0 && n > 0) {
    if (sorter) { /* a[sorter], the sorter checked as indices are */
      rs_index_geom g;
      st = rs_index_take_geom(&g, a, 0, sorter, who);
      if (st == RS_OK) st = rs_index_gather(&taken, (rs_array *)(uintptr_t)a, sorter, &g, 0, stream, who);
    }
    if (st == RS_OK) st = rs_index_dense(&sa, taken ? taken : a, dt, 0, stream, who);
    if (st == RS_OK) st = rs_index_dense(&sv, v, dt, 0, stream, who);
    if (st == RS_OK && (!rs_array_is_c_contiguous(t) || rs_index_share(t, sa) || rs_index_share(t, sv)))
      st = rs_ops_alloc(&tmp, ctx, rs_ops_on_device(t), v->ndim, v->shape, RS_INT64, RS_ORDER_C, who);
    rs_array *o = tmp ? tmp : t;
    rs_ops_stage s;
    const rs_array *in[2] = {sa, sv};
    if (st == RS_OK) st = rs_ops_stage_begin(&s, who, ctx, stream, 2, in, 1, &o);
    if (st == RS_OK) {
      rs_search_plan p = {dt, side == RS_SIDE_RIGHT, n, m, rs_ops_stage_ptr(&s, 0), rs_ops_stage_ptr(&s, 1),
                          (int64_t *)(void *)rs_ops_stage_ptr(&s, 2)};
      st = rs_ops_stage_end(&s, s.ops->search(s.be, &p, s.stream));
    }
    if (st == RS_OK && tmp) st = rs_index_deliver(t, tmp, stream);
  }
  rs_array_release(tmp);
  rs_array_release(sv);
  rs_array_release(sa);
  rs_array_release(taken);
  return rs_ops_result_end(&r, st);
}

RS_OPS_PAIR(rs_searchsorted,
            (const rs_array *a, const rs_array *v, rs_side side, const rs_array *sorter, rs_stream *stream),
            search_impl, (a, v, side, sorter, stream))
