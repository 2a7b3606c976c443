/* The host matrix product through CBLAS, and which BLAS this build uses. The ops layer
 * hands over BLAS layouts (one unit stride per matrix, the other at least the extent);
 * anything else - a layout BLAS cannot describe, sizes over its int - stays with the
 * C loops. */
#include <limits.h>
#include "native/native_blas.h"

#ifdef RS_HOST_BLAS
#include <cblas.h>

/* One operand (rows x cols, byte strides rs, cs) as CBLAS sees it in row-major order:
 * plain with leading dimension rs, or transposed with leading dimension cs. 0 when
 * neither fits. A stride along an axis of length 1 is free: taken as one item. */
static int describe(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t item,
                    enum CBLAS_TRANSPOSE *t, int *ld) {
  if (rows == 1) rs = item;
  if (cols == 1) cs = item;
  if (rs <= 0 || cs <= 0 || rs % item || cs % item) return 0;
  rs /= item, cs /= item;
  if (rs > INT_MAX || cs > INT_MAX) return 0;
  if (cs == 1 && rs >= cols) {
    *t = CblasNoTrans, *ld = (int)rs;
    return 1;
  }
  if (rs == 1 && cs >= rows) {
    *t = CblasTrans, *ld = (int)cs;
    return 1;
  }
  return 0;
}

int rs_blas_matmul(const rs_matmul_plan *p) {
  int64_t item = (int64_t)rs_dtype_size(p->dtype);
  if (p->m > INT_MAX || p->n > INT_MAX || p->k > INT_MAX || p->k == 0) return 0;
  enum CBLAS_TRANSPOSE ta, tb, tc;
  int lda, ldb, ldc;
  if (!describe(p->m, p->k, p->a_rs, p->a_cs, item, &ta, &lda) ||
      !describe(p->k, p->n, p->b_rs, p->b_cs, item, &tb, &ldb) ||
      !describe(p->m, p->n, p->c_rs, p->c_cs, item, &tc, &ldc))
    return 0;
  int m = (int)p->m, n = (int)p->n, k = (int)p->k;
  /* A column-major C is C^T = B^T A^T in row-major terms: swap the operands and flip
   * each one's transposition. */
  int swap = tc == CblasTrans;
  const char *x = swap ? p->b : p->a, *y = swap ? p->a : p->b;
  int64_t xs = swap ? p->b_bs : p->a_bs, ys = swap ? p->a_bs : p->b_bs;
  enum CBLAS_TRANSPOSE tx = swap ? tb : ta, ty = swap ? ta : tb;
  int ldx = swap ? ldb : lda, ldy = swap ? lda : ldb;
  if (swap) {
    tx = tx == CblasTrans ? CblasNoTrans : CblasTrans;
    ty = ty == CblasTrans ? CblasNoTrans : CblasTrans;
    int t = m;
    m = n, n = t;
  }
  static const float f1[2] = {1, 0}, f0[2] = {0, 0};
  static const double d1[2] = {1, 0}, d0[2] = {0, 0};
  for (int64_t q = 0; q < p->batch; q++) {
    const void *xq = x + q * xs, *yq = y + q * ys;
    void *cq = p->c + q * p->c_bs;
    switch (p->dtype) {
      case RS_FLOAT32:
        cblas_sgemm(CblasRowMajor, tx, ty, m, n, k, 1.0f, xq, ldx, yq, ldy, 0.0f, cq, ldc);
        break;
      case RS_FLOAT64:
        cblas_dgemm(CblasRowMajor, tx, ty, m, n, k, 1.0, xq, ldx, yq, ldy, 0.0, cq, ldc);
        break;
      case RS_COMPLEX64:
        cblas_cgemm(CblasRowMajor, tx, ty, m, n, k, f1, xq, ldx, yq, ldy, f0, cq, ldc);
        break;
      default:
        cblas_zgemm(CblasRowMajor, tx, ty, m, n, k, d1, xq, ldx, yq, ldy, d0, cq, ldc);
        break;
    }
  }
  return 1;
}

#ifdef RS_HOST_OPENBLAS
/* OpenBLAS's own calls; its cblas.h declares them. */
const char *rs_blas_name(void) { return openblas_get_config(); }
int rs_blas_threads(void) { return openblas_get_num_threads(); }
void rs_blas_set_threads(int n) { openblas_set_num_threads(n); }
#else
const char *rs_blas_name(void) { return "CBLAS/LAPACKE"; }
int rs_blas_threads(void) { return 1; }
void rs_blas_set_threads(int n) { (void)n; }
#endif

#else /* no BLAS in this build: the C loops do everything */

int rs_blas_matmul(const rs_matmul_plan *p) {
  (void)p;
  return 0;
}
const char *rs_blas_name(void) { return "C loops"; }
int rs_blas_threads(void) { return 1; }
void rs_blas_set_threads(int n) { (void)n; }

#endif
