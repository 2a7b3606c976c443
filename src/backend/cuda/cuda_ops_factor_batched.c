/* Batches of small matrices in one library call instead of one call per matrix (the
 * launch and synchronization costs of a per-matrix loop dominate there): eigh through
 * <t>syevjBatched / <t>heevjBatched (Jacobi, cuSOLVER's batched eigensolver, n <= 32,
 * eigenvalues sorted ascending - its default - to the dtype's precision), cholesky
 * through <t>potrfBatched (n <= 32, an array of matrix pointers built on the device), and
 * LU through cuBLAS's <t>getrfBatched / <t>getrsBatched for det / slogdet here and for
 * solve / inv (cuda_ops_linalg.c, rs_cuda_lu_batched). Same plan, same outputs and flags
 * as the per-matrix paths of cuda_ops_factor.c and cuda_ops_linalg.c. */
#include <limits.h>
#include "backend/cuda/cuda_ops_blas.h"

#define RS_SYEVJ_MAX_N 32
#define RS_POTRF_BATCHED_MAX_N 32
/* cuBLAS documents its batched LU for small matrices, where a per-matrix call's launch
 * and synchronization cost more than the O(n^3) work; 32 is the size its small-matrix
 * kernels (and the other batched routines here) are made for. Beyond it the per-matrix
 * cuSOLVER path (blocked, its updates on the tensor cores) is the one that scales, and the
 * work of a matrix, not the number of calls, decides the time. bench/linalg_ext times
 * n = 8 against CuPy (which takes the same cuBLAS routines for its batches). */
#define RS_LU_BATCHED_MAX_N 32

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

int rs_cuda_lu_batched_fits(int64_t n, int64_t batch) {
  return batch >= 2 && batch <= INT_MAX && n >= 1 && n <= RS_LU_BATCHED_MAX_N;
}

rs_status rs_cuda_lu_batched(rs_backend *b, const rs_linalg *L, rs_dtype dt, void *a, int n, int64_t batch, void *x, int k,
                             void *stream, rs_cuda_lu_batch *out) {
  const rs_blas_api *B = L->blas;
  size_t item = rs_dtype_size(dt), vb = (size_t)batch * (size_t)n * sizeof(int), fb = (size_t)batch * sizeof(int);
  size_t pb = (size_t)batch * sizeof(void *), al = 255;
  out->block = NULL, out->piv = NULL, out->flags = NULL;
  /* pivots, flags, A's pointers, then X's (each 256-byte aligned) */
  RS_TRY(rs_cuda_ops_scratch(b, ((vb + al) & ~al) + ((fb + al) & ~al) + 2 * ((pb + al) & ~al), stream, &out->block));
  char *c = out->block;
  out->piv = (int *)(void *)c, c += (vb + al) & ~al;
  out->flags = (int *)(void *)c, c += (fb + al) & ~al;
  void *ap = c, *xp = c + ((pb + al) & ~al);
  int nb = (int)batch;
  rs_status st = rs_cuda_pointer_array(ap, a, (size_t)n * (size_t)n * item, batch, stream);
  if (st == RS_OK && x) st = rs_cuda_pointer_array(xp, x, (size_t)n * (size_t)k * item, batch, stream);
  if (st != RS_OK) return st;
  cublasStatus_t bs;
  switch (dt) {
    case RS_FLOAT32: bs = B->sgetrfb(L->cublas, n, ap, n, out->piv, out->flags, nb); break;
    case RS_FLOAT64: bs = B->dgetrfb(L->cublas, n, ap, n, out->piv, out->flags, nb); break;
    case RS_COMPLEX64: bs = B->cgetrfb(L->cublas, n, ap, n, out->piv, out->flags, nb); break;
    default: bs = B->zgetrfb(L->cublas, n, ap, n, out->piv, out->flags, nb); break;
  }
  if (bs != CUBLAS_STATUS_SUCCESS) return rs_cublas_fail(bs, "linear algebra: cublas<t>getrfBatched");
  if (!x) return RS_OK;
  /* a row-major A is the column-major A^T: its factors solve (A^T)^T X = B; a singular
   * matrix's X is garbage but its flag fails the whole call, as in the per-matrix path.
   * The host-side info reports argument errors only. */
  int hinfo = 0;
  switch (dt) {
    case RS_FLOAT32: bs = B->sgetrsb(L->cublas, CUBLAS_OP_T, n, k, ap, n, out->piv, xp, n, &hinfo, nb); break;
    case RS_FLOAT64: bs = B->dgetrsb(L->cublas, CUBLAS_OP_T, n, k, ap, n, out->piv, xp, n, &hinfo, nb); break;
    case RS_COMPLEX64: bs = B->cgetrsb(L->cublas, CUBLAS_OP_T, n, k, ap, n, out->piv, xp, n, &hinfo, nb); break;
    default: bs = B->zgetrsb(L->cublas, CUBLAS_OP_T, n, k, ap, n, out->piv, xp, n, &hinfo, nb); break;
  }
  if (bs != CUBLAS_STATUS_SUCCESS) return rs_cublas_fail(bs, "linear algebra: cublas<t>getrsBatched");
  if (hinfo != 0)
    return rs_fail(RS_ERR_DEVICE, "linear algebra: cublas<t>getrsBatched rejected argument %d", hinfo < 0 ? -hinfo : hinfo);
  return RS_OK;
}

/* det / sign / log|det| from one getrfBatched: the flags tell the kernel which matrices
 * are exactly singular; a zero pivot is det 0, not an error, as in the per-matrix path. */
static rs_status batched_lu_det(rs_backend *b, const rs_linalg *L, const rs_factor_plan *p, void *stream) {
  rs_cuda_lu_batch lu;
  rs_status st = rs_cuda_lu_batched(b, L, p->dtype, p->a, (int)p->n, p->batch, NULL, 0, stream, &lu);
  if (st == RS_OK) st = rs_cuda_lu_det(p->dtype, p->a, lu.piv, 1, lu.flags, p->batch, p->n, p->det, p->sign, p->logabs, stream);
  if (st == RS_OK && cudaMemsetAsync(p->info, 0, sizeof(int32_t), (cudaStream_t)stream) != cudaSuccess)
    st = rs_cuda_fail(cudaGetLastError(), "linear algebra: clearing the flag");
  rs_cuda_ops_scratch_free(lu.block, stream);
  return st;
}

rs_status rs_cuda_factor_batched(rs_backend *b, const rs_factor_plan *p, void *stream, int *done) {
  *done = 0;
  int eigh = p->kind == RS_FACTOR_EIGH && p->n <= RS_SYEVJ_MAX_N;
  int chol = p->kind == RS_FACTOR_CHOLESKY && p->n <= RS_POTRF_BATCHED_MAX_N;
  int lu = p->kind == RS_FACTOR_LU && rs_cuda_lu_batched_fits(p->n, p->batch);
  if (p->batch < 2 || p->batch > INT_MAX || (!eigh && !chol && !lu)) return RS_OK;
  rs_linalg L;
  RS_TRY(rs_linalg_acquire(&L, b, stream, !lu)); /* the batched LU is cuBLAS only */
  rs_status st = lu ? batched_lu_det(b, &L, p, stream) : eigh ? batched_eigh(b, &L, p, stream) : batched_cholesky(b, &L, p, stream);
  rs_linalg_release(&L);
  if (st == RS_OK) *done = 1;
  return st;
}
