/* Private to the CUDA linear algebra files: cuBLAS and cuSOLVER, loaded with dlopen on
 * first use (never linked), and their handles per device. Loading on demand keeps
 * libresident loadable where these libraries are missing (a driver-only machine, the
 * simulator) and costs nothing to programs that never call matmul/SVD/solve; a missing
 * library makes only those calls fail, with RS_ERR_UNSUPPORTED naming it. Only the
 * prototypes come from the toolkit headers. */
#ifndef RS_BACKEND_CUDA_OPS_BLAS_H
#define RS_BACKEND_CUDA_OPS_BLAS_H

#include <cublas_api.h>
#include <cusolverDn.h>
#include "backend/cuda/cuda_ops.h"

typedef struct rs_blas_api {
  __typeof__(&cublasCreate_v2) create;
  __typeof__(&cublasDestroy_v2) destroy;
  __typeof__(&cublasSetStream_v2) set_stream;
  __typeof__(&cublasSgemmStridedBatched) sgemm;
  __typeof__(&cublasDgemmStridedBatched) dgemm;
  __typeof__(&cublasCgemmStridedBatched) cgemm;
  __typeof__(&cublasZgemmStridedBatched) zgemm;
  __typeof__(&cublasSgeam) sgeam;
  __typeof__(&cublasDgeam) dgeam;
  __typeof__(&cublasCgeam) cgeam;
  __typeof__(&cublasZgeam) zgeam;
  __typeof__(&cublasSnrm2_v2) snrm2;
  __typeof__(&cublasDnrm2_v2) dnrm2;
  /* linalg extension: batched LU of small matrices (det, slogdet, solve, inv) */
  __typeof__(&cublasSgetrfBatched) sgetrfb;
  __typeof__(&cublasDgetrfBatched) dgetrfb;
  __typeof__(&cublasCgetrfBatched) cgetrfb;
  __typeof__(&cublasZgetrfBatched) zgetrfb;
  __typeof__(&cublasSgetrsBatched) sgetrsb;
  __typeof__(&cublasDgetrsBatched) dgetrsb;
  __typeof__(&cublasCgetrsBatched) cgetrsb;
  __typeof__(&cublasZgetrsBatched) zgetrsb;
} rs_blas_api;

typedef struct rs_solver_api {
  __typeof__(&cusolverDnCreate) create;
  __typeof__(&cusolverDnDestroy) destroy;
  __typeof__(&cusolverDnSetStream) set_stream;
  __typeof__(&cusolverDnCreateParams) create_params;
  __typeof__(&cusolverDnDestroyParams) destroy_params;
  __typeof__(&cusolverDnXgesvd_bufferSize) gesvd_size;
  __typeof__(&cusolverDnXgesvd) gesvd;
  __typeof__(&cusolverDnSgesvdaStridedBatched_bufferSize) sgesvda_size;
  __typeof__(&cusolverDnSgesvdaStridedBatched) sgesvda;
  __typeof__(&cusolverDnDgesvdaStridedBatched_bufferSize) dgesvda_size;
  __typeof__(&cusolverDnDgesvdaStridedBatched) dgesvda;
  __typeof__(&cusolverDnXgeqrf_bufferSize) geqrf_size;
  __typeof__(&cusolverDnXgeqrf) geqrf;
  __typeof__(&cusolverDnSorgqr_bufferSize) sorgqr_size;
  __typeof__(&cusolverDnSorgqr) sorgqr;
  __typeof__(&cusolverDnDorgqr_bufferSize) dorgqr_size;
  __typeof__(&cusolverDnDorgqr) dorgqr;
  __typeof__(&cusolverDnXgetrf_bufferSize) getrf_size;
  __typeof__(&cusolverDnXgetrf) getrf;
  __typeof__(&cusolverDnXgetrs) getrs;
  /* linalg extension: cholesky, eigh, complex QR */
  __typeof__(&cusolverDnXpotrf_bufferSize) potrf_size;
  __typeof__(&cusolverDnXpotrf) potrf;
  __typeof__(&cusolverDnXsyevd_bufferSize) syevd_size;
  __typeof__(&cusolverDnXsyevd) syevd;
  __typeof__(&cusolverDnCungqr_bufferSize) cungqr_size;
  __typeof__(&cusolverDnCungqr) cungqr;
  __typeof__(&cusolverDnZungqr_bufferSize) zungqr_size;
  __typeof__(&cusolverDnZungqr) zungqr;
  /* linalg extension: batches of small matrices */
  __typeof__(&cusolverDnCreateSyevjInfo) create_syevj;
  __typeof__(&cusolverDnDestroySyevjInfo) destroy_syevj;
  __typeof__(&cusolverDnSsyevjBatched_bufferSize) ssyevjb_size;
  __typeof__(&cusolverDnDsyevjBatched_bufferSize) dsyevjb_size;
  __typeof__(&cusolverDnCheevjBatched_bufferSize) cheevjb_size;
  __typeof__(&cusolverDnZheevjBatched_bufferSize) zheevjb_size;
  __typeof__(&cusolverDnSsyevjBatched) ssyevjb;
  __typeof__(&cusolverDnDsyevjBatched) dsyevjb;
  __typeof__(&cusolverDnCheevjBatched) cheevjb;
  __typeof__(&cusolverDnZheevjBatched) zheevjb;
  __typeof__(&cusolverDnSpotrfBatched) spotrfb;
  __typeof__(&cusolverDnDpotrfBatched) dpotrfb;
  __typeof__(&cusolverDnCpotrfBatched) cpotrfb;
  __typeof__(&cusolverDnZpotrfBatched) zpotrfb;
} rs_solver_api;

/* One device's libraries, locked for the duration of a call (a handle's stream is a
 * setting shared by every thread using it). */
typedef struct rs_linalg {
  const rs_blas_api *blas;
  const rs_solver_api *solver; /* NULL when only cuBLAS was asked for */
  cublasHandle_t cublas;
  cusolverDnHandle_t cusolver;
  cusolverDnParams_t params;
  void *lock_token;
} rs_linalg;

/* Lock b's device's handles, set to stream. need_solver: cuSOLVER too. */
rs_status rs_linalg_acquire(rs_linalg *out, rs_backend *b, void *stream, int need_solver);
void rs_linalg_release(rs_linalg *l);

/* Called by the backend's open and close: the per-device handles are destroyed when the
 * last context on the device closes. */
void rs_linalg_context_opened(int device);
void rs_linalg_context_closed(int device);

/* The libraries' data type of a float or complex dtype. */
static inline cudaDataType rs_cuda_data_type(rs_dtype dt) {
  switch (dt) {
    case RS_FLOAT32: return CUDA_R_32F;
    case RS_FLOAT64: return CUDA_R_64F;
    case RS_COMPLEX64: return CUDA_C_32F;
    default: return CUDA_C_64F;
  }
}

static inline cudaDataType rs_cuda_real_data_type(rs_dtype dt) {
  return (dt == RS_FLOAT32 || dt == RS_COMPLEX64) ? CUDA_R_32F : CUDA_R_64F;
}

/* Messages for library statuses. */
rs_status rs_cublas_fail(cublasStatus_t s, const char *what);
rs_status rs_cusolver_fail(cusolverStatus_t s, const char *what);

/* linalg extension: LU of a batch of small matrices in one cuBLAS call
 * (cuda_ops_factor_batched.c), shared by det / slogdet and solve / inv. fits: the sizes
 * it takes (2 <= batch <= INT_MAX, n <= 32). rs_cuda_lu_batched factors the batch
 * column-major n x n matrices at a (n * n elements apart) in place with <t>getrfBatched;
 * when x is not NULL it then solves A^T X = B (a row-major A seen column-major) for the
 * column-major n x k blocks at x (n * k apart) with <t>getrsBatched. On return out holds
 * the device scratch block (free with rs_cuda_ops_scratch_free, also after an error),
 * the 1-based int pivots (n per matrix) and the per-matrix getrf info (> 0: singular),
 * all ordered on stream. L: acquired with cuBLAS. */
typedef struct rs_cuda_lu_batch {
  void *block;
  int *piv;
  int *flags;
} rs_cuda_lu_batch;
int rs_cuda_lu_batched_fits(int64_t n, int64_t batch);
rs_status rs_cuda_lu_batched(rs_backend *b, const rs_linalg *L, rs_dtype dt, void *a, int n, int64_t batch, void *x, int k,
                             void *stream, rs_cuda_lu_batch *out);

#endif
