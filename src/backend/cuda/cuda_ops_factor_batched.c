/* Batches of small matrices in one cuSOLVER call instead of one call per matrix (the
 * launch and synchronization costs of a per-matrix loop dominate there): eigh through
 * <t>syevjBatched / <t>heevjBatched (Jacobi, cuSOLVER's batched eigensolver, n <= 32,
 * eigenvalues sorted ascending - its default - to the dtype's precision) and cholesky
 * through <t>potrfBatched (n <= 32, an array of matrix pointers built on the device).
 * Same plan, same outputs and flags as the per-matrix path of cuda_ops_factor.c. */
#include <limits.h>
#include "backend/cuda/cuda_ops_blas.h"

#define RS_SYEVJ_MAX_N 32
#define RS_POTRF_BATCHED_MAX_N 32

static cusolverStatus_t syevj_size(const rs_linalg *L, const rs_factor_plan *p, cusolverEigMode_t jobz, int n, int *lwork,
                                   syevjInfo_t info) {
  const rs_solver_api *S = L->solver;
  cublasFillMode_t lo = p->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  int batch = (int)p->batch;
  switch (p->dtype) {
    case RS_FLOAT32: return S->ssyevjb_size(L->cusolver, jobz, lo, n, p->a, n, p->w, lwork, info, batch);
    case RS_FLOAT64: return S->dsyevjb_size(L->cusolver, jobz, lo, n, p->a, n, p->w, lwork, info, batch);
    case RS_COMPLEX64: return S->cheevjb_size(L->cusolver, jobz, lo, n, p->a, n, p->w, lwork, info, batch);
    default: return S->zheevjb_size(L->cusolver, jobz, lo, n, p->a, n, p->w, lwork, info, batch);
  }
}

static cusolverStatus_t syevj(const rs_linalg *L, const rs_factor_plan *p, cusolverEigMode_t jobz, int n, void *work,
                              int lwork, int *flags, syevjInfo_t info) {
  const rs_solver_api *S = L->solver;
  cublasFillMode_t lo = p->upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  int batch = (int)p->batch;
  switch (p->dtype) {
    case RS_FLOAT32: return S->ssyevjb(L->cusolver, jobz, lo, n, p->a, n, p->w, work, lwork, flags, info, batch);
    case RS_FLOAT64: return S->dsyevjb(L->cusolver, jobz, lo, n, p->a, n, p->w, work, lwork, flags, info, batch);
    case RS_COMPLEX64: return S->cheevjb(L->cusolver, jobz, lo, n, p->a, n, p->w, work, lwork, flags, info, batch);
    default: return S->zheevjb(L->cusolver, jobz, lo, n, p->a, n, p->w, work, lwork, flags, info, batch);
  }
}

static rs_status batched_eigh(rs_backend *b, const rs_linalg *L, const rs_factor_plan *p, void *stream) {
  int n = (int)p->n;
  size_t item = rs_dtype_size(p->dtype), fb = (size_t)p->batch * sizeof(int);
  cusolverEigMode_t jobz = p->option ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  syevjInfo_t info = NULL;
  cusolverStatus_t ss = L->solver->create_syevj(&info);
  if (ss != CUSOLVER_STATUS_SUCCESS) return rs_cusolver_fail(ss, "eigh: cusolverDnCreateSyevjInfo");
  int lwork = 0;
  void *block = NULL;
  rs_status st = RS_OK;
  ss = syevj_size(L, p, jobz, n, &lwork, info);
  if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "eigh: cusolverDn<t>syevjBatched_bufferSize");
  if (st == RS_OK) st = rs_cuda_ops_scratch(b, ((fb + 255) & ~(size_t)255) + (size_t)lwork * item + 256, stream, &block);
  if (st == RS_OK) {
    int *flags = block;
    void *work = (char *)block + ((fb + 255) & ~(size_t)255);
    ss = syevj(L, p, jobz, n, work, lwork, flags, info);
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "eigh: cusolverDn<t>syevjBatched");
    if (st == RS_OK) st = rs_cuda_flags_any(flags, p->batch, p->info, stream);
  }
  /* the parameters object outlives the queued work */
  if (cudaStreamSynchronize((cudaStream_t)stream) != cudaSuccess && st == RS_OK)
    st = rs_cuda_fail(cudaGetLastError(), "eigh: waiting for syevjBatched");
  L->solver->destroy_syevj(info);
  rs_cuda_ops_scratch_free(block, stream);
  return st;
}

static rs_status batched_cholesky(rs_backend *b, const rs_linalg *L, const rs_factor_plan *p, void *stream) {
  const rs_solver_api *S = L->solver;
  int n = (int)p->n, batch = (int)p->batch;
  size_t item = rs_dtype_size(p->dtype), fb = (size_t)p->batch * sizeof(int), pb = (size_t)p->batch * sizeof(void *);
  cublasFillMode_t uplo = p->option ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  void *block = NULL;
  RS_TRY(rs_cuda_ops_scratch(b, ((fb + 255) & ~(size_t)255) + pb, stream, &block));
  int *flags = block;
  void *ptrs = (char *)block + ((fb + 255) & ~(size_t)255);
  rs_status st = rs_cuda_pointer_array(ptrs, p->a, (size_t)(n * n) * item, p->batch, stream);
  if (st == RS_OK) {
    cusolverStatus_t ss;
    switch (p->dtype) {
      case RS_FLOAT32: ss = S->spotrfb(L->cusolver, uplo, n, ptrs, n, flags, batch); break;
      case RS_FLOAT64: ss = S->dpotrfb(L->cusolver, uplo, n, ptrs, n, flags, batch); break;
      case RS_COMPLEX64: ss = S->cpotrfb(L->cusolver, uplo, n, ptrs, n, flags, batch); break;
      default: ss = S->zpotrfb(L->cusolver, uplo, n, ptrs, n, flags, batch); break;
    }
    if (ss != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(ss, "cholesky: cusolverDn<t>potrfBatched");
  }
  /* potrfBatched may use the other triangle as workspace: zeroed here as in the loop path */
  if (st == RS_OK) st = rs_cuda_zero_triangle(b, item, p->a, p->batch, n, n, n, !p->option, stream);
  if (st == RS_OK) st = rs_cuda_flags_any(flags, p->batch, p->info, stream);
  rs_cuda_ops_scratch_free(block, stream);
  return st;
}

rs_status rs_cuda_factor_batched(rs_backend *b, const rs_factor_plan *p, void *stream, int *done) {
  *done = 0;
  int eigh = p->kind == RS_FACTOR_EIGH && p->n <= RS_SYEVJ_MAX_N;
  int chol = p->kind == RS_FACTOR_CHOLESKY && p->n <= RS_POTRF_BATCHED_MAX_N;
  if (p->batch < 2 || p->batch > INT_MAX || (!eigh && !chol)) return RS_OK;
  rs_linalg L;
  RS_TRY(rs_linalg_acquire(&L, b, stream, 1));
  rs_status st = eigh ? batched_eigh(b, &L, p, stream) : batched_cholesky(b, &L, p, stream);
  rs_linalg_release(&L);
  if (st == RS_OK) *done = 1;
  return st;
}
