/* Inclusive scans (cumulative sums and products) along the middle axis of a C-contiguous
 * outer x n x inner block, in the plan's one dtype (src/native/plans.h). Each column is
 * accumulated in order in the accumulator's own precision, as NumPy's add.accumulate, so
 * host results equal NumPy's bit for bit; a step over a whole inner row at a time keeps
 * the access sequential. Blocks of `outer` are spread over the pool. Integers wrap
 * (unsigned arithmetic). */
#include <string.h>
#include "native/native.h"

/* one block: n x m values (m = inner, times 2 for complex interleaved (re, im)) */
#define SCAN_REAL_(name, T)                                                    \
  static void name(const T *s, T *d, int64_t n, int64_t m, int prod) {        \
    memmove(d, s, (size_t)m * sizeof(T));                                      \
    for (int64_t i = 1; i < n; i++) {                                          \
      const T *x = s + i * m, *p = d + (i - 1) * m;                            \
      T *y = d + i * m;                                                        \
      if (prod)                                                                \
        for (int64_t j = 0; j < m; j++) y[j] = (T)(p[j] * x[j]);               \
      else                                                                     \
        for (int64_t j = 0; j < m; j++) y[j] = (T)(p[j] + x[j]);               \
    }                                                                          \
  }
SCAN_REAL_(scan_u64, uint64_t)
SCAN_REAL_(scan_f32, float)
SCAN_REAL_(scan_f64, double)

/* complex: sums are the real loop over twice the values; products pair them up */
#define SCAN_CX_(name, T, real)                                                \
  static void name(const T *s, T *d, int64_t n, int64_t m, int prod) {        \
    if (!prod) {                                                               \
      real(s, d, n, 2 * m, 0);                                                 \
      return;                                                                  \
    }                                                                          \
    memmove(d, s, (size_t)(2 * m) * sizeof(T));                                \
    for (int64_t i = 1; i < n; i++) {                                          \
      const T *x = s + 2 * i * m, *p = d + 2 * (i - 1) * m;                    \
      T *y = d + 2 * i * m;                                                    \
      for (int64_t j = 0; j < m; j++) {                                        \
        T pr = p[2 * j], pi = p[2 * j + 1], xr = x[2 * j], xi = x[2 * j + 1];  \
        y[2 * j] = pr * xr - pi * xi;                                          \
        y[2 * j + 1] = pr * xi + pi * xr;                                      \
      }                                                                        \
    }                                                                          \
  }
SCAN_CX_(scan_c64, float, scan_f32)
SCAN_CX_(scan_c128, double, scan_f64)

static void scan_blocks(int64_t begin, int64_t end, void *arg) {
  const rs_scan_plan *p = arg;
  size_t block = (size_t)(p->n * p->inner) * rs_dtype_size(p->dtype);
  int prod = p->op == RS_SCAN_PROD;
  for (int64_t o = begin; o < end; o++) {
    const void *s = (const char *)p->src + (size_t)o * block;
    void *d = (char *)p->dst + (size_t)o * block;
    switch (p->dtype) {
      case RS_FLOAT32: scan_f32(s, d, p->n, p->inner, prod); break;
      case RS_FLOAT64: scan_f64(s, d, p->n, p->inner, prod); break;
      case RS_COMPLEX64: scan_c64(s, d, p->n, p->inner, prod); break;
      case RS_COMPLEX128: scan_c128(s, d, p->n, p->inner, prod); break;
      default: scan_u64(s, d, p->n, p->inner, prod); break; /* int64 and uint64: the same bits */
    }
  }
}

void rs_native_scan(rs_thread_pool *pool, const rs_scan_plan *p) {
  if (p->outer > 1 && rs_native_parallel(pool, p->outer * p->n * p->inner))
    rs_native_for(pool, p->outer, scan_blocks, (void *)(uintptr_t)p);
  else
    scan_blocks(0, p->outer, (void *)(uintptr_t)p);
}
