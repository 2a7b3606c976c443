/* Pairwise summation of contiguous float32 and float64 runs in double, the way NumPy sums
 * floats: runs of up to 128 values go into 8 interleaved partial sums (which the compiler
 * turns into vector adds), longer runs are halved and the halves' sums added, so the
 * rounding error grows with log(n) rather than n. float32 values are summed in double,
 * which is more accurate than NumPy's float32 sums. The result depends only on the run,
 * never on the threads. */
#include "native/native.h"

#define RS_PW_BLOCK 128

#define RS_PAIRWISE(NAME, T)                                                          \
  double NAME(const T *x, int64_t n) {                                                \
    if (n <= RS_PW_BLOCK) {                                                           \
      double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};                                         \
      int64_t i = 0;                                                                  \
      for (; i + 8 <= n; i += 8)                                                      \
        for (int k = 0; k < 8; k++) a[k] += (double)x[i + k];                         \
      double s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));   \
      for (; i < n; i++) s += (double)x[i];                                           \
      return s;                                                                       \
    }                                                                                 \
    int64_t half = n / 2;                                                             \
    half -= half % 8;                                                                 \
    return NAME(x, half) + NAME(x + half, n - half);                                  \
  }

RS_PAIRWISE(rs_nat_pairwise_f, float)
RS_PAIRWISE(rs_nat_pairwise_d, double)
