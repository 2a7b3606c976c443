/* var / std of contiguous rows (src/native/plans.h: rs_moments_plan): per row the mean,
 * then the sum of squared deviations from it, both accumulated in double - the two-pass
 * method, without the cancellation of E[x^2] - E[x]^2. Rows are spread over the pool. */
#include <math.h>
#include "native/native.h"

#define ROW_(name, T)                                                           \
  static double name(const T *x, int64_t n, double correction) {              \
    double s = 0, ss = 0;                                                       \
    for (int64_t i = 0; i < n; i++) s += (double)x[i];                         \
    const double mean = s / (double)n;                                          \
    for (int64_t i = 0; i < n; i++) {                                           \
      const double d = (double)x[i] - mean;                                     \
      ss += d * d;                                                              \
    }                                                                           \
    return ss / ((double)n - correction);                                       \
  }
ROW_(row_f32, float)
ROW_(row_f64, double)

static void moment_rows(int64_t begin, int64_t end, void *arg) {
  const rs_moments_plan *p = arg;
  for (int64_t r = begin; r < end; r++) {
    double v = p->dtype == RS_FLOAT32 ? row_f32((const float *)p->src + r * p->n, p->n, p->correction)
                                      : row_f64((const double *)p->src + r * p->n, p->n, p->correction);
    if (p->take_sqrt) v = sqrt(v);
    if (p->out_dtype == RS_FLOAT32)
      ((float *)p->dst)[r] = (float)v;
    else
      ((double *)p->dst)[r] = v;
  }
}

void rs_native_moments(rs_thread_pool *pool, const rs_moments_plan *p) {
  if (p->rows > 1 && rs_native_parallel(pool, p->rows * p->n))
    rs_native_for(pool, p->rows, moment_rows, (void *)(uintptr_t)p);
  else
    moment_rows(0, p->rows, (void *)(uintptr_t)p);
}
