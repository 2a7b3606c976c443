/* Inclusive scans (cumulative sums and products) of C-contiguous rows, in the plan's one
 * dtype (src/native/plans.h). Each row is a sequential loop in the accumulator's own
 * precision, as NumPy's add.accumulate, so host results equal NumPy's bit for bit;
 * rows are spread over the pool. Integers wrap (unsigned arithmetic). */
#include "native/native.h"

#define SCAN_REAL_(name, T)                                                    \
  static void name(const T *s, T *d, int64_t n, int prod) {                   \
    T acc = s[0];                                                              \
    d[0] = acc;                                                                \
    if (prod)                                                                  \
      for (int64_t i = 1; i < n; i++) d[i] = acc = (T)(acc * s[i]);            \
    else                                                                       \
      for (int64_t i = 1; i < n; i++) d[i] = acc = (T)(acc + s[i]);            \
  }
SCAN_REAL_(scan_u64, uint64_t)
SCAN_REAL_(scan_f32, float)
SCAN_REAL_(scan_f64, double)

/* complex: interleaved (re, im) pairs */
#define SCAN_CX_(name, T)                                                      \
  static void name(const T *s, T *d, int64_t n, int prod) {                   \
    T re = s[0], im = s[1];                                                    \
    d[0] = re, d[1] = im;                                                      \
    for (int64_t i = 1; i < n; i++) {                                          \
      T xr = s[2 * i], xi = s[2 * i + 1];                                      \
      if (prod) {                                                              \
        T r = re * xr - im * xi;                                               \
        im = re * xi + im * xr;                                                \
        re = r;                                                                \
      } else {                                                                 \
        re += xr, im += xi;                                                    \
      }                                                                        \
      d[2 * i] = re, d[2 * i + 1] = im;                                        \
    }                                                                          \
  }
SCAN_CX_(scan_c64, float)
SCAN_CX_(scan_c128, double)

static void scan_rows(int64_t begin, int64_t end, void *arg) {
  const rs_scan_plan *p = arg;
  size_t row = (size_t)p->n * rs_dtype_size(p->dtype);
  int prod = p->op == RS_SCAN_PROD;
  for (int64_t r = begin; r < end; r++) {
    const void *s = (const char *)p->src + (size_t)r * row;
    void *d = (char *)p->dst + (size_t)r * row;
    switch (p->dtype) {
      case RS_FLOAT32: scan_f32(s, d, p->n, prod); break;
      case RS_FLOAT64: scan_f64(s, d, p->n, prod); break;
      case RS_COMPLEX64: scan_c64(s, d, p->n, prod); break;
      case RS_COMPLEX128: scan_c128(s, d, p->n, prod); break;
      default: scan_u64(s, d, p->n, prod); break; /* int64 and uint64: the same bits */
    }
  }
}

void rs_native_scan(rs_thread_pool *pool, const rs_scan_plan *p) {
  if (p->rows > 1 && rs_native_parallel(pool, p->rows * p->n))
    rs_native_for(pool, p->rows, scan_rows, (void *)(uintptr_t)p);
  else
    scan_rows(0, p->rows, (void *)(uintptr_t)p);
}
