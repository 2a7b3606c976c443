/* The linalg extension's factorizations: cholesky, qr, eigh / eigvalsh, det / slogdet
 * (from LU), and inv (a solve against the identity). One driver checks the input,
 * makes the private column-major copy the backends factor in place (LAPACK's layout,
 * rs_factor_plan), runs the backend's `factor` entry, reads its flag, and copies the
 * column-major results into the results. A new factor (Cholesky's, the eigenvectors, Q, and
 * R when it is all of a's rows) is the column-major array the solver wrote, handed over
 * without a copy; an _into destination gets a copy in its own layout. */
#include <string.h>
#include "core/dtype_rules.h"
#include "core/error.h"
#include "memory/buffer.h"
#include "ops/into.h"
#include "ops/linalg_internal.h"
#include "resident/linalg.h"

/* What one call asks for: the plan's kind and option, and the outputs wanted (NULL: not). */
typedef struct factor_req {
  rs_factor_kind kind;
  int option;
  const char *who;
  rs_array **a_out;   /* the factor: Cholesky's, eigenvectors, QR's R */
  rs_array **q_out;   /* QR's Q */
  rs_array **w_out;   /* eigenvalues */
  rs_array **det_out, **sign_out, **logabs_out;
} factor_req;

/* Byte strides of a stack of column-major m x n matrices with nb batch axes. */
static void colmajor_strides(int64_t *st, int nb, const int64_t *batch_shape, int64_t m, int64_t n, int64_t item) {
  st[nb] = item, st[nb + 1] = m * item;
  int64_t acc = m * n * item;
  for (int i = nb - 1; i >= 0; i--) st[i] = acc, acc *= batch_shape[i];
}

static const char *flag_message(rs_factor_kind kind) {
  switch (kind) {
    case RS_FACTOR_CHOLESKY: return "matrix is not positive definite";
    case RS_FACTOR_EIGH: return "eigenvalues did not converge (NaN or infinity in the input?)";
    case RS_FACTOR_QR: return "QR factorization failed (NaN or infinity in the input?)";
    default: return "LU factorization failed";
  }
}

typedef struct factor_state {
  rs_ops_result F, Q;              /* column-major work copied into these */
  rs_decomp_out W, D, S, L;        /* written by the backend directly */
  rs_array *ac, *qwork, *info;
} factor_state;

static rs_status run(const factor_req *rq, factor_state *fs, rs_factor_plan *p, int dev, rs_stream *stream) {
  rs_ops_stage sg;
  const rs_array *in[1] = {fs->ac};
  rs_array *outs[7];
  void **slot[7];
  int nout = 0;
  outs[nout] = fs->ac, slot[nout++] = &p->a;
  outs[nout] = fs->info, slot[nout++] = (void **)(void *)&p->info;
  if (fs->qwork) outs[nout] = fs->qwork, slot[nout++] = &p->q;
  if (fs->W.work) outs[nout] = fs->W.work, slot[nout++] = &p->w;
  if (fs->D.work) outs[nout] = fs->D.work, slot[nout++] = &p->det;
  if (fs->S.work) outs[nout] = fs->S.work, slot[nout++] = &p->sign;
  if (fs->L.work) outs[nout] = fs->L.work, slot[nout++] = &p->logabs;
  (void)dev;
  RS_TRY(rs_ops_stage_begin(&sg, rq->who, fs->ac->ctx, stream, 1, in, nout, outs));
  for (int i = 0; i < nout; i++) *slot[i] = rs_ops_stage_ptr(&sg, 1 + i);
  rs_status st = sg.ops->factor ? sg.ops->factor(sg.be, p, sg.stream)
                                : rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend has no factorizations", rq->who, sg.ops->name);
  return rs_ops_stage_end(&sg, st);
}

/* Empty matrices (m or n = 0), as NumPy answers them: det 1, slogdet (1, 0), the complete
 * QR's Q the identity; every other result is empty already. */
static rs_status empty_results(factor_state *fs, const factor_req *rq, const rs_array *a, int64_t m, rs_stream *stream) {
  rs_status st = RS_OK;
  if (fs->D.work) st = rs_ones_into(fs->D.work, stream);
  if (st == RS_OK && fs->S.work) st = rs_ones_into(fs->S.work, stream);
  if (st == RS_OK && fs->L.work) st = rs_zeros_into(fs->L.work, stream);
  if (st == RS_OK && rq->q_out && rq->option && m > 0) {
    rs_array *eye = NULL;
    st = rs_eye(&eye, a->ctx, rs_ops_on_device(a) ? RS_MEM_DEVICE : RS_MEM_HOST, m, m, 0, fs->Q.target->dtype, stream);
    if (st == RS_OK) st = rs_copy_into(fs->Q.target, eye, stream);
    rs_array_release(eye);
  }
  return st;
}

static rs_status factor(const factor_req *rq, const rs_array *a, rs_stream *stream) {
  const char *who = rq->who;
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2)
    return rs_fail(RS_ERR_SHAPE, "%s: %d-dimensional array given, the last two axes must be a matrix", who, a->ndim);
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], k = m < n ? m : n, batch = 1;
  char sa[512];
  rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape);
  if (rq->kind != RS_FACTOR_QR && m != n) return rs_fail(RS_ERR_SHAPE, "%s: a %s is not square (..., n, n)", who, sa);
  rs_dtype dt;
  RS_TRY(rs_decomp_dtype(&dt, a->dtype, a->dtype, who));
  rs_dtype rdt = rs_real_of(dt);
  for (int i = 0; i < nb; i++) batch *= a->shape[i];
  int64_t qcols = rq->option ? m : k, rrows = rq->kind == RS_FACTOR_QR && !rq->option ? k : m;
  int64_t fshape[RS_MAX_DIMS], qshape[RS_MAX_DIMS], wshape[RS_MAX_DIMS], cst[RS_MAX_DIMS], qst[RS_MAX_DIMS];
  memcpy(fshape, a->shape, (size_t)nb * sizeof(int64_t));
  memcpy(qshape, a->shape, (size_t)nb * sizeof(int64_t));
  memcpy(wshape, a->shape, (size_t)nb * sizeof(int64_t));
  fshape[nb] = rrows, fshape[nb + 1] = n;
  qshape[nb] = m, qshape[nb + 1] = qcols;
  wshape[nb] = n;
  int64_t item = (int64_t)rs_dtype_size(dt);
  colmajor_strides(cst, nb, a->shape, m, n, item);
  colmajor_strides(qst, nb, a->shape, m, qcols, item);
  rs_context *ctx = a->ctx;
  int dev = rs_ops_on_device(a);
  factor_state fs;
  memset(&fs, 0, sizeof fs);
  rs_status st = RS_OK;
  int work = batch > 0 && m > 0 && n > 0; /* the backend runs */
  /* Read transposed where that is the same problem, saving a transposing copy: the C-order
   * copy of a is a^T column-major; a real symmetric matrix taken from a^T's other triangle
   * is the one NumPy takes from a's lower (Cholesky's factor then comes out as the other
   * factor in C order), and det(a^T) = det(a). */
  int real = dt == RS_FLOAT32 || dt == RS_FLOAT64;
  int flip = rq->kind == RS_FACTOR_LU || (real && (rq->kind == RS_FACTOR_CHOLESKY || rq->kind == RS_FACTOR_EIGH));
  int direct_a = work && rq->a_out && !*rq->a_out && rrows == m, direct_q = work && rq->q_out && !*rq->q_out;
  if (rq->a_out && !direct_a) st = rs_ops_result_begin(&fs.F, rq->a_out, ctx, dev, nb + 2, fshape, dt, RS_ORDER_C, RS_OPS_CAST_EXACT, who);
  if (st == RS_OK && rq->q_out && !direct_q)
    st = rs_ops_result_begin(&fs.Q, rq->q_out, ctx, dev, nb + 2, qshape, dt, RS_ORDER_C, RS_OPS_CAST_EXACT, who);
  if (st == RS_OK && rq->w_out) st = rs_decomp_out_prepare(&fs.W, rq->w_out, ctx, dev, nb + 1, wshape, rdt, who);
  if (st == RS_OK && rq->det_out) st = rs_decomp_out_prepare(&fs.D, rq->det_out, ctx, dev, nb, a->shape, dt, who);
  if (st == RS_OK && rq->sign_out) st = rs_decomp_out_prepare(&fs.S, rq->sign_out, ctx, dev, nb, a->shape, dt, who);
  if (st == RS_OK && rq->logabs_out) st = rs_decomp_out_prepare(&fs.L, rq->logabs_out, ctx, dev, nb, a->shape, rdt, who);
  if (m == 0 || n == 0) {
    if (st == RS_OK) st = empty_results(&fs, rq, a, m, stream);
  } else if (batch > 0) {
    if (st == RS_OK) st = rs_decomp_private_copy(&fs.ac, a, dt, a->ndim, a->shape, flip ? NULL : cst, stream, who);
    if (st == RS_OK && rq->kind == RS_FACTOR_QR)
      st = rs_array_alloc(&fs.qwork, ctx, dev ? RS_MEM_DEVICE : RS_MEM_HOST, 0, nb + 2, qshape, dt, qst, RS_ORDER_C, who);
    if (st == RS_OK) st = rs_ops_alloc(&fs.info, ctx, dev, 0, NULL, RS_INT32, RS_ORDER_C, who);
    if (st == RS_OK) {
      rs_factor_plan p = {.kind = rq->kind, .dtype = dt, .batch = batch, .m = m, .n = n, .option = rq->option};
      if (flip && rq->kind == RS_FACTOR_CHOLESKY) p.option = !rq->option;
      p.upper = flip && rq->kind == RS_FACTOR_EIGH;
      /* Q with a's shape (the reduced QR of a tall or square matrix, the complete one of a
       * square matrix): made in place of the reflectors, and the arrays trade roles after,
       * saving a copy of m x k values (64 MB for 8192 x 1024 float64). */
      p.q_in_a = rq->kind == RS_FACTOR_QR && (rq->option ? m : k) == n;
      st = run(rq, &fs, &p, dev, stream);
      if (st == RS_OK && p.q_in_a) {
        rs_array *t = fs.ac;
        fs.ac = fs.qwork, fs.qwork = t;
      }
    }
    if (st == RS_OK) {
      int32_t flag = 0;
      st = rs_decomp_read_flag(&flag, fs.info, stream, who);
      if (st == RS_OK && flag) st = rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %s", who, flag_message(rq->kind));
    }
    if (st == RS_OK && rq->a_out && flip && rq->kind == RS_FACTOR_EIGH) { /* the vectors: column-major */
      rs_array *v = NULL;
      st = rs_array_new_view(&v, fs.ac, nb + 2, a->shape, cst, fs.ac->offset);
      rs_array_release(fs.ac);
      fs.ac = v;
    }
    if (st == RS_OK && rq->a_out && !direct_a) {
      rs_array *src = NULL;
      rs_slice sl[RS_MAX_DIMS];
      for (int i = 0; i < nb + 2; i++) sl[i] = RS_SLICE_ALL;
      sl[nb].start = 0, sl[nb].stop = rrows;
      st = rs_array_slice(&src, fs.ac, nb + 2, sl);
      if (st == RS_OK) st = rs_copy_into(fs.F.target, src, stream);
      rs_array_release(src);
    }
    if (st == RS_OK && rq->q_out && !direct_q) st = rs_copy_into(fs.Q.target, fs.qwork, stream);
  }
  st = rs_decomp_out_finish(&fs.W, st, stream, who);
  st = rs_decomp_out_finish(&fs.D, st, stream, who);
  st = rs_decomp_out_finish(&fs.S, st, stream, who);
  st = rs_decomp_out_finish(&fs.L, st, stream, who);
  rs_ops_result_end(&fs.F, st);
  rs_ops_result_end(&fs.Q, st);
  rs_ops_result_end(&fs.W.r, st);
  rs_ops_result_end(&fs.D.r, st);
  rs_ops_result_end(&fs.S.r, st);
  rs_ops_result_end(&fs.L.r, st);
  if (st == RS_OK && direct_a) *rq->a_out = fs.ac, fs.ac = NULL; /* handed over */
  if (st == RS_OK && direct_q) *rq->q_out = fs.qwork, fs.qwork = NULL;
  rs_array_release(fs.ac);
  rs_array_release(fs.qwork);
  rs_array_release(fs.info);
  return st;
}

/* ---- the public calls ---- */

static rs_status cholesky(rs_array **out, const rs_array *a, int upper, rs_stream *stream) {
  factor_req rq = {RS_FACTOR_CHOLESKY, upper != 0, "cholesky", out, NULL, NULL, NULL, NULL, NULL};
  return factor(&rq, a, stream);
}
RS_OPS_PAIR(rs_cholesky, (const rs_array *a, int upper, rs_stream *stream), cholesky, (a, upper, stream))

static rs_status eigvalsh(rs_array **out, const rs_array *a, rs_stream *stream) {
  factor_req rq = {RS_FACTOR_EIGH, 0, "eigvalsh", NULL, NULL, out, NULL, NULL, NULL};
  return factor(&rq, a, stream);
}
RS_OPS_PAIR(rs_eigvalsh, (const rs_array *a, rs_stream *stream), eigvalsh, (a, stream))

static rs_status det(rs_array **out, const rs_array *a, rs_stream *stream) {
  factor_req rq = {RS_FACTOR_LU, 0, "det", NULL, NULL, NULL, out, NULL, NULL};
  return factor(&rq, a, stream);
}
RS_OPS_PAIR(rs_det, (const rs_array *a, rs_stream *stream), det, (a, stream))

static rs_status inv(rs_array **out, const rs_array *a, rs_stream *stream) {
  const char *who = "inv";
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
    char sa[512];
    return rs_fail(RS_ERR_SHAPE, "%s: a %s is not square (..., n, n)", who, rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape));
  }
  rs_dtype dt;
  RS_TRY(rs_decomp_dtype(&dt, a->dtype, a->dtype, who));
  /* inv(a) = solve(a, I), I broadcast over the batch */
  rs_array *eye = NULL;
  int64_t n = a->shape[a->ndim - 1];
  RS_TRY(rs_eye(&eye, a->ctx, rs_ops_on_device(a) ? RS_MEM_DEVICE : RS_MEM_HOST, n, n, 0, dt, stream));
  rs_status st = rs_decomp_solve(out, a, eye, stream, who);
  rs_array_release(eye);
  return st;
}
RS_OPS_PAIR(rs_inv, (const rs_array *a, rs_stream *stream), inv, (a, stream))

/* Two outputs: the new-array forms never read the caller's pointers and set both only on success. */
rs_status rs_qr(rs_array **q, rs_array **r, const rs_array *a, int complete, rs_stream *stream) {
  if (!r) return rs_fail(RS_ERR_NULL_POINTER, "qr: r is NULL");
  rs_array *nq = NULL, *nr = NULL;
  factor_req rq = {RS_FACTOR_QR, complete != 0, "qr", &nr, q ? &nq : NULL, NULL, NULL, NULL, NULL};
  RS_TRY(factor(&rq, a, stream));
  if (q) *q = nq;
  *r = nr;
  return RS_OK;
}

rs_status rs_qr_into(rs_array *q, rs_array *r, const rs_array *a, int complete, rs_stream *stream) {
  if (!r) return rs_fail(RS_ERR_NULL_POINTER, "qr_into: r is NULL");
  factor_req rq = {RS_FACTOR_QR, complete != 0, "qr", &r, q ? &q : NULL, NULL, NULL, NULL, NULL};
  return factor(&rq, a, stream);
}

rs_status rs_eigh(rs_array **w, rs_array **v, const rs_array *a, rs_stream *stream) {
  if (!w || !v) return rs_fail(RS_ERR_NULL_POINTER, "eigh: %s is NULL", w ? "v" : "w");
  rs_array *nw = NULL, *nv = NULL;
  factor_req rq = {RS_FACTOR_EIGH, 1, "eigh", &nv, NULL, &nw, NULL, NULL, NULL};
  RS_TRY(factor(&rq, a, stream));
  *w = nw, *v = nv;
  return RS_OK;
}

rs_status rs_eigh_into(rs_array *w, rs_array *v, const rs_array *a, rs_stream *stream) {
  if (!w || !v) return rs_fail(RS_ERR_NULL_POINTER, "eigh_into: %s is NULL", w ? "v" : "w");
  factor_req rq = {RS_FACTOR_EIGH, 1, "eigh", &v, NULL, &w, NULL, NULL, NULL};
  return factor(&rq, a, stream);
}

rs_status rs_slogdet(rs_array **sign, rs_array **logabsdet, const rs_array *a, rs_stream *stream) {
  if (!sign || !logabsdet) return rs_fail(RS_ERR_NULL_POINTER, "slogdet: %s is NULL", sign ? "logabsdet" : "sign");
  rs_array *ns = NULL, *nl = NULL;
  factor_req rq = {RS_FACTOR_LU, 0, "slogdet", NULL, NULL, NULL, NULL, &ns, &nl};
  RS_TRY(factor(&rq, a, stream));
  *sign = ns, *logabsdet = nl;
  return RS_OK;
}

rs_status rs_slogdet_into(rs_array *sign, rs_array *logabsdet, const rs_array *a, rs_stream *stream) {
  if (!sign || !logabsdet) return rs_fail(RS_ERR_NULL_POINTER, "slogdet_into: %s is NULL", sign ? "logabsdet" : "sign");
  factor_req rq = {RS_FACTOR_LU, 0, "slogdet", NULL, NULL, NULL, NULL, &sign, &logabsdet};
  return factor(&rq, a, stream);
}
