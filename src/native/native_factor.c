/* Host factorizations of the linalg extension (rs_factor_plan): Cholesky, LU (for det and
 * slogdet), QR and the Hermitian eigensolver, through LAPACKE where the build has it
 * (RS_HOST_BLAS). Without a LAPACK there are no C loops for these: rs_native_factor_supported
 * says so and the backends refuse the plan (RS_ERR_UNSUPPORTED) before queuing it. The
 * plans are column-major, LAPACK's own layout, so every call takes the buffers as they are. */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include "native/native.h"

/* Element (i, j) of a column-major matrix with leading dimension ld, read as complex double. */
static double complex get(rs_dtype dt, const void *a, int64_t k) {
  switch (dt) {
    case RS_FLOAT32: return ((const float *)a)[k];
    case RS_FLOAT64: return ((const double *)a)[k];
    case RS_COMPLEX64: return ((const float complex *)a)[k];
    default: return ((const double complex *)a)[k];
  }
}

static void put(rs_dtype dt, void *a, int64_t k, double complex v) {
  switch (dt) {
    case RS_FLOAT32: ((float *)a)[k] = (float)creal(v); break;
    case RS_FLOAT64: ((double *)a)[k] = creal(v); break;
    case RS_COMPLEX64: ((float complex *)a)[k] = (float complex)v; break;
    default: ((double complex *)a)[k] = v; break;
  }
}

/* LAPACK's 32-bit indices: every matrix (and Q) must be addressable with them. */
int rs_native_factor_fits(const rs_factor_plan *p) {
  int64_t big = p->m > p->n ? p->m : p->n;
  return big <= INT_MAX / 4 && p->m * big <= INT_MAX / 4;
}

rs_status rs_native_factor_check(const rs_factor_plan *p, const char *who) {
  if (!rs_native_factor_supported())
    return rs_fail(RS_ERR_UNSUPPORTED, "%s linear algebra: this build has no LAPACK (OpenBLAS/LAPACKE) for factorizations",
                   who);
  if (!rs_native_factor_fits(p))
    return rs_fail(RS_ERR_UNSUPPORTED, "%s linear algebra: a %lld x %lld matrix is beyond LAPACK's 32-bit indices", who,
                   (long long)p->m, (long long)p->n);
  return RS_OK;
}

/* Zero the strict upper (upper = 1) or strict lower triangle of an m x n column-major
 * matrix, in its first `rows` rows (the reduced QR's R is the top rows). */
void rs_native_zero_triangle(rs_dtype dt, void *a, int64_t m, int64_t n, int64_t rows, int upper) {
  size_t item = rs_dtype_size(dt);
  for (int64_t j = 0; j < n; j++) {
    int64_t i0 = upper ? 0 : j + 1, i1 = upper ? (j < rows ? j : rows) : rows;
    if (i1 > i0) memset((char *)a + (size_t)(j * m + i0) * item, 0, (size_t)(i1 - i0) * item);
  }
}

/* det, sign and log|det| of one LU-factored n x n matrix with 1-based pivots. */
void rs_native_lu_det(rs_dtype dt, const void *lu, const int64_t *ipiv, int64_t n, void *det, void *sign, void *logabs,
                      int64_t q) {
  double complex prod = 1, phase = 1;
  double logsum = 0;
  int flips = 0;
  for (int64_t i = 0; i < n; i++) {
    double complex d = get(dt, lu, i * (n + 1));
    double ad = cabs(d);
    flips ^= ipiv[i] != i + 1;
    prod *= d;
    phase = ad > 0 ? phase * (d / ad) : 0;
    logsum += log(ad);
  }
  if (flips) prod = -prod, phase = -phase;
  if (det) put(dt, det, q, prod);
  if (sign) put(dt, sign, q, phase);
  if (logabs) {
    if (dt == RS_FLOAT32 || dt == RS_COMPLEX64) ((float *)logabs)[q] = (float)logsum;
    else ((double *)logabs)[q] = logsum;
  }
}

#ifdef RS_HOST_BLAS
#include <lapacke.h>

int rs_native_factor_supported(void) { return 1; }

/* The scratch holds the pivots as LAPACK gives them, the same widened to int64 and tau,
 * each part starting on 16 bytes (int64 and complex stores need their alignment). */
static size_t up16(size_t v) { return (v + 15) & ~(size_t)15; }

size_t rs_native_factor_scratch(const rs_factor_plan *p) {
  int64_t k = p->m < p->n ? p->m : p->n;
  return up16((size_t)(k + 1) * sizeof(lapack_int)) + up16((size_t)(k + 1) * sizeof(int64_t)) +
         (size_t)(k + 1) * rs_dtype_size(p->dtype);
}

#define RS_LAPACK4(dt, name, ...)                                                         \
  ((dt) == RS_FLOAT32    ? LAPACKE_s##name(__VA_ARGS__)                                   \
   : (dt) == RS_FLOAT64  ? LAPACKE_d##name(__VA_ARGS__)                                   \
   : (dt) == RS_COMPLEX64 ? LAPACKE_c##name(__VA_ARGS__)                                  \
                         : LAPACKE_z##name(__VA_ARGS__))

/* Real and complex names differ (orgqr / ungqr, syevd / heevd): the real-only and
 * complex-only prototypes take void pointers here, so one call site serves all four. */
static lapack_int orgqr(rs_dtype dt, lapack_int m, lapack_int n, lapack_int k, void *a, lapack_int lda, const void *tau) {
  switch (dt) {
    case RS_FLOAT32: return LAPACKE_sorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
    case RS_FLOAT64: return LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
    case RS_COMPLEX64: return LAPACKE_cungqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
    default: return LAPACKE_zungqr(LAPACK_COL_MAJOR, m, n, k, a, lda, tau);
  }
}

static lapack_int evd(rs_dtype dt, char jobz, char uplo, lapack_int n, void *a, void *w) {
  switch (dt) {
    case RS_FLOAT32: return LAPACKE_ssyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
    case RS_FLOAT64: return LAPACKE_dsyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
    case RS_COMPLEX64: return LAPACKE_cheevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
    default: return LAPACKE_zheevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, n, w);
  }
}

void rs_native_factor(const rs_factor_plan *p, void *scratch) {
  rs_dtype dt = p->dtype;
  size_t item = rs_dtype_size(dt), ritem = dt == RS_FLOAT32 || dt == RS_COMPLEX64 ? 4 : 8;
  lapack_int m = (lapack_int)p->m, n = (lapack_int)p->n, k = m < n ? m : n;
  lapack_int qcols = p->option ? m : k;
  lapack_int *ipiv = scratch;
  int64_t *ipiv64 = (int64_t *)(void *)((char *)scratch + up16((size_t)(k + 1) * sizeof(lapack_int)));
  void *tau = (char *)ipiv64 + up16((size_t)(k + 1) * sizeof(int64_t));
  int32_t info = 0;
  for (int64_t q = 0; q < p->batch; q++) {
    void *a = (char *)p->a + (size_t)(q * p->m * p->n) * item;
    lapack_int r = 0;
    switch (p->kind) {
      case RS_FACTOR_CHOLESKY:
        r = RS_LAPACK4(dt, potrf, LAPACK_COL_MAJOR, p->option ? 'U' : 'L', n, a, n);
        rs_native_zero_triangle(dt, a, m, n, m, !p->option);
        break;
      case RS_FACTOR_LU:
        r = RS_LAPACK4(dt, getrf, LAPACK_COL_MAJOR, n, n, a, n, ipiv);
        for (lapack_int i = 0; i < n; i++) ipiv64[i] = ipiv[i];
        rs_native_lu_det(dt, a, ipiv64, n, p->det, p->sign, p->logabs, q);
        r = r < 0 ? r : 0; /* a zero pivot is a singular matrix, det 0: not an error */
        break;
      case RS_FACTOR_QR: {
        char *qm = (char *)p->q + (size_t)(q * p->m * qcols) * item;
        r = RS_LAPACK4(dt, geqrf, LAPACK_COL_MAJOR, m, n, a, m, tau);
        if (p->q_in_a) { /* R's top k rows of each column to q, then Q made in a */
          for (lapack_int j = 0; j < n; j++)
            memcpy(qm + (size_t)j * (size_t)m * item, (char *)a + (size_t)j * (size_t)m * item, (size_t)k * item);
          rs_native_zero_triangle(dt, qm, m, n, k, 0);
          if (r == 0) r = orgqr(dt, m, qcols, k, a, m, tau);
          break;
        }
        if (r == 0) {
          memcpy(qm, a, (size_t)m * (size_t)k * item);
          /* A complete Q's columns past k are orgqr's to make, but LAPACKE checks its whole
           * input for NaN first: fresh memory there failed the call now and then. */
          if (qcols > k) memset(qm + (size_t)m * (size_t)k * item, 0, (size_t)m * (size_t)(qcols - k) * item);
          r = orgqr(dt, m, qcols, k, qm, m, tau);
        }
        rs_native_zero_triangle(dt, a, m, n, p->option ? m : k, 0);
        break;
      }
      case RS_FACTOR_EIGH:
        r = evd(dt, p->option ? 'V' : 'N', p->upper ? 'U' : 'L', n, a, (char *)p->w + (size_t)(q * p->n) * ritem);
        break;
    }
    if (r != 0) info = 1;
  }
  *p->info = info;
}

#else

int rs_native_factor_supported(void) { return 0; }
size_t rs_native_factor_scratch(const rs_factor_plan *p) {
  (void)p;
  return 0;
}
void rs_native_factor(const rs_factor_plan *p, void *scratch) {
  (void)scratch;
  *p->info = 1;
}

#endif
