/* cuBLAS and cuSOLVER through dlopen, and their per-device handles (see cuda_ops_blas.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "backend/cuda/cuda_ops_blas.h"

#define RS_LINALG_DEVICES 64

static rs_blas_api rs_blas;
static rs_solver_api rs_solver;
static int rs_blas_ok, rs_solver_ok;
static char rs_blas_error[512], rs_solver_error[512];
static pthread_once_t rs_blas_once = PTHREAD_ONCE_INIT, rs_solver_once = PTHREAD_ONCE_INIT;

static void *open_first(const char *const *names, size_t n, char *err, size_t errlen) {
  void *h = NULL;
  for (size_t i = 0; i < n && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!h) snprintf(err, errlen, "dlopen %s: %s", names[0], dlerror());
  return h;
}

/* Look every symbol up; the first missing one names the failure. */
#define RS_SYM(api, lib, field, name, err)                                                         \
  do {                                                                                             \
    if (ok) {                                                                                      \
      (api).field = (__typeof__((api).field))dlsym(lib, name);                                     \
      if (!(api).field) {                                                                          \
        snprintf(err, sizeof err, "symbol %s missing", name);                                      \
        ok = 0;                                                                                    \
      }                                                                                            \
    }                                                                                              \
  } while (0)

static void load_blas(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so",
                                      "/usr/local/cuda/lib64/libcublas.so"};
  void *lib = open_first(names, sizeof names / sizeof names[0], rs_blas_error, sizeof rs_blas_error);
  int ok = lib != NULL;
  RS_SYM(rs_blas, lib, create, "cublasCreate_v2", rs_blas_error);
  RS_SYM(rs_blas, lib, destroy, "cublasDestroy_v2", rs_blas_error);
  RS_SYM(rs_blas, lib, set_stream, "cublasSetStream_v2", rs_blas_error);
  RS_SYM(rs_blas, lib, sgemm, "cublasSgemmStridedBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, dgemm, "cublasDgemmStridedBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, cgemm, "cublasCgemmStridedBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, zgemm, "cublasZgemmStridedBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, sgeam, "cublasSgeam", rs_blas_error);
  RS_SYM(rs_blas, lib, dgeam, "cublasDgeam", rs_blas_error);
  RS_SYM(rs_blas, lib, cgeam, "cublasCgeam", rs_blas_error);
  RS_SYM(rs_blas, lib, zgeam, "cublasZgeam", rs_blas_error);
  RS_SYM(rs_blas, lib, snrm2, "cublasSnrm2_v2", rs_blas_error);
  RS_SYM(rs_blas, lib, dnrm2, "cublasDnrm2_v2", rs_blas_error);
  /* linalg extension: batched LU of small matrices */
  RS_SYM(rs_blas, lib, sgetrfb, "cublasSgetrfBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, dgetrfb, "cublasDgetrfBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, cgetrfb, "cublasCgetrfBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, zgetrfb, "cublasZgetrfBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, sgetrsb, "cublasSgetrsBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, dgetrsb, "cublasDgetrsBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, cgetrsb, "cublasCgetrsBatched", rs_blas_error);
  RS_SYM(rs_blas, lib, zgetrsb, "cublasZgetrsBatched", rs_blas_error);
  rs_blas_ok = ok;
}

static void load_solver(void) {
  static const char *const names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so",
                                      "/usr/local/cuda/lib64/libcusolver.so"};
  void *lib = open_first(names, sizeof names / sizeof names[0], rs_solver_error, sizeof rs_solver_error);
  int ok = lib != NULL;
  RS_SYM(rs_solver, lib, create, "cusolverDnCreate", rs_solver_error);
  RS_SYM(rs_solver, lib, destroy, "cusolverDnDestroy", rs_solver_error);
  RS_SYM(rs_solver, lib, set_stream, "cusolverDnSetStream", rs_solver_error);
  RS_SYM(rs_solver, lib, create_params, "cusolverDnCreateParams", rs_solver_error);
  RS_SYM(rs_solver, lib, destroy_params, "cusolverDnDestroyParams", rs_solver_error);
  RS_SYM(rs_solver, lib, gesvd_size, "cusolverDnXgesvd_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, gesvd, "cusolverDnXgesvd", rs_solver_error);
  RS_SYM(rs_solver, lib, sgesvda_size, "cusolverDnSgesvdaStridedBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, sgesvda, "cusolverDnSgesvdaStridedBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, dgesvda_size, "cusolverDnDgesvdaStridedBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, dgesvda, "cusolverDnDgesvdaStridedBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, geqrf_size, "cusolverDnXgeqrf_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, geqrf, "cusolverDnXgeqrf", rs_solver_error);
  RS_SYM(rs_solver, lib, sorgqr_size, "cusolverDnSorgqr_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, sorgqr, "cusolverDnSorgqr", rs_solver_error);
  RS_SYM(rs_solver, lib, dorgqr_size, "cusolverDnDorgqr_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, dorgqr, "cusolverDnDorgqr", rs_solver_error);
  RS_SYM(rs_solver, lib, getrf_size, "cusolverDnXgetrf_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, getrf, "cusolverDnXgetrf", rs_solver_error);
  RS_SYM(rs_solver, lib, getrs, "cusolverDnXgetrs", rs_solver_error);
  /* linalg extension */
  RS_SYM(rs_solver, lib, potrf_size, "cusolverDnXpotrf_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, potrf, "cusolverDnXpotrf", rs_solver_error);
  RS_SYM(rs_solver, lib, syevd_size, "cusolverDnXsyevd_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, syevd, "cusolverDnXsyevd", rs_solver_error);
  RS_SYM(rs_solver, lib, cungqr_size, "cusolverDnCungqr_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, cungqr, "cusolverDnCungqr", rs_solver_error);
  RS_SYM(rs_solver, lib, zungqr_size, "cusolverDnZungqr_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, zungqr, "cusolverDnZungqr", rs_solver_error);
  RS_SYM(rs_solver, lib, create_syevj, "cusolverDnCreateSyevjInfo", rs_solver_error);
  RS_SYM(rs_solver, lib, destroy_syevj, "cusolverDnDestroySyevjInfo", rs_solver_error);
  RS_SYM(rs_solver, lib, ssyevjb_size, "cusolverDnSsyevjBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, dsyevjb_size, "cusolverDnDsyevjBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, cheevjb_size, "cusolverDnCheevjBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, zheevjb_size, "cusolverDnZheevjBatched_bufferSize", rs_solver_error);
  RS_SYM(rs_solver, lib, ssyevjb, "cusolverDnSsyevjBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, dsyevjb, "cusolverDnDsyevjBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, cheevjb, "cusolverDnCheevjBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, zheevjb, "cusolverDnZheevjBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, spotrfb, "cusolverDnSpotrfBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, dpotrfb, "cusolverDnDpotrfBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, cpotrfb, "cusolverDnCpotrfBatched", rs_solver_error);
  RS_SYM(rs_solver, lib, zpotrfb, "cusolverDnZpotrfBatched", rs_solver_error);
  rs_solver_ok = ok;
}

typedef struct dev_handles {
  pthread_mutex_t lock;
  int have_blas, have_solver;
  cublasHandle_t cublas;
  cusolverDnHandle_t cusolver;
  cusolverDnParams_t params;
  int contexts; /* open contexts on the device: the handles go with the last one */
} dev_handles;

static dev_handles rs_handles[RS_LINALG_DEVICES];
static pthread_once_t rs_handles_once = PTHREAD_ONCE_INIT;

static void init_locks(void) {
  for (int i = 0; i < RS_LINALG_DEVICES; i++) pthread_mutex_init(&rs_handles[i].lock, NULL);
}

/* The status's name, so a message can be searched for (cublasGetStatusName would be one
 * more symbol to resolve from a library that may be the one failing). */
static const char *cublas_status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "an unknown cuBLAS status";
  }
}

rs_status rs_cublas_fail(cublasStatus_t s, const char *what) {
  rs_status st = s == CUBLAS_STATUS_ALLOC_FAILED ? RS_ERR_OUT_OF_MEMORY
                 : s == CUBLAS_STATUS_NOT_INITIALIZED || s == CUBLAS_STATUS_NOT_SUPPORTED ? RS_ERR_UNSUPPORTED
                 : s == CUBLAS_STATUS_INVALID_VALUE ? RS_ERR_INVALID_ARGUMENT
                                                    : RS_ERR_DEVICE;
  return rs_fail(st, "%s: %s (cuBLAS status %d)", what, cublas_status_name(s), (int)s);
}

rs_status rs_cusolver_fail(cusolverStatus_t s, const char *what) {
  rs_status st = s == CUSOLVER_STATUS_ALLOC_FAILED ? RS_ERR_OUT_OF_MEMORY
                 : s == CUSOLVER_STATUS_NOT_INITIALIZED || s == CUSOLVER_STATUS_NOT_SUPPORTED ? RS_ERR_UNSUPPORTED
                 : s == CUSOLVER_STATUS_INVALID_VALUE ? RS_ERR_INVALID_ARGUMENT
                                                      : RS_ERR_DEVICE;
  return rs_fail(st, "%s: cuSOLVER status %d", what, (int)s);
}

rs_status rs_linalg_acquire(rs_linalg *out, rs_backend *b, void *stream, int need_solver) {
  memset(out, 0, sizeof *out);
  pthread_once(&rs_blas_once, load_blas);
  if (!rs_blas_ok) return rs_fail(RS_ERR_UNSUPPORTED, "cuBLAS is not available (%s)", rs_blas_error);
  if (need_solver) {
    pthread_once(&rs_solver_once, load_solver);
    if (!rs_solver_ok) return rs_fail(RS_ERR_UNSUPPORTED, "cuSOLVER is not available (%s)", rs_solver_error);
  }
  if (b->device < 0 || b->device >= RS_LINALG_DEVICES)
    return rs_fail(RS_ERR_UNSUPPORTED, "linear algebra: device %d is beyond the %d supported", b->device, RS_LINALG_DEVICES);
  RS_TRY(rs_cuda_enter(b));
  pthread_once(&rs_handles_once, init_locks);
  dev_handles *h = &rs_handles[b->device];
  pthread_mutex_lock(&h->lock);
  rs_status st = RS_OK;
  if (!h->have_blas) {
    cublasStatus_t s = rs_blas.create(&h->cublas);
    if (s != CUBLAS_STATUS_SUCCESS) st = rs_cublas_fail(s, "cublasCreate");
    else h->have_blas = 1;
  }
  if (st == RS_OK && need_solver && !h->have_solver) {
    cusolverStatus_t s = rs_solver.create(&h->cusolver);
    if (s == CUSOLVER_STATUS_SUCCESS) s = rs_solver.create_params(&h->params);
    if (s != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(s, "cusolverDnCreate");
    else h->have_solver = 1;
  }
  if (st == RS_OK) {
    cublasStatus_t s = rs_blas.set_stream(h->cublas, (cudaStream_t)stream);
    if (s != CUBLAS_STATUS_SUCCESS) st = rs_cublas_fail(s, "cublasSetStream");
  }
  if (st == RS_OK && need_solver) {
    cusolverStatus_t s = rs_solver.set_stream(h->cusolver, (cudaStream_t)stream);
    if (s != CUSOLVER_STATUS_SUCCESS) st = rs_cusolver_fail(s, "cusolverDnSetStream");
  }
  if (st != RS_OK) {
    pthread_mutex_unlock(&h->lock);
    return st;
  }
  out->blas = &rs_blas;
  out->solver = need_solver ? &rs_solver : NULL;
  out->cublas = h->cublas;
  out->cusolver = h->cusolver;
  out->params = h->params;
  out->lock_token = h;
  return RS_OK;
}

/* The handles hold device memory (cuBLAS workspace, cuSOLVER state): they live while a
 * context is open on their device and are destroyed with the last one, so a program that
 * destroys its contexts leaves nothing allocated behind. */
void rs_linalg_context_opened(int device) {
  if (device < 0 || device >= RS_LINALG_DEVICES) return;
  pthread_once(&rs_handles_once, init_locks);
  dev_handles *h = &rs_handles[device];
  pthread_mutex_lock(&h->lock);
  h->contexts++;
  pthread_mutex_unlock(&h->lock);
}

void rs_linalg_context_closed(int device) {
  if (device < 0 || device >= RS_LINALG_DEVICES) return;
  pthread_once(&rs_handles_once, init_locks);
  dev_handles *h = &rs_handles[device];
  pthread_mutex_lock(&h->lock);
  if (--h->contexts == 0) {
    if (h->have_solver) {
      rs_solver.destroy_params(h->params);
      rs_solver.destroy(h->cusolver);
      h->have_solver = 0;
    }
    if (h->have_blas) {
      rs_blas.destroy(h->cublas);
      h->have_blas = 0;
    }
  }
  pthread_mutex_unlock(&h->lock);
}

void rs_linalg_release(rs_linalg *l) {
  if (l->lock_token) pthread_mutex_unlock(&((dev_handles *)l->lock_token)->lock);
  l->lock_token = NULL;
}
