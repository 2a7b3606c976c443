/* SVD and linear solve: shapes, dtypes, private copies in the layouts the backends take,
 * and the convergence / singularity flag the backend leaves on the device, read back
 * through the copy path (an implicit copy of 4 bytes, in the ledger). */
#include <string.h>
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/linalg.h"
#include "transfer/copy.h"
#include "ops/linalg_internal.h"

/* bool and integers decompose in float64 as NumPy does; float16 is refused. */
rs_status rs_decomp_dtype(rs_dtype *out, rs_dtype a, rs_dtype b, const char *who) {
  if (a == RS_BOOL || rs_dtype_is_integer(a)) a = RS_FLOAT64;
  if (b == RS_BOOL || rs_dtype_is_integer(b)) b = RS_FLOAT64;
  return rs_linalg_dtype(out, a, b, who);
}

/* A private C-contiguous copy of x as dtype dt with the given shape (broadcasting x). */
rs_status rs_decomp_private_copy(rs_array **out, const rs_array *x, rs_dtype dt, int ndim, const int64_t *shape,
                              const int64_t *strides, rs_stream *stream, const char *who) {
  RS_TRY(rs_array_alloc(out, x->ctx, rs_ops_on_device(x) ? RS_MEM_DEVICE : RS_MEM_HOST, 0, ndim, shape, dt, strides,
                        RS_ORDER_C, who));
  rs_status st = rs_copy_into(*out, x, stream);
  if (st != RS_OK) {
    rs_array_release(*out);
    *out = NULL;
  }
  return st;
}

/* The flag a backend left in `info` (an int32 array of one element). */
rs_status rs_decomp_read_flag(int32_t *flag, rs_array *info, rs_stream *stream, const char *who) {
  rs_array *h = NULL;
  RS_TRY(rs_host_array_wrap(&h, info->ctx, flag, 0, NULL, RS_INT32, NULL));
  rs_copy_cause cause = RS_IMPLICIT(who, -1);
  rs_status st = rs_copy_path(h, info, stream, &cause);
  rs_array_release(h);
  return st;
}

/* An output: the op's result (rs_ops_result); `work` is where the backend writes - the
 * result itself when C-contiguous, else a temporary copied over afterwards. */
rs_status rs_decomp_out_prepare(rs_decomp_out *o, rs_array **user, rs_context *ctx, int on_device, int ndim,
                             const int64_t *shape, rs_dtype dt, const char *who) {
  o->work = NULL;
  RS_TRY(rs_ops_result_begin(&o->r, user, ctx, on_device, ndim, shape, dt, RS_ORDER_C, RS_OPS_CAST_EXACT, who));
  if (rs_array_is_c_contiguous(o->r.target)) {
    o->work = o->r.target;
    return rs_array_retain(o->work);
  }
  return rs_ops_alloc(&o->work, ctx, on_device, ndim, shape, dt, RS_ORDER_C, who);
}

/* After success: copy a temporary into the result. */
rs_status rs_decomp_out_finish(rs_decomp_out *o, rs_status st, rs_stream *stream, const char *who) {
  if (st == RS_OK && o->work != o->r.target) {
    rs_copy_cause cause = RS_IMPLICIT(who, -1);
    st = rs_copy_path(o->r.target, o->work, stream, &cause);
  }
  rs_array_release(o->work);
  o->work = NULL;
  return st;
}

static rs_status svd(rs_array **u, rs_array **s, rs_array **vh, const rs_array *a, int full_matrices, rs_stream *stream) {
  const char *who = "svd";
  if (!s) return rs_fail(RS_ERR_NULL_POINTER, "%s: s is NULL", who);
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2) return rs_fail(RS_ERR_SHAPE, "%s: %d-dimensional array given, the last two axes must be a matrix", who, a->ndim);
  int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n, batch = 1;
  if (m == 0 || n == 0) return rs_fail(RS_ERR_SHAPE, "%s: SVD of an empty (%lld x %lld) matrix", who, (long long)m, (long long)n);
  rs_dtype dt;
  RS_TRY(rs_decomp_dtype(&dt, a->dtype, a->dtype, who));
  rs_dtype rdt = rs_real_of(dt);
  int nb = a->ndim - 2, compute_uv = u || vh;
  for (int i = 0; i < nb; i++) batch *= a->shape[i];
  int64_t ushape[RS_MAX_DIMS], sshape[RS_MAX_DIMS], vshape[RS_MAX_DIMS];
  memcpy(ushape, a->shape, (size_t)nb * sizeof(int64_t));
  memcpy(sshape, a->shape, (size_t)nb * sizeof(int64_t));
  memcpy(vshape, a->shape, (size_t)nb * sizeof(int64_t));
  ushape[nb] = m, ushape[nb + 1] = full_matrices ? m : k;
  sshape[nb] = k;
  vshape[nb] = full_matrices ? n : k, vshape[nb + 1] = n;
  rs_context *ctx = a->ctx;
  int dev = rs_ops_on_device(a);
  rs_decomp_out U = {0}, S = {0}, V = {0};
  rs_array *ac = NULL, *info = NULL;
  rs_status st = rs_decomp_out_prepare(&S, s, ctx, dev, nb + 1, sshape, rdt, who);
  if (st == RS_OK && compute_uv) st = rs_decomp_out_prepare(&U, u, ctx, dev, nb + 2, ushape, dt, who);
  if (st == RS_OK && compute_uv) st = rs_decomp_out_prepare(&V, vh, ctx, dev, nb + 2, vshape, dt, who);
  if (st == RS_OK) {
    if (a->dtype == dt && rs_array_is_c_contiguous(a)) {
      ac = (rs_array *)(uintptr_t)a;
      st = rs_array_retain(ac);
    } else {
      st = rs_decomp_private_copy(&ac, a, dt, a->ndim, a->shape, NULL, stream, who);
    }
  }
  if (st == RS_OK) st = rs_ops_alloc(&info, ctx, dev, 0, NULL, RS_INT32, RS_ORDER_C, who);
  if (st == RS_OK) {
    rs_ops_stage sg;
    const rs_array *in[1] = {ac};
    rs_array *outs[4] = {S.work, info, U.work, V.work};
    st = rs_ops_stage_begin(&sg, who, ctx, stream, 1, in, compute_uv ? 4 : 2, outs);
    if (st == RS_OK) {
      rs_svd_plan p = {dt, batch, m, n, full_matrices != 0, compute_uv, NULL, NULL, NULL, NULL, NULL};
      p.a = rs_ops_stage_ptr(&sg, 0);
      p.s = rs_ops_stage_ptr(&sg, 1);
      p.info = (int32_t *)(void *)rs_ops_stage_ptr(&sg, 2);
      if (compute_uv) {
        p.u = rs_ops_stage_ptr(&sg, 3);
        p.vh = rs_ops_stage_ptr(&sg, 4);
      }
      st = sg.ops->svd(sg.be, &p, sg.stream);
      st = rs_ops_stage_end(&sg, st);
    }
  }
  if (st == RS_OK) {
    int32_t flag = 0;
    st = rs_decomp_read_flag(&flag, info, stream, who);
    if (st == RS_OK && flag)
      st = rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: SVD did not converge (NaN or infinity in the input?)", who);
  }
  st = rs_decomp_out_finish(&S, st, stream, who);
  if (compute_uv) {
    st = rs_decomp_out_finish(&U, st, stream, who);
    st = rs_decomp_out_finish(&V, st, stream, who);
  }
  rs_ops_result_end(&S.r, st);
  rs_ops_result_end(&U.r, st);
  rs_ops_result_end(&V.r, st);
  rs_array_release(ac);
  rs_array_release(info);
  return st;
}

rs_status rs_decomp_solve(rs_array **x, const rs_array *a, const rs_array *b, rs_stream *stream, const char *who) {
  if (!x) return rs_fail(RS_ERR_NULL_POINTER, "%s: x is NULL", who);
  RS_TRY(rs_array_check(a, who));
  RS_TRY(rs_array_check(b, who));
  if (a->ctx != b->ctx) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: operands belong to different contexts", who);
  char sa[512], sb[512];
  rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape);
  rs_ops_shape_str(sb, sizeof sb, b->ndim, b->shape);
  if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
    return rs_fail(RS_ERR_SHAPE, "%s: a %s must be (..., n, n)", who, sa);
  if (b->ndim < 1) return rs_fail(RS_ERR_SHAPE, "%s: b is 0-d", who);
  int vec = b->ndim == 1; /* NumPy 2: b is a vector only when it is 1-d */
  int64_t n = a->shape[a->ndim - 1], bn = vec ? b->shape[0] : (b->ndim >= 2 ? b->shape[b->ndim - 2] : -1);
  int64_t k = vec ? 1 : b->shape[b->ndim - 1];
  if (bn != n) return rs_fail(RS_ERR_SHAPE, "%s: a %s and b %s do not match", who, sa, sb);
  rs_dtype dt;
  RS_TRY(rs_decomp_dtype(&dt, a->dtype, b->dtype, who));
  int nba = a->ndim - 2, nbb = vec ? 0 : b->ndim - 2, nb = nba > nbb ? nba : nbb;
  int64_t B[RS_MAX_DIMS] = {0}, batch = 1;
  for (int i = 0; i < nb; i++) {
    int ia = i - (nb - nba), ib = i - (nb - nbb);
    int64_t ea = ia < 0 ? 1 : a->shape[ia], eb = ib < 0 ? 1 : b->shape[ib];
    if (ea != eb && ea != 1 && eb != 1) return rs_fail(RS_ERR_BROADCAST, "%s: batch axes of %s and %s do not broadcast", who, sa, sb);
    B[i] = ea == 1 ? eb : ea;
    batch *= B[i];
  }
  int rnd = nb;
  int64_t rshape[RS_MAX_DIMS];
  memcpy(rshape, B, (size_t)nb * sizeof(int64_t));
  rshape[rnd++] = n;
  if (!vec) rshape[rnd++] = k;
  rs_context *ctx = a->ctx;
  int dev = rs_ops_on_device(a) || rs_ops_on_device(b);
  rs_ops_result r;
  RS_TRY(rs_ops_result_begin(&r, x, ctx, dev, rnd, rshape, dt, RS_ORDER_C, RS_OPS_CAST_SAME_KIND, who));
  rs_array *target = r.target;
  rs_status st = RS_OK;
  if (batch > 0 && n > 0 && k > 0) {
    /* private copies: A row-major (B..., n, n); B column-major per matrix (B..., n, k) */
    int64_t item = (int64_t)rs_dtype_size(dt), ashape[RS_MAX_DIMS], bshape[RS_MAX_DIMS], bstr[RS_MAX_DIMS];
    memcpy(ashape, B, (size_t)nb * sizeof(int64_t));
    ashape[nb] = n, ashape[nb + 1] = n;
    memcpy(bshape, B, (size_t)nb * sizeof(int64_t));
    bshape[nb] = n, bshape[nb + 1] = k;
    bstr[nb] = item, bstr[nb + 1] = n * item;
    for (int i = nb - 1; i >= 0; i--) bstr[i] = (i == nb - 1 ? n * k * item : bstr[i + 1] * bshape[i + 1]);
    rs_array *ac = NULL, *bc = NULL, *bview = NULL, *info = NULL;
    if (vec) st = rs_array_expand_dims(&bview, b, 1);
    else st = rs_array_retain((rs_array *)(uintptr_t)b), bview = (rs_array *)(uintptr_t)b;
    if (st == RS_OK) st = rs_decomp_private_copy(&ac, a, dt, nb + 2, ashape, NULL, stream, who);
    if (st == RS_OK) st = rs_decomp_private_copy(&bc, bview, dt, nb + 2, bshape, bstr, stream, who);
    if (st == RS_OK) st = rs_ops_alloc(&info, ctx, dev, 0, NULL, RS_INT32, RS_ORDER_C, who);
    if (st == RS_OK) {
      rs_ops_stage sg;
      /* the solver factors A and overwrites B in place: both read and written */
      const rs_array *ins[2] = {ac, bc};
      rs_array *outs[3] = {ac, bc, info};
      st = rs_ops_stage_begin(&sg, who, ctx, stream, 2, ins, 3, outs);
      if (st == RS_OK) {
        rs_solve_plan p = {dt, batch, n, k, rs_ops_stage_ptr(&sg, 2), rs_ops_stage_ptr(&sg, 3),
                           (int32_t *)(void *)rs_ops_stage_ptr(&sg, 4)};
        st = sg.ops->solve(sg.be, &p, sg.stream);
        st = rs_ops_stage_end(&sg, st);
      }
    }
    if (st == RS_OK) {
      int32_t flag = 0;
      st = rs_decomp_read_flag(&flag, info, stream, who);
      if (st == RS_OK && flag) st = rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: singular matrix", who);
    }
    if (st == RS_OK) { /* the solutions, into the result's shape */
      rs_array *xv = NULL;
      if (vec) {
        st = rs_array_squeeze(&xv, bc, nb + 1);
      } else {
        xv = bc;
        rs_array_retain(xv);
      }
      if (st == RS_OK) st = rs_copy_into(target, xv, stream);
      rs_array_release(xv);
    }
    rs_array_release(ac);
    rs_array_release(bc);
    rs_array_release(bview);
    rs_array_release(info);
  }
  return rs_ops_result_end(&r, st);
}

rs_status rs_svd(rs_array **u, rs_array **s, rs_array **vh, const rs_array *a, int full_matrices, rs_stream *stream) {
  if (!s) return rs_fail(RS_ERR_NULL_POINTER, "svd: s is NULL");
  rs_array *nu = NULL, *ns = NULL, *nv = NULL; /* the caller's pointers are never read */
  rs_status st = svd(u ? &nu : NULL, &ns, vh ? &nv : NULL, a, full_matrices, stream);
  if (st != RS_OK) return st;
  if (u) *u = nu;
  *s = ns;
  if (vh) *vh = nv;
  return RS_OK;
}

rs_status rs_svd_into(rs_array *u, rs_array *s, rs_array *vh, const rs_array *a, int full_matrices, rs_stream *stream) {
  if (!s) return rs_fail(RS_ERR_NULL_POINTER, "svd_into: s is NULL");
  return svd(u ? &u : NULL, &s, vh ? &vh : NULL, a, full_matrices, stream);
}

static rs_status solve(rs_array **x, const rs_array *a, const rs_array *b, rs_stream *stream) {
  return rs_decomp_solve(x, a, b, stream, "solve");
}

RS_OPS_PAIR(rs_solve, (const rs_array *a, const rs_array *b, rs_stream *stream), solve, (a, b, stream))
