/* Host solve and SVD through LAPACKE. The plans' layouts map onto LAPACK's column-major
 * ones without copies where they can: a row-major A is A^T column-major, so solve
 * factors A^T (getrf) and solves with the transpose (getrs 'T'), and the SVD of
 * A^T = U' S V'^H gives A = V'^T S U'^T, i.e. u is V'^H's storage and vh is U''s, both
 * written straight into the outputs. The info flags keep the C loops' meaning: solve
 * 1 on an exactly zero or NaN pivot, SVD 1 when a matrix does not converge (and for
 * NaN or infinity in the input, which LAPACK would not report the same way). */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include "native/native_blas.h"

#ifdef RS_HOST_BLAS
#include <lapacke.h>

static int fits_int(int64_t v) { return v >= 0 && v <= INT_MAX / 4; }

int rs_blas_solve(const rs_solve_plan *p, void *scratch) {
  if (!fits_int(p->n) || !fits_int(p->k) || !fits_int(p->n * p->n)) return 0;
  lapack_int n = (lapack_int)p->n, k = (lapack_int)p->k, *ipiv = scratch;
  size_t item = rs_dtype_size(p->dtype);
  int32_t info = 0;
  for (int64_t q = 0; q < p->batch; q++) {
    void *a = (char *)p->a + (size_t)(q * p->n * p->n) * item, *b = (char *)p->b + (size_t)(q * p->n * p->k) * item;
    lapack_int r;
    switch (p->dtype) {
      case RS_FLOAT32:
        r = LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
        if (r == 0) r = LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'T', n, k, a, n, ipiv, b, n);
        for (lapack_int i = 0; r == 0 && i < n; i++) r = isnan(((float *)a)[i * (n + 1)]);
        break;
      case RS_FLOAT64:
        r = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
        if (r == 0) r = LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'T', n, k, a, n, ipiv, b, n);
        for (lapack_int i = 0; r == 0 && i < n; i++) r = isnan(((double *)a)[i * (n + 1)]);
        break;
      case RS_COMPLEX64:
        r = LAPACKE_cgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
        if (r == 0) r = LAPACKE_cgetrs(LAPACK_COL_MAJOR, 'T', n, k, a, n, ipiv, b, n);
        for (lapack_int i = 0; r == 0 && i < n; i++) r = isnan(cabsf(((float _Complex *)a)[i * (n + 1)]));
        break;
      default:
        r = LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n, a, n, ipiv);
        if (r == 0) r = LAPACKE_zgetrs(LAPACK_COL_MAJOR, 'T', n, k, a, n, ipiv, b, n);
        for (lapack_int i = 0; r == 0 && i < n; i++) r = isnan(cabs(((double _Complex *)a)[i * (n + 1)]));
        break;
    }
    if (r != 0) info = 1;
  }
  *p->info = info;
  return 1;
}

static int all_finite(rs_dtype dt, const void *a, int64_t count) {
  int64_t reals = dt == RS_COMPLEX64 || dt == RS_COMPLEX128 ? 2 * count : count;
  int single = dt == RS_FLOAT32 || dt == RS_COMPLEX64;
  for (int64_t i = 0; i < reals; i++)
    if (!isfinite(single ? (double)((const float *)a)[i] : ((const double *)a)[i])) return 0;
  return 1;
}

/* One matrix: X (the copy of A, n x m column-major) is overwritten. LAPACK's status. */
static lapack_int gesdd(const rs_svd_plan *p, void *X, void *s, void *u, void *vh) {
  lapack_int m = (lapack_int)p->m, n = (lapack_int)p->n, k = m < n ? m : n;
  char job = !p->compute_uv ? 'N' : p->full ? 'A' : 'S';
  /* U' (n x ucols') goes to vh with leading dimension n; V'^H (rows x m) to u with
   * leading dimension u's row length. Unused (job 'N'): leading dimensions of 1. */
  lapack_int ldu = p->compute_uv ? n : 1, ldvt = !p->compute_uv ? 1 : p->full ? m : k;
  switch (p->dtype) {
    case RS_FLOAT32: return LAPACKE_sgesdd(LAPACK_COL_MAJOR, job, n, m, X, n, s, vh, ldu, u, ldvt);
    case RS_FLOAT64: return LAPACKE_dgesdd(LAPACK_COL_MAJOR, job, n, m, X, n, s, vh, ldu, u, ldvt);
    case RS_COMPLEX64: return LAPACKE_cgesdd(LAPACK_COL_MAJOR, job, n, m, X, n, s, vh, ldu, u, ldvt);
    default: return LAPACKE_zgesdd(LAPACK_COL_MAJOR, job, n, m, X, n, s, vh, ldu, u, ldvt);
  }
}

int rs_blas_svd(const rs_svd_plan *p, void *scratch) {
  if (!fits_int(p->m) || !fits_int(p->n) || !fits_int(p->m * p->n) || !fits_int(p->m * p->m) ||
      !fits_int(p->n * p->n))
    return 0;
  int64_t m = p->m, n = p->n, k = m < n ? m : n;
  size_t item = rs_dtype_size(p->dtype), ritem = p->dtype == RS_COMPLEX64 ? 4 : p->dtype == RS_COMPLEX128 ? 8 : item;
  size_t ucount = (size_t)(p->full ? m * m : m * k), vcount = (size_t)(p->full ? n * n : k * n);
  int32_t info = 0;
  for (int64_t q = 0; q < p->batch; q++) {
    const char *a = (const char *)p->a + (size_t)(q * m * n) * item;
    char *s = (char *)p->s + (size_t)(q * k) * ritem;
    void *u = p->compute_uv ? (char *)p->u + (size_t)q * ucount * item : NULL;
    void *vh = p->compute_uv ? (char *)p->vh + (size_t)q * vcount * item : NULL;
    if (!all_finite(p->dtype, a, m * n)) {
      info = 1;
      continue;
    }
    memcpy(scratch, a, (size_t)(m * n) * item);
    lapack_int r = gesdd(p, scratch, s, u ? u : scratch, vh ? vh : scratch);
    if (r < 0) return 0; /* LAPACKE could not get its work space: the loops redo it all */
    if (r > 0) info = 1;
  }
  *p->info = info;
  return 1;
}

#else

int rs_blas_solve(const rs_solve_plan *p, void *scratch) {
  (void)p, (void)scratch;
  return 0;
}
int rs_blas_svd(const rs_svd_plan *p, void *scratch) {
  (void)p, (void)scratch;
  return 0;
}

#endif
