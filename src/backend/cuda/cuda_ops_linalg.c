/* matmul, SVD and solve on the GPU through cuBLAS and cuSOLVER (loaded on demand).
 *
 * Row-major (C) matrices are column-major transposes, which is how they are handed to
 * the column-major libraries without copies where possible: C = A B row-major is
 * C^T = B^T A^T column-major.
 *
 * SVD: the fast path is gesvdaStridedBatched (real dtypes) on the tall
 * matrix X (A, or A^T for a wide A); it is approximate by design, so its result is
 * checked - reconstruction error ||A - U S V^T|| / ||A|| from the routine itself and
 * orthogonality ||U^T U - I||, ||V^T V - I|| from two products - and kept only when
 * every error is below 1e-12 (float64; 1e-4 float32). A full SVD completes U with the
 * Q of a Householder QR of U. Otherwise (ill-conditioned input), and for complex
 * dtypes, gesvd (QR iteration, LAPACK's) computes it. Both paths are exact to the
 * dtype's precision. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops_blas.h"

/* alpha = 1 and beta = 0 of a dtype, as bytes the libraries read. */
typedef struct scal {
  double v[2];
  float f[2];
} scal;

static const void *one_of(rs_dtype dt, scal *s) {
  s->v[0] = 1, s->v[1] = 0, s->f[0] = 1, s->f[1] = 0;
  return (dt == RS_FLOAT32 || dt == RS_COMPLEX64) ? (const void *)s->f : (const void *)s->v;
}

static const void *zero_of(rs_dtype dt, scal *s) {
  memset(s, 0, sizeof *s);
  return (dt == RS_FLOAT32 || dt == RS_COMPLEX64) ? (const void *)s->f : (const void *)s->v;
}

static int fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

/* ---- matmul ---- */

static cublasStatus_t gemm(const rs_linalg *L, rs_dtype dt, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const void *A, int lda, long long sa, const void *B, int ldb, long long sb, void *C, int ldc,
                           long long sc, int batch) {
  scal one, zero;
  const void *al = one_of(dt, &one), *be = zero_of(dt, &zero);
  switch (dt) {
    case RS_FLOAT32:
      return L->blas->sgemm(L->cublas, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch);
    case RS_FLOAT64:
      return L->blas->dgemm(L->cublas, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch);
    case RS_COMPLEX64:
      return L->blas->cgemm(L->cublas, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch);
    default:
      return L->blas->zgemm(L->cublas, ta, tb, m, n, k, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, batch);
  }
}

rs_status rs_cuda_ops_matmul(rs_backend *b, const rs_matmul_plan *p, void *stream) {
  if (p->batch == 0 || p->m == 0 || p->n == 0 || p->k == 0) return RS_OK;
  int64_t item = (int64_t)rs_dtype_size(p->dtype);
  if (!fits_int(p->m) || !fits_int(p->n) || !fits_int(p->k) || !fits_int(p->batch))
    return rs_fail(RS_ERR_UNSUPPORTED, "matmul: dimensions beyond cuBLAS's int range");
  int a_row = p->a_cs == item, b_row = p->b_cs == item, c_row = p->c_cs == item;
  rs_linalg L;
  RS_TRY(rs_linalg_acquire(&L, b, stream, 0));
  cublasStatus_t s;
  long long sa = p->a_bs / item, sb = p->b_bs / item, sc = p->c_bs / item;
  if (c_row) { /* C^T (n x m) = B^T A^T, column-major */
    cublasOperation_t ob = b_row ? CUBLAS_OP_N : CUBLAS_OP_T, oa = a_row ? CUBLAS_OP_N : CUBLAS_OP_T;
    int ldb = (int)((b_row ? p->b_rs : p->b_cs) / item), lda = (int)((a_row ? p->a_rs : p->a_cs) / item);
    s = gemm(&L, p->dtype, ob, oa, (int)p->n, (int)p->m, (int)p->k, p->b, ldb, sb, p->a, lda, sa, p->c,
             (int)(p->c_rs / item), sc, (int)p->batch);
  } else { /* C (m x n) = A B, column-major */
    cublasOperation_t oa = a_row ? CUBLAS_OP_T : CUBLAS_OP_N, ob = b_row ? CUBLAS_OP_T : CUBLAS_OP_N;
    int lda = (int)((a_row ? p->a_rs : p->a_cs) / item), ldb = (int)((b_row ? p->b_rs : p->b_cs) / item);
    s = gemm(&L, p->dtype, oa, ob, (int)p->m, (int)p->n, (int)p->k, p->a, lda, sa, p->b, ldb, sb, p->c,
             (int)(p->c_cs / item), sc, (int)p->batch);
  }
  rs_linalg_release(&L);
  if (s != CUBLAS_STATUS_SUCCESS) return rs_cublas_fail(s, "matmul: cublas<t>gemmStridedBatched");
  return RS_OK;
}

/* ---- copies and transposes of column-major matrices ---- */

/* C (rows x cols, ldc) = op(A), op = transpose (T) or plain copy (N). */
static rs_status geam(const rs_linalg *L, rs_dtype dt, cublasOperation_t op, int rows, int cols, const void *A, int lda,
                      void *C, int ldc) {
  scal one, zero;
  const void *al = one_of(dt, &one), *be = zero_of(dt, &zero);
  cublasStatus_t s;
  switch (dt) {
    case RS_FLOAT32: s = L->blas->sgeam(L->cublas, op, CUBLAS_OP_N, rows, cols, al, A, lda, be, C, ldc, C, ldc); break;
    case RS_FLOAT64: s = L->blas->dgeam(L->cublas, op, CUBLAS_OP_N, rows, cols, al, A, lda, be, C, ldc, C, ldc); break;
    case RS_COMPLEX64: s = L->blas->cgeam(L->cublas, op, CUBLAS_OP_N, rows, cols, al, A, lda, be, C, ldc, C, ldc); break;
    default: s = L->blas->zgeam(L->cublas, op, CUBLAS_OP_N, rows, cols, al, A, lda, be, C, ldc, C, ldc); break;
  }
  return s == CUBLAS_STATUS_SUCCESS ? RS_OK : rs_cublas_fail(s, "cublas<t>geam");
}

static rs_status copy(void *dst, const void *src, size_t bytes, void *stream) {
  RS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream), "linear algebra: copy");
  return RS_OK;
}

/* ---- svd ---- */

typedef struct svd_run {
  rs_backend *b;
  const rs_svd_plan *p;
  rs_linalg L;
  void *stream;
  int64_t m, n, M, N, k, item, ritem, ucols;
  int wide;
  void *X, *U, *V, *G;
  int *flags;
} svd_run;

/* X (M x N column-major, M >= N): A for a tall A, A^T (its storage as is) for a wide one. */
static rs_status build_x(svd_run *r, const char *a) {
  if (r->wide) return copy(r->X, a, (size_t)(r->M * r->N * r->item), r->stream);
  return geam(&r->L, r->p->dtype, CUBLAS_OP_T, (int)r->m, (int)r->n, a, (int)r->n, r->X, (int)r->m);
}

/* max |W^T W - I| of the N x N product of an R x N column-major W, on the host. */
static rs_status orth(svd_run *r, const void *W, int rows, double *err) {
  int N = (int)r->N;
  cublasStatus_t s = gemm(&r->L, r->p->dtype, CUBLAS_OP_T, CUBLAS_OP_N, N, N, rows, W, rows, 0, W, rows, 0, r->G, N, 0, 1);
  if (s != CUBLAS_STATUS_SUCCESS) return rs_cublas_fail(s, "svd: orthogonality product");
  return rs_cuda_orth_error(r->b, r->p->dtype == RS_FLOAT64, r->G, N, err, r->stream);
}

/* Q (M x M, column-major): an orthonormal basis whose first N columns are U (M x N),
 * for the full U of a full SVD. Householder QR of U gives it: U = Q R with R orthogonal
 * and triangular, so diagonal of +-1; Q's first N columns are then replaced by U
 * itself and the rest span the orthogonal complement. Real dtypes. */
static rs_status complete_basis(svd_run *r, const void *U, void *Q) {
  const rs_solver_api *S = r->L.solver;
  int f64 = r->p->dtype == RS_FLOAT64, M = (int)r->M, N = (int)r->N;
  cudaDataType t = rs_cuda_data_type(r->p->dtype);
  size_t ub = (size_t)M * (size_t)N * (size_t)r->item;
  RS_TRY(copy(Q, U, ub, r->stream));
  size_t dbytes = 0, hbytes = 0;
  int lwork = 0;
  void *tau = NULL, *work = NULL, *hwork = NULL;
  cusolverStatus_t ss = S->geqrf_size(r->L.cusolver, r->L.params, M, N, t, Q, M, t, Q, t, &dbytes, &hbytes);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "svd: cusolverDnXgeqrf_bufferSize");
  ss = f64 ? S->dorgqr_size(r->L.cusolver, M, M, N, Q, M, Q, &lwork) : S->sorgqr_size(r->L.cusolver, M, M, N, Q, M, Q, &lwork);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "svd: cusolverDn<t>orgqr_bufferSize");
  size_t wbytes = dbytes > (size_t)lwork * (size_t)r->item ? dbytes : (size_t)lwork * (size_t)r->item;
  rs_status st = rs_cuda_ops_scratch(r->b, (size_t)N * (size_t)r->item + 256 + wbytes, r->stream, &tau);
  if (st == RS_OK) {
    work = (char *)tau + (((size_t)N * (size_t)r->item + 255) & ~(size_t)255);
    if (hbytes && !(hwork = malloc(hbytes))) st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "svd: host workspace");
  }
  if (st == RS_OK) {
    ss = S->geqrf(r->L.cusolver, r->L.params, M, N, t, Q, M, t, tau, t, work, dbytes, hwork, hbytes, r->flags + r->p->batch);
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "svd: cusolverDnXgeqrf");
  }
  if (st == RS_OK) {
    ss = f64 ? S->dorgqr(r->L.cusolver, M, M, N, Q, M, tau, work, lwork, r->flags + r->p->batch)
             : S->sorgqr(r->L.cusolver, M, M, N, Q, M, tau, work, lwork, r->flags + r->p->batch);
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "svd: cusolverDn<t>orgqr");
  }
  if (st == RS_OK) st = copy(Q, U, ub, r->stream);
  if (hwork) {
    if (cudaStreamSynchronize((cudaStream_t)r->stream) != cudaSuccess && st == RS_OK)
      st = rs_cuda_fail(cudaGetLastError(), "svd: waiting for geqrf");
    free(hwork);
  }
  rs_cuda_ops_scratch_free(tau, r->stream);
  return st;
}

/* The fast path; *done = 1 when its result passed the checks and was written out. */
static rs_status svd_fast(svd_run *r, int64_t q, int *done) {
  const rs_svd_plan *p = r->p;
  const rs_solver_api *S = r->L.solver;
  int f64 = p->dtype == RS_FLOAT64, M = (int)r->M, N = (int)r->N;
  void *s_q = (char *)p->s + q * r->k * r->ritem;
  *done = 0;
  /* ||A||_F first: gesvda overwrites X */
  double anorm = 0;
  cublasStatus_t bs;
  if (f64) {
    bs = r->L.blas->dnrm2(r->L.cublas, M * N, r->X, 1, &anorm);
  } else {
    float f = 0;
    bs = r->L.blas->snrm2(r->L.cublas, M * N, r->X, 1, &f);
    anorm = f;
  }
  if (bs != CUBLAS_STATUS_SUCCESS) return rs_cublas_fail(bs, "svd: cublas<t>nrm2");
  /* vectors even when only values are asked for: the check needs them */
  cusolverEigMode_t jobz = CUSOLVER_EIG_MODE_VECTOR;
  int lwork = 0;
  cusolverStatus_t ss;
  if (f64)
    ss = S->dgesvda_size(r->L.cusolver, jobz, N, M, N, r->X, M, (long long)M * N, s_q, N, r->U, M, (long long)M * N, r->V,
                         N, (long long)N * N, &lwork, 1);
  else
    ss = S->sgesvda_size(r->L.cusolver, jobz, N, M, N, r->X, M, (long long)M * N, s_q, N, r->U, M, (long long)M * N, r->V,
                         N, (long long)N * N, &lwork, 1);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "svd: gesvdaStridedBatched_bufferSize");
  void *work = NULL;
  RS_TRY(rs_cuda_ops_scratch(r->b, (size_t)lwork * (size_t)r->item, r->stream, &work));
  double resid = 0;
  if (f64)
    ss = S->dgesvda(r->L.cusolver, jobz, N, M, N, r->X, M, (long long)M * N, s_q, N, r->U, M, (long long)M * N, r->V, N,
                    (long long)N * N, work, lwork, r->flags + q, &resid, 1);
  else
    ss = S->sgesvda(r->L.cusolver, jobz, N, M, N, r->X, M, (long long)M * N, s_q, N, r->U, M, (long long)M * N, r->V, N,
                    (long long)N * N, work, lwork, r->flags + q, &resid, 1);
  rs_cuda_ops_scratch_free(work, r->stream);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "svd: gesvdaStridedBatched");
  int flag = 0;
  RS_CUDA_CALL(cudaMemcpyAsync(&flag, r->flags + q, sizeof flag, cudaMemcpyDeviceToHost, (cudaStream_t)r->stream),
               "svd: reading the flag");
  RS_CUDA_CALL(cudaStreamSynchronize((cudaStream_t)r->stream), "svd: waiting for gesvda");
  double tol = f64 ? 1e-12 : 1e-4, rel = anorm > 0 ? resid / anorm : resid, e1 = 0, e2 = 0;
  if (flag != 0 || !(rel <= tol)) return RS_OK; /* not good enough: the caller falls back */
  RS_TRY(orth(r, r->U, M, &e1));
  RS_TRY(orth(r, r->V, N, &e2));
  if (!(e1 <= tol) || !(e2 <= tol)) return RS_OK;
  if (p->compute_uv) {
    /* X = U S V^T: tall A = X; wide A = X^T = V S U^T. A full SVD completes U to M x M. */
    int64_t ucols = p->full ? r->m : r->k, vrows = p->full ? r->n : r->k;
    char *u_q = (char *)p->u + q * r->m * ucols * r->item, *vh_q = (char *)p->vh + q * vrows * r->n * r->item;
    const void *Ux = r->U;
    void *Q = NULL;
    if (p->full) {
      RS_TRY(rs_cuda_ops_scratch(r->b, (size_t)(M * M) * (size_t)r->item, r->stream, &Q));
      rs_status cst = complete_basis(r, r->U, Q);
      if (cst != RS_OK) {
        rs_cuda_ops_scratch_free(Q, r->stream);
        return cst;
      }
      Ux = Q;
    }
    int xcols = p->full ? M : N;
    rs_status ost;
    if (!r->wide) {
      ost = geam(&r->L, p->dtype, CUBLAS_OP_T, xcols, (int)r->m, Ux, M, u_q, xcols); /* u^T */
      if (ost == RS_OK) ost = copy(vh_q, r->V, (size_t)(N * N) * (size_t)r->item, r->stream); /* vh = V^T: V's storage */
    } else {
      ost = geam(&r->L, p->dtype, CUBLAS_OP_T, (int)r->m, (int)r->m, r->V, N, u_q, (int)r->m); /* u = V */
      if (ost == RS_OK) ost = copy(vh_q, Ux, (size_t)(M * xcols) * (size_t)r->item, r->stream); /* vh = U^T */
    }
    rs_cuda_ops_scratch_free(Q, r->stream);
    RS_TRY(ost);
  }
  *done = 1;
  return RS_OK;
}

/* gesvd (QR iteration): every dtype, full or economy. */
static rs_status svd_gesvd(svd_run *r, int64_t q) {
  const rs_svd_plan *p = r->p;
  const rs_solver_api *S = r->L.solver;
  signed char job = !p->compute_uv ? 'N' : p->full ? 'A' : 'S';
  cudaDataType t = rs_cuda_data_type(p->dtype), rt = rs_cuda_real_data_type(p->dtype);
  int64_t M = r->M, N = r->N;
  void *s_q = (char *)p->s + q * r->k * r->ritem;
  size_t dbytes = 0, hbytes = 0;
  cusolverStatus_t ss = S->gesvd_size(r->L.cusolver, r->L.params, job, job, M, N, t, r->X, M, rt, s_q, t, r->U, M, t,
                                      r->V, N, t, &dbytes, &hbytes);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "svd: cusolverDnXgesvd_bufferSize");
  void *dwork = NULL, *hwork = hbytes ? malloc(hbytes) : NULL;
  if (hbytes && !hwork) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "svd: %zu bytes of host workspace", hbytes);
  rs_status st = rs_cuda_ops_scratch(r->b, dbytes, r->stream, &dwork);
  if (st == RS_OK) {
    ss = S->gesvd(r->L.cusolver, r->L.params, job, job, M, N, t, r->X, M, rt, s_q, t, r->U, M, t, r->V, N, t, dwork, dbytes,
                  hwork, hbytes, r->flags + q);
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "svd: cusolverDnXgesvd");
  }
  rs_cuda_ops_scratch_free(dwork, r->stream);
  if (st == RS_OK && p->compute_uv) {
    /* X = U S V^H (U M x ucols, VT N x N). tall A = X: u = U, vh = VT. wide A = X^T:
     * u = conj(V') whose storage (u^T) is VT, vh = U'^T whose storage is U'. */
    char *u_q = (char *)p->u + q * r->m * (p->full ? r->m : r->k) * r->item;
    char *vh_q = (char *)p->vh + q * (p->full ? r->n : r->k) * r->n * r->item;
    if (!r->wide) {
      st = geam(&r->L, p->dtype, CUBLAS_OP_T, (int)r->ucols, (int)r->m, r->U, (int)M, u_q, (int)r->ucols);
      if (st == RS_OK) st = geam(&r->L, p->dtype, CUBLAS_OP_T, (int)r->n, (int)r->n, r->V, (int)N, vh_q, (int)r->n);
    } else {
      st = copy(u_q, r->V, (size_t)(N * N) * (size_t)r->item, r->stream);
      if (st == RS_OK) st = copy(vh_q, r->U, (size_t)(M * r->ucols) * (size_t)r->item, r->stream);
    }
  }
  if (hwork) { /* the host workspace may be used until the call's work is done */
    rs_status sync = cudaStreamSynchronize((cudaStream_t)r->stream) == cudaSuccess
                         ? RS_OK
                         : rs_cuda_fail(cudaGetLastError(), "svd: waiting for gesvd");
    if (st == RS_OK) st = sync;
    free(hwork);
  }
  return st;
}

rs_status rs_cuda_ops_svd(rs_backend *b, const rs_svd_plan *p, void *stream) {
  svd_run r;
  memset(&r, 0, sizeof r);
  r.b = b, r.p = p, r.stream = stream;
  r.m = p->m, r.n = p->n, r.wide = p->m < p->n;
  r.M = r.wide ? p->n : p->m, r.N = r.wide ? p->m : p->n, r.k = r.N;
  r.item = (int64_t)rs_dtype_size(p->dtype);
  r.ritem = (p->dtype == RS_FLOAT32 || p->dtype == RS_COMPLEX64) ? 4 : 8;
  r.ucols = p->full ? r.M : r.N;
  if (!fits_int(r.M * r.N) || !fits_int(r.M * r.ucols)) return rs_fail(RS_ERR_UNSUPPORTED, "svd: matrix too large for cuSOLVER");
  RS_TRY(rs_linalg_acquire(&r.L, b, stream, 1));
  size_t xb = (size_t)(r.M * r.N * r.item), ub = (size_t)(r.M * r.ucols * r.item), vb = (size_t)(r.N * r.N * r.item);
  size_t fb = (size_t)(p->batch + 1) * sizeof(int); /* + one for the QR helpers' flag */
  void *block = NULL;
  rs_status st = rs_cuda_ops_scratch(b, xb + ub + 2 * vb + fb + 4 * 256, stream, &block);
  if (st == RS_OK) {
    char *c = block;
    r.X = c, c += (xb + 255) & ~(size_t)255;
    r.U = c, c += (ub + 255) & ~(size_t)255;
    r.V = c, c += (vb + 255) & ~(size_t)255;
    r.G = c, c += (vb + 255) & ~(size_t)255;
    r.flags = (int *)(void *)c;
    if (cudaMemsetAsync(r.flags, 0, fb, (cudaStream_t)stream) != cudaSuccess)
      st = rs_cuda_fail(cudaGetLastError(), "svd: clearing the flags");
  }
  int real = p->dtype == RS_FLOAT32 || p->dtype == RS_FLOAT64;
  for (int64_t q = 0; st == RS_OK && q < p->batch; q++) {
    const char *a = (const char *)p->a + q * r.m * r.n * r.item;
    int done = 0;
    st = build_x(&r, a);
    if (st == RS_OK && real) {
      st = svd_fast(&r, q, &done);
      if (st == RS_OK && !done) st = build_x(&r, a); /* gesvda overwrote X: start again */
      if (st == RS_OK && !done &&
          cudaMemsetAsync(r.flags + q, 0, sizeof(int), (cudaStream_t)stream) != cudaSuccess)
        st = rs_cuda_fail(cudaGetLastError(), "svd: clearing the flag");
    }
    if (st == RS_OK && !done) st = svd_gesvd(&r, q);
  }
  if (st == RS_OK) st = rs_cuda_flags_any(r.flags, p->batch, p->info, stream);
  rs_cuda_ops_scratch_free(block, stream);
  rs_linalg_release(&r.L);
  return st;
}

/* ---- solve ---- */

/* A batch of small matrices: one getrfBatched and one getrsBatched for all of them (the
 * per-matrix calls below cost more in launches than in work there); the same flag. */
static rs_status solve_batched(rs_backend *b, const rs_solve_plan *p, void *stream) {
  rs_linalg L;
  RS_TRY(rs_linalg_acquire(&L, b, stream, 0));
  rs_cuda_lu_batch lu;
  rs_status st = rs_cuda_lu_batched(b, &L, p->dtype, p->a, (int)p->n, p->batch, p->b, (int)p->k, stream, &lu);
  if (st == RS_OK) st = rs_cuda_flags_any(lu.flags, p->batch, p->info, stream);
  rs_cuda_ops_scratch_free(lu.block, stream);
  rs_linalg_release(&L);
  return st;
}

rs_status rs_cuda_ops_solve(rs_backend *b, const rs_solve_plan *p, void *stream) {
  int64_t n = p->n, k = p->k, item = (int64_t)rs_dtype_size(p->dtype);
  if (rs_cuda_lu_batched_fits(n, p->batch) && k <= INT_MAX && n * k <= INT_MAX) return solve_batched(b, p, stream);
  cudaDataType t = rs_cuda_data_type(p->dtype);
  rs_linalg L;
  RS_TRY(rs_linalg_acquire(&L, b, stream, 1));
  const rs_solver_api *S = L.solver;
  size_t dbytes = 0, hbytes = 0;
  rs_status st = RS_OK;
  cusolverStatus_t ss = S->getrf_size(L.cusolver, L.params, n, n, t, p->a, n, t, &dbytes, &hbytes);
  if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "solve: cusolverDnXgetrf_bufferSize");
  void *block = NULL, *hwork = NULL;
  size_t pb = (size_t)n * sizeof(int64_t), fb = (size_t)(p->batch + 1) * sizeof(int);
  if (st == RS_OK && hbytes && !(hwork = malloc(hbytes)))
    st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "solve: %zu bytes of host workspace", hbytes);
  if (st == RS_OK) st = rs_cuda_ops_scratch(b, dbytes + pb + fb + 512, stream, &block);
  int64_t *ipiv = NULL;
  int *flags = NULL;
  void *work = NULL;
  if (st == RS_OK) {
    char *c = block;
    ipiv = (int64_t *)(void *)c, c += (pb + 255) & ~(size_t)255;
    flags = (int *)(void *)c, c += (fb + 255) & ~(size_t)255;
    work = c;
    if (cudaMemsetAsync(flags, 0, fb, (cudaStream_t)stream) != cudaSuccess)
      st = rs_cuda_fail(cudaGetLastError(), "solve: clearing the flags");
  }
  for (int64_t q = 0; st == RS_OK && q < p->batch; q++) {
    /* a row-major A is the column-major A^T: factor A^T, then solve (A^T)^T x = b */
    char *a = (char *)p->a + q * n * n * item, *x = (char *)p->b + q * n * k * item;
    ss = S->getrf(L.cusolver, L.params, n, n, t, a, n, ipiv, t, work, dbytes, hwork, hbytes, flags + q);
    if (ss != CUSOLVER_STATUS_SUCCESS) {
      st = rs_cusolver_fail(ss, "solve: cusolverDnXgetrf");
      break;
    }
    ss = S->getrs(L.cusolver, L.params, CUBLAS_OP_T, n, k, t, a, n, ipiv, t, x, n, flags + p->batch);
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "solve: cusolverDnXgetrs");
  }
  if (st == RS_OK) st = rs_cuda_flags_any(flags, p->batch, p->info, stream);
  if (hwork) {
    rs_status sync = cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess
                         ? RS_OK
                         : rs_cuda_fail(cudaGetLastError(), "solve: waiting for getrf");
    if (st == RS_OK) st = sync;
    free(hwork);
  }
  rs_cuda_ops_scratch_free(block, stream);
  rs_linalg_release(&L);
  return st;
}
