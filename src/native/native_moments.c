/* var / std along the middle axis of an outer x n x inner block (src/native/plans.h:
 * rs_moments_plan): per output the mean, then the sum of squared deviations from it, both
 * accumulated in double - the two-pass method, without the cancellation of
 * E[x^2] - E[x]^2, and of each column's values less its first one (shift invariant; the
 * sums then hold the spread, not a large mean's rounding: 1e8 + uniform(0, 1) keeps its
 * variance to rounding as NumPy's pairwise sums do). Columns go in tiles of RS_NAT_BLOCK, so each pass reads whole row
 * pieces in order; blocks of `outer` are spread over the pool. */
#include <math.h>
#include "native/native.h"

/* outputs j0 .. j0+m-1 of block o, m <= RS_NAT_BLOCK */
#define TILE_(name, T)                                                                     \
  static void name(const rs_moments_plan *p, int64_t o, int64_t j0, int m) {              \
    const T *x = (const T *)p->src + o * p->n * p->inner + j0;                            \
    double mean[RS_NAT_BLOCK] = {0}, ss[RS_NAT_BLOCK] = {0}, k[RS_NAT_BLOCK];              \
    for (int j = 0; j < m; j++) k[j] = (double)x[j];                                       \
    for (int64_t i = 0; i < p->n; i++)                                                     \
      for (int j = 0; j < m; j++) mean[j] += (double)x[i * p->inner + j] - k[j];           \
    for (int j = 0; j < m; j++) mean[j] /= (double)p->n;                                   \
    for (int64_t i = 0; i < p->n; i++)                                                     \
      for (int j = 0; j < m; j++) {                                                        \
        const double d = (double)x[i * p->inner + j] - k[j] - mean[j];                     \
        ss[j] += d * d;                                                                    \
      }                                                                                    \
    for (int j = 0; j < m; j++) {                                                          \
      double v = ss[j] / ((double)p->n - p->correction);                                   \
      if (p->take_sqrt) v = sqrt(v);                                                       \
      if (p->out_dtype == RS_FLOAT32)                                                      \
        ((float *)p->dst)[o * p->inner + j0 + j] = (float)v;                               \
      else                                                                                 \
        ((double *)p->dst)[o * p->inner + j0 + j] = v;                                     \
    }                                                                                      \
  }
TILE_(tile_f32, float)
TILE_(tile_f64, double)

static void moment_blocks(int64_t begin, int64_t end, void *arg) {
  const rs_moments_plan *p = arg;
  for (int64_t o = begin; o < end; o++)
    for (int64_t j0 = 0; j0 < p->inner; j0 += RS_NAT_BLOCK) {
      int m = p->inner - j0 < RS_NAT_BLOCK ? (int)(p->inner - j0) : RS_NAT_BLOCK;
      if (p->dtype == RS_FLOAT32)
        tile_f32(p, o, j0, m);
      else
        tile_f64(p, o, j0, m);
    }
}

void rs_native_moments(rs_thread_pool *pool, const rs_moments_plan *p) {
  if (p->outer > 1 && rs_native_parallel(pool, p->outer * p->n * p->inner))
    rs_native_for(pool, p->outer, moment_blocks, (void *)(uintptr_t)p);
  else
    moment_blocks(0, p->outer, (void *)(uintptr_t)p);
}
