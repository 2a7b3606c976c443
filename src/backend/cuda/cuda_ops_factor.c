/* The linalg extension's factorizations on the GPU (rs_factor_plan): cuSOLVER's 64-bit
 * generic API (Xpotrf, Xgetrf, Xgeqrf, Xsyevd - syevd/heevd, the divide-and-conquer
 * eigensolver, as CuPy uses) one matrix after another on the plan's column-major copies,
 * then <t>orgqr / <t>ungqr for Q; the small kernels of cuda_ops_factor_kernels.cu zero
 * the triangles LAPACK leaves and turn LU factors into determinants. The per-matrix
 * flags fold into the plan's one flag. Batches of small matrices go to the batched
 * routines of cuda_ops_factor_batched.c instead. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops_blas.h"

typedef struct factor_run {
  rs_backend *b;
  const rs_factor_plan *p;
  rs_linalg L;
  void *stream;
  cudaDataType t;
  size_t item, dbytes, hbytes;
  void *dwork, *hwork;
  int *flags;
} factor_run;

/* Q from the reflectors of a geqrf: qcols columns of an m x qcols matrix. */
static cusolverStatus_t orgqr_size(factor_run *r, int m, int qcols, int k, void *q, const void *tau, int *lwork) {
  const rs_solver_api *S = r->L.solver;
  switch (r->p->dtype) {
    case RS_FLOAT32: return S->sorgqr_size(r->L.cusolver, m, qcols, k, q, m, tau, lwork);
    case RS_FLOAT64: return S->dorgqr_size(r->L.cusolver, m, qcols, k, q, m, tau, lwork);
    case RS_COMPLEX64: return S->cungqr_size(r->L.cusolver, m, qcols, k, q, m, tau, lwork);
    default: return S->zungqr_size(r->L.cusolver, m, qcols, k, q, m, tau, lwork);
  }
}

static cusolverStatus_t orgqr(factor_run *r, int m, int qcols, int k, void *q, const void *tau, void *work, int lwork,
                              int *info) {
  const rs_solver_api *S = r->L.solver;
  switch (r->p->dtype) {
    case RS_FLOAT32: return S->sorgqr(r->L.cusolver, m, qcols, k, q, m, tau, work, lwork, info);
    case RS_FLOAT64: return S->dorgqr(r->L.cusolver, m, qcols, k, q, m, tau, work, lwork, info);
    case RS_COMPLEX64: return S->cungqr(r->L.cusolver, m, qcols, k, q, m, tau, work, lwork, info);
    default: return S->zungqr(r->L.cusolver, m, qcols, k, q, m, tau, work, lwork, info);
  }
}

/* The workspace size of the plan's routine (the same for every matrix of the batch). */
static rs_status query(factor_run *r, void *tau, int *lwork) {
  const rs_factor_plan *p = r->p;
  const rs_solver_api *S = r->L.solver;
  cudaDataType t = r->t, rt = rs_cuda_real_data_type(p->dtype);
  int64_t m = p->m, n = p->n, k = m < n ? m : n;
  cusolverStatus_t ss = CUSOLVER_STATUS_SUCCESS;
  const char *what = "";
  *lwork = 0;
  switch (p->kind) {
    case RS_FACTOR_CHOLESKY:
      what = "cusolverDnXpotrf_bufferSize";
      ss = S->potrf_size(r->L.cusolver, r->L.params, p->option ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n, t, p->a,
                         n, t, &r->dbytes, &r->hbytes);
      break;
    case RS_FACTOR_LU:
      what = "cusolverDnXgetrf_bufferSize";
      ss = S->getrf_size(r->L.cusolver, r->L.params, n, n, t, p->a, n, t, &r->dbytes, &r->hbytes);
      break;
    case RS_FACTOR_QR:
      what = "cusolverDnXgeqrf_bufferSize";
      ss = S->geqrf_size(r->L.cusolver, r->L.params, m, n, t, p->a, m, t, tau, t, &r->dbytes, &r->hbytes);
      if (ss == CUSOLVER_STATUS_SUCCESS) {
        what = "cusolverDn<t>orgqr_bufferSize";
        ss = orgqr_size(r, (int)m, (int)(p->option ? m : k), (int)k, p->q, tau, lwork);
      }
      break;
    case RS_FACTOR_EIGH:
      what = "cusolverDnXsyevd_bufferSize";
      ss = S->syevd_size(r->L.cusolver, r->L.params, p->option ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR,
                         p->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n, t, p->a, n, rt, p->w, t, &r->dbytes, &r->hbytes);
      break;
  }
  return ss == CUSOLVER_STATUS_SUCCESS ? RS_OK : rs_cusolver_fail(ss, what);
}

/* Matrix q of the batch. */
static rs_status one(factor_run *r, int64_t q, int64_t *ipiv, void *tau, int lwork) {
  const rs_factor_plan *p = r->p;
  const rs_solver_api *S = r->L.solver;
  cudaDataType t = r->t, rt = rs_cuda_real_data_type(p->dtype);
  int64_t m = p->m, n = p->n, k = m < n ? m : n, qcols = p->option ? m : k;
  char *a = (char *)p->a + (size_t)(q * m * n) * r->item;
  cusolverStatus_t ss = CUSOLVER_STATUS_SUCCESS;
  const char *what = "";
  switch (p->kind) {
    case RS_FACTOR_CHOLESKY:
      what = "cusolverDnXpotrf";
      ss = S->potrf(r->L.cusolver, r->L.params, p->option ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n, t, a, n, t,
                    r->dwork, r->dbytes, r->hwork, r->hbytes, r->flags + q);
      break;
    case RS_FACTOR_LU:
      what = "cusolverDnXgetrf";
      ss = S->getrf(r->L.cusolver, r->L.params, n, n, t, a, n, ipiv + q * n, t, r->dwork, r->dbytes, r->hwork, r->hbytes,
                    r->flags + q);
      break;
    case RS_FACTOR_QR: {
      char *qm = (char *)p->q + (size_t)(q * m * qcols) * r->item;
      what = "cusolverDnXgeqrf";
      ss = S->geqrf(r->L.cusolver, r->L.params, m, n, t, a, m, t, tau, t, r->dwork, r->dbytes, r->hwork, r->hbytes,
                    r->flags + q);
      if (ss != CUSOLVER_STATUS_SUCCESS) break;
      if (p->q_in_a) { /* R (the top k rows) to q, then Q made in place of the reflectors */
        size_t pitch = (size_t)m * r->item;
        RS_CUDA_CALL(cudaMemcpy2DAsync(qm, pitch, a, pitch, (size_t)k * r->item, (size_t)n, cudaMemcpyDeviceToDevice,
                                       (cudaStream_t)r->stream),
                     "qr: copying R out");
        qm = a;
      } else {
        RS_CUDA_CALL(cudaMemcpyAsync(qm, a, (size_t)(m * k) * r->item, cudaMemcpyDeviceToDevice, (cudaStream_t)r->stream),
                     "qr: copying the reflectors");
      }
      what = "cusolverDn<t>orgqr";
      ss = orgqr(r, (int)m, (int)qcols, (int)k, qm, tau, r->dwork, lwork, r->flags + p->batch);
      break;
    }
    case RS_FACTOR_EIGH:
      what = "cusolverDnXsyevd";
      ss = S->syevd(r->L.cusolver, r->L.params, p->option ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR,
                    p->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER, n, t, a, n, rt, (char *)p->w + (size_t)(q * n) * (r->item / (p->dtype == RS_COMPLEX64 || p->dtype == RS_COMPLEX128 ? 2 : 1)),
                    t, r->dwork, r->dbytes, r->hwork, r->hbytes, r->flags + q);
      break;
  }
  return ss == CUSOLVER_STATUS_SUCCESS ? RS_OK : rs_cusolver_fail(ss, what);
}

rs_status rs_cuda_ops_factor(rs_backend *b, const rs_factor_plan *p, void *stream) {
  int64_t m = p->m, n = p->n, k = m < n ? m : n;
  if (m > INT_MAX || n > INT_MAX || m * n > INT_MAX)
    return rs_fail(RS_ERR_UNSUPPORTED, "linear algebra: a %lld x %lld matrix is beyond cuSOLVER's int range", (long long)m,
                   (long long)n);
  int done = 0; /* batches of small matrices: one batched call */
  RS_TRY(rs_cuda_factor_batched(b, p, stream, &done));
  if (done) return RS_OK;
  factor_run r;
  memset(&r, 0, sizeof r);
  r.b = b, r.p = p, r.stream = stream, r.t = rs_cuda_data_type(p->dtype), r.item = rs_dtype_size(p->dtype);
  RS_TRY(rs_linalg_acquire(&r.L, b, stream, 1));
  /* one block: pivots (LU), tau (QR), the flags (+ one for orgqr), then the workspace */
  size_t pb = p->kind == RS_FACTOR_LU ? (size_t)(p->batch * n) * sizeof(int64_t) : 0;
  size_t tb = p->kind == RS_FACTOR_QR ? (size_t)k * r.item : 0, fb = (size_t)(p->batch + 1) * sizeof(int);
  size_t head = ((pb + 255) & ~(size_t)255) + ((tb + 255) & ~(size_t)255) + ((fb + 255) & ~(size_t)255);
  void *block = NULL;
  int lwork = 0;
  rs_status st = rs_cuda_ops_scratch(b, head, stream, &block); /* tau's address for the size query */
  char *c = block;
  int64_t *ipiv = NULL;
  void *tau = NULL;
  if (st == RS_OK) {
    ipiv = (int64_t *)(void *)c, c += (pb + 255) & ~(size_t)255;
    tau = c, c += (tb + 255) & ~(size_t)255;
    r.flags = (int *)(void *)c;
    st = query(&r, tau, &lwork);
  }
  rs_cuda_ops_scratch_free(block, stream);
  block = NULL;
  size_t wb = r.dbytes > (size_t)lwork * r.item ? r.dbytes : (size_t)lwork * r.item;
  if (st == RS_OK) st = rs_cuda_ops_scratch(b, head + wb + 256, stream, &block);
  if (st == RS_OK) {
    c = block;
    ipiv = (int64_t *)(void *)c, c += (pb + 255) & ~(size_t)255;
    tau = c, c += (tb + 255) & ~(size_t)255;
    r.flags = (int *)(void *)c, c += (fb + 255) & ~(size_t)255;
    r.dwork = c;
    if (cudaMemsetAsync(r.flags, 0, fb, (cudaStream_t)stream) != cudaSuccess)
      st = rs_cuda_fail(cudaGetLastError(), "linear algebra: clearing the flags");
  }
  if (st == RS_OK && r.hbytes && !(r.hwork = malloc(r.hbytes)))
    st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "linear algebra: %zu bytes of host workspace", r.hbytes);
  for (int64_t q = 0; st == RS_OK && q < p->batch; q++) st = one(&r, q, ipiv, tau, lwork);
  if (st == RS_OK && p->kind == RS_FACTOR_CHOLESKY) st = rs_cuda_zero_triangle(b, r.item, p->a, p->batch, n, n, n, !p->option, stream);
  if (st == RS_OK && p->kind == RS_FACTOR_QR)
    st = rs_cuda_zero_triangle(b, r.item, p->q_in_a ? p->q : p->a, p->batch, m, n, p->option ? m : k, 0, stream);
  if (st == RS_OK && p->kind == RS_FACTOR_LU)
    st = rs_cuda_lu_det(p->dtype, p->a, ipiv, 0, NULL, p->batch, n, p->det, p->sign, p->logabs, stream);
  if (st == RS_OK && p->kind == RS_FACTOR_LU && cudaMemsetAsync(p->info, 0, sizeof(int32_t), (cudaStream_t)stream) != cudaSuccess)
    st = rs_cuda_fail(cudaGetLastError(), "linear algebra: clearing the flag"); /* a zero pivot is det 0, no error */
  else if (st == RS_OK && p->kind != RS_FACTOR_LU)
    st = rs_cuda_flags_any(r.flags, p->batch, p->info, stream);
  if (r.hwork) { /* the host workspace may be used until the queued work is done */
    rs_status sync = cudaStreamSynchronize((cudaStream_t)stream) == cudaSuccess
                         ? RS_OK
                         : rs_cuda_fail(cudaGetLastError(), "linear algebra: waiting for cuSOLVER");
    if (st == RS_OK) st = sync;
    free(r.hwork);
  }
  rs_cuda_ops_scratch_free(block, stream);
  rs_linalg_release(&r.L);
  return st;
}
