/* Native matrix product and linear solve. Where the build has an optimized BLAS
 * (native_blas.c, native_lapack.c) it does the work; these plain loops are the fallback
 * for builds without one and layouts it cannot take. Correct first: matmul walks each
 * output row in column blocks with a local accumulator (any strides); solve is LU with
 * partial pivoting in double precision (complex double for complex), whatever the
 * dtype, rounded once at the end. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "native/native.h"
#include "native/native_blas.h"

#define MM_BLOCK 256

#define RS_MATMUL_ROWS(T)                                                                    \
  static void matmul_rows_##T(const rs_matmul_plan *p, int64_t r0, int64_t r1) {             \
    T acc[MM_BLOCK];                                                                         \
    for (int64_t r = r0; r < r1; r++) {                                                      \
      int64_t q = r / p->m, i = r % p->m;                                                    \
      const char *arow = p->a + q * p->a_bs + i * p->a_rs;                                   \
      const char *bmat = p->b + q * p->b_bs;                                                 \
      char *crow = p->c + q * p->c_bs + i * p->c_rs;                                         \
      for (int64_t j0 = 0; j0 < p->n; j0 += MM_BLOCK) {                                      \
        int64_t nb = p->n - j0 < MM_BLOCK ? p->n - j0 : MM_BLOCK;                            \
        for (int64_t j = 0; j < nb; j++) acc[j] = 0;                                         \
        for (int64_t kk = 0; kk < p->k; kk++) {                                              \
          T aik = *(const T *)(const void *)(arow + kk * p->a_cs);                           \
          const char *brow = bmat + kk * p->b_rs + j0 * p->b_cs;                             \
          if (p->b_cs == (int64_t)sizeof(T)) {                                               \
            const T *bv = (const T *)(const void *)brow;                                     \
            for (int64_t j = 0; j < nb; j++) acc[j] += aik * bv[j];                          \
          } else {                                                                           \
            for (int64_t j = 0; j < nb; j++) acc[j] += aik * *(const T *)(const void *)(brow + j * p->b_cs); \
          }                                                                                  \
        }                                                                                    \
        for (int64_t j = 0; j < nb; j++) *(T *)(void *)(crow + (j0 + j) * p->c_cs) = acc[j]; \
      }                                                                                      \
    }                                                                                        \
  }

typedef float f32;
typedef double f64;
typedef float _Complex c64;
typedef double _Complex c128;
RS_MATMUL_ROWS(f32)
RS_MATMUL_ROWS(f64)
RS_MATMUL_ROWS(c64)
RS_MATMUL_ROWS(c128)

static void matmul_body(int64_t r0, int64_t r1, void *arg) {
  const rs_matmul_plan *p = arg;
  switch (p->dtype) {
    case RS_FLOAT32: matmul_rows_f32(p, r0, r1); break;
    case RS_FLOAT64: matmul_rows_f64(p, r0, r1); break;
    case RS_COMPLEX64: matmul_rows_c64(p, r0, r1); break;
    default: matmul_rows_c128(p, r0, r1); break;
  }
}

void rs_native_matmul(rs_thread_pool *pool, const rs_matmul_plan *p) {
  int64_t rows = p->batch * p->m;
  if (rows <= 0 || p->n <= 0) return;
  if (rs_blas_matmul(p)) return;
  if (rs_native_parallel(pool, rows * p->n * (p->k > 0 ? p->k : 1)))
    rs_native_for(pool, rows, matmul_body, (void *)(uintptr_t)p);
  else
    matmul_body(0, rows, (void *)(uintptr_t)p);
}

/* ---- solve ---- */

static int is_complex(rs_dtype dt) { return dt == RS_COMPLEX64 || dt == RS_COMPLEX128; }

size_t rs_native_solve_scratch(const rs_solve_plan *p) {
  /* per matrix: a copy of A and of B in the working type, and the pivots */
  size_t w = is_complex(p->dtype) ? sizeof(c128) : sizeof(f64);
  size_t per = (size_t)p->n * (size_t)p->n * w + (size_t)p->n * (size_t)p->k * w + (size_t)p->n * sizeof(int64_t);
  return per * (size_t)p->batch + sizeof(int32_t) * (size_t)p->batch;
}

typedef struct solve_job {
  const rs_solve_plan *p;
  unsigned char *scratch;
  int32_t *flags; /* per matrix: 1 if singular */
} solve_job;

static double load_real(rs_dtype dt, const void *base, int64_t i) {
  return dt == RS_FLOAT32 ? (double)((const float *)base)[i] : ((const double *)base)[i];
}

static c128 load_cplx(rs_dtype dt, const void *base, int64_t i) {
  return dt == RS_COMPLEX64 ? (c128)((const c64 *)base)[i] : ((const c128 *)base)[i];
}

/* LU with partial pivoting of A (n x n, row-major) and the solve of k right-hand sides;
 * T the working type, ABS its magnitude. Returns 1 if a pivot is exactly zero. */
#define RS_LU_SOLVE(T, ABS)                                                                  \
  static int lu_solve_##T(T *A, T *B, int64_t n, int64_t k) {                                \
    for (int64_t c = 0; c < n; c++) {                                                        \
      int64_t piv = c;                                                                       \
      double best = ABS(A[c * n + c]);                                                       \
      for (int64_t r = c + 1; r < n; r++)                                                    \
        if (ABS(A[r * n + c]) > best) best = ABS(A[r * n + c]), piv = r;                     \
      if (best == 0 || isnan(best)) return 1;                                                \
      if (piv != c) {                                                                        \
        for (int64_t j = 0; j < n; j++) {                                                    \
          T t = A[c * n + j];                                                                \
          A[c * n + j] = A[piv * n + j];                                                     \
          A[piv * n + j] = t;                                                                \
        }                                                                                    \
        for (int64_t j = 0; j < k; j++) {                                                    \
          T t = B[c * k + j];                                                                \
          B[c * k + j] = B[piv * k + j];                                                     \
          B[piv * k + j] = t;                                                                \
        }                                                                                    \
      }                                                                                      \
      for (int64_t r = c + 1; r < n; r++) {                                                  \
        T f = A[r * n + c] / A[c * n + c];                                                   \
        if (f == 0) continue;                                                                \
        for (int64_t j = c + 1; j < n; j++) A[r * n + j] -= f * A[c * n + j];                \
        for (int64_t j = 0; j < k; j++) B[r * k + j] -= f * B[c * k + j];                    \
      }                                                                                      \
    }                                                                                        \
    for (int64_t c = n - 1; c >= 0; c--) {                                                   \
      for (int64_t j = 0; j < k; j++) {                                                      \
        T s = B[c * k + j];                                                                  \
        for (int64_t r = c + 1; r < n; r++) s -= A[c * n + r] * B[r * k + j];                \
        B[c * k + j] = s / A[c * n + c];                                                     \
      }                                                                                      \
    }                                                                                        \
    return 0;                                                                                \
  }
RS_LU_SOLVE(f64, fabs)
RS_LU_SOLVE(c128, cabs)

static void solve_body(int64_t q0, int64_t q1, void *arg) {
  const solve_job *j = arg;
  const rs_solve_plan *p = j->p;
  int cplx = is_complex(p->dtype);
  size_t w = cplx ? sizeof(c128) : sizeof(f64);
  int64_t n = p->n, k = p->k;
  size_t per = (size_t)(n * n + n * k) * w + (size_t)n * sizeof(int64_t);
  size_t isz = rs_dtype_size(p->dtype);
  for (int64_t q = q0; q < q1; q++) {
    unsigned char *s = j->scratch + (size_t)q * per;
    const char *a = (const char *)p->a + (size_t)(q * n * n) * isz;
    char *b = (char *)p->b + (size_t)(q * n * k) * isz;
    /* the working B is row-major (n x k); p->b is column-major */
    if (cplx) {
      c128 *A = (c128 *)(void *)s, *B = A + n * n;
      for (int64_t i = 0; i < n * n; i++) A[i] = load_cplx(p->dtype, a, i);
      for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < k; c++) B[i * k + c] = load_cplx(p->dtype, b, c * n + i);
      j->flags[q] = lu_solve_c128(A, B, n, k);
      for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < k; c++) {
          if (p->dtype == RS_COMPLEX64) ((c64 *)(void *)b)[c * n + i] = (c64)B[i * k + c];
          else ((c128 *)(void *)b)[c * n + i] = B[i * k + c];
        }
    } else {
      f64 *A = (f64 *)(void *)s, *B = A + n * n;
      for (int64_t i = 0; i < n * n; i++) A[i] = load_real(p->dtype, a, i);
      for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < k; c++) B[i * k + c] = load_real(p->dtype, b, c * n + i);
      j->flags[q] = lu_solve_f64(A, B, n, k);
      for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < k; c++) {
          if (p->dtype == RS_FLOAT32) ((float *)(void *)b)[c * n + i] = (float)B[i * k + c];
          else ((double *)(void *)b)[c * n + i] = B[i * k + c];
        }
    }
  }
}

void rs_native_solve(rs_thread_pool *pool, const rs_solve_plan *p, void *scratch) {
  if (rs_blas_solve(p, scratch)) return;
  size_t flags_at = rs_native_solve_scratch(p) - sizeof(int32_t) * (size_t)p->batch;
  solve_job j = {p, scratch, (int32_t *)(void *)((unsigned char *)scratch + flags_at)};
  rs_native_batch(pool, p->batch, p->batch * p->n * p->n * p->n, solve_body, &j, j.flags, p->info);
}
