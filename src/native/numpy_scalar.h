/* NumPy's semantics for one value, written once for both sides that compute them: the
 * native loops include this header as C11, and the build embeds its text at the head of
 * every generated CUDA kernel (before src/backend/cuda/cuda_ops_prelude.cuh), where NVRTC
 * compiles it as CUDA C++. So it keeps to the subset both accept: no C library header
 * under CUDA (NVRTC declares the math functions itself), no bool, no C99 complex types
 * (complex values are {re, im} structs, the layout of C's complex types), inline
 * functions through RS_NP_FN (static inline in C, __device__ inline under CUDA).
 *
 * What is NumPy's here rather than IEEE's or the C library's: float to integer as NumPy's
 * C casts give on x86, integer division and remainder by zero and by -1, integer powers,
 * Python's floor division and modulo for floats, sign, NaN-propagating maximum/minimum
 * (elementwise and in reductions), and the complex product, quotient, power and sign
 * NumPy computes. Not here: float16 rounding, plain IEEE round-to-nearest-even that the
 * GPU does with its cvt instructions and the host in software (src/core/half.h), and the
 * complex exp/log/sqrt/trig functions, the C library's on the host, the prelude's own on
 * the GPU. */
#ifndef RS_NATIVE_NUMPY_SCALAR_H
#define RS_NATIVE_NUMPY_SCALAR_H

#if defined(__CUDACC__)
/* inline, not static: C++ allows the definitions in every program, and nvcc does not warn
 * about those a kernel leaves unused */
#define RS_NP_FN __device__ __forceinline__
#define RS_NP_NAN __longlong_as_double(0x7ff8000000000000LL)
#define RS_NP_INF __longlong_as_double(0x7ff0000000000000LL)
#else
#include <math.h>
#define RS_NP_FN static inline
#define RS_NP_NAN ((double)NAN)
#define RS_NP_INF ((double)INFINITY)
#endif

typedef long long rs_np_i;
typedef unsigned long long rs_np_u;
typedef struct rs_np_c {
  float re, im;
} rs_np_c;
typedef struct rs_np_z {
  double re, im;
} rs_np_z;

RS_NP_FN rs_np_c rs_np_mkc(float re, float im) {
  rs_np_c r;
  r.re = re;
  r.im = im;
  return r;
}
RS_NP_FN rs_np_z rs_np_mkz(double re, double im) {
  rs_np_z r;
  r.re = re;
  r.im = im;
  return r;
}

/* ---- float to integer: x86's cvttsd2si, which NumPy's C casts compile to ------------- */

/* NaN and values out of range give the lowest value (the range test also catches NaN). */
RS_NP_FN rs_np_i rs_np_f2i(double v) {
  return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (rs_np_i)v : (-9223372036854775807LL - 1);
}
RS_NP_FN rs_np_u rs_np_f2u(double v) {
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0)
    return (rs_np_u)(v - 9223372036854775808.0) + (1ULL << 63);
  return (rs_np_u)rs_np_f2i(v);
}
/* To int8..int32 and uint8/uint16 NumPy converts through 32 bits: out of range gives
 * INT32_MIN, whose low bits the narrower type then keeps. */
RS_NP_FN rs_np_i rs_np_f2i32(double v) {
  return (v >= -2147483648.0 && v < 2147483648.0) ? (rs_np_i)(int)v : (rs_np_i)(-2147483647 - 1);
}

/* ---- integers: wrap-around through unsigned arithmetic, never a trap ------------------ */

RS_NP_FN rs_np_i rs_np_add_i(rs_np_i a, rs_np_i b) { return (rs_np_i)((rs_np_u)a + (rs_np_u)b); }
RS_NP_FN rs_np_i rs_np_sub_i(rs_np_i a, rs_np_i b) { return (rs_np_i)((rs_np_u)a - (rs_np_u)b); }
RS_NP_FN rs_np_i rs_np_mul_i(rs_np_i a, rs_np_i b) { return (rs_np_i)((rs_np_u)a * (rs_np_u)b); }
RS_NP_FN rs_np_i rs_np_neg_i(rs_np_i a) { return (rs_np_i)(0 - (rs_np_u)a); }
RS_NP_FN rs_np_i rs_np_abs_i(rs_np_i a) { return a < 0 ? rs_np_neg_i(a) : a; }
RS_NP_FN rs_np_i rs_np_sign_i(rs_np_i a) { return (a > 0) - (a < 0); }
RS_NP_FN rs_np_i rs_np_reciprocal_i(rs_np_i a) { return a == 1 ? 1 : a == -1 ? -1 : 0; }
RS_NP_FN rs_np_u rs_np_sign_u(rs_np_u a) { return a > 0; }
RS_NP_FN rs_np_u rs_np_reciprocal_u(rs_np_u a) { return a == 1; }

/* Floor division and modulo: by zero both give 0 (NumPy warns and returns 0); by -1 the
 * quotient wraps (INT64_MIN / -1 would trap) and the remainder is 0. */
RS_NP_FN rs_np_i rs_np_floor_divide_i(rs_np_i a, rs_np_i b) {
  if (b == 0) return 0;
  if (b == -1) return rs_np_neg_i(a);
  rs_np_i q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}
RS_NP_FN rs_np_i rs_np_remainder_i(rs_np_i a, rs_np_i b) {
  if (b == 0 || b == -1) return 0;
  rs_np_i r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
RS_NP_FN rs_np_u rs_np_floor_divide_u(rs_np_u a, rs_np_u b) { return b ? a / b : 0; }
RS_NP_FN rs_np_u rs_np_remainder_u(rs_np_u a, rs_np_u b) { return b ? a % b : 0; }

RS_NP_FN rs_np_u rs_np_power_u(rs_np_u base, rs_np_u e) {
  rs_np_u r = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}
/* A negative exponent has no integer answer; NumPy raises, here it is 1/a^e truncated. */
RS_NP_FN rs_np_i rs_np_power_i(rs_np_i a, rs_np_i e) {
  if (e < 0) return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
  return (rs_np_i)rs_np_power_u((rs_np_u)a, (rs_np_u)e);
}

/* ---- real floats: S the suffix, T the type, F the libm suffix ------------------------ */

/* divmod is Python's (NumPy's npy_divmod): the remainder takes the divisor's sign and
 * the quotient is rounded so that q * b + m stays exact; maximum/minimum propagate NaN
 * (fmax/fmin, the C library's, ignore it); sign keeps a NaN. */
#define RS_NP_REAL(S, T, F)                                                                       \
  RS_NP_FN int rs_np_isnan_##S(T a) { return a != a; }                                            \
  RS_NP_FN int rs_np_isinf_##S(T a) { return fabs##F(a) == (T)RS_NP_INF; }                      \
  RS_NP_FN int rs_np_isfinite_##S(T a) { return fabs##F(a) < (T)RS_NP_INF; } /* NaN: false */     \
  RS_NP_FN T rs_np_divmod_##S(T a, T b, T *mod) {                                                 \
    T m = fmod##F(a, b);                                                                          \
    if (b == 0) {                                                                                 \
      *mod = m;                                                                                   \
      return a / b;                                                                               \
    }                                                                                             \
    T div = (a - m) / b;                                                                          \
    if (m != 0) {                                                                                 \
      if ((b < 0) != (m < 0)) {                                                                   \
        m += b;                                                                                   \
        div -= (T)1;                                                                              \
      }                                                                                           \
    } else {                                                                                      \
      m = copysign##F((T)0, b);                                                                   \
    }                                                                                             \
    T fl;                                                                                         \
    if (div != 0) {                                                                               \
      fl = floor##F(div);                                                                         \
      if (div - fl > (T)0.5) fl += (T)1;                                                          \
    } else {                                                                                      \
      fl = copysign##F((T)0, a / b);                                                              \
    }                                                                                             \
    *mod = m;                                                                                     \
    return fl;                                                                                    \
  }                                                                                               \
  RS_NP_FN T rs_np_floor_divide_##S(T a, T b) {                                                   \
    T m;                                                                                          \
    return rs_np_divmod_##S(a, b, &m);                                                            \
  }                                                                                               \
  RS_NP_FN T rs_np_remainder_##S(T a, T b) {                                                      \
    T m;                                                                                          \
    rs_np_divmod_##S(a, b, &m);                                                                   \
    return m;                                                                                     \
  }                                                                                               \
  RS_NP_FN T rs_np_maximum_##S(T a, T b) { return (a >= b || rs_np_isnan_##S(a)) ? a : b; }       \
  RS_NP_FN T rs_np_minimum_##S(T a, T b) { return (a <= b || rs_np_isnan_##S(a)) ? a : b; }       \
  RS_NP_FN T rs_np_sign_##S(T a) { return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a; }     \
  /* NumPy's rint and round to 0 decimals: halves to even, the default rounding mode */          \
  RS_NP_FN T rs_np_rint_##S(T a) { return rint##F(a); }

RS_NP_REAL(f, float, f)
RS_NP_REAL(d, double, )

/* ---- reductions: min, max, argmin, argmax ------------------------------------------- */

/* NumPy's rule: a NaN wins and the first NaN stays; of equal extremes the first stays.
 * Does x, found after c, replace it? (max: 1 for max/argmax, 0 for min/argmin) */
RS_NP_FN int rs_np_extreme_takes_d(double c, double x, int max) {
  if (rs_np_isnan_d(c)) return 0;
  if (rs_np_isnan_d(x)) return 1;
  return max ? x > c : x < c;
}
RS_NP_FN int rs_np_extreme_takes_i(rs_np_i c, rs_np_i x, int max) { return max ? x > c : x < c; }
RS_NP_FN int rs_np_extreme_takes_u(rs_np_u c, rs_np_u x, int max) { return max ? x > c : x < c; }

/* ---- complex: NumPy's formulas (not C's Annex G recovery of infinities) --------------- */

/* S the suffix, T the struct, R its real type, F the libm suffix. The quotient is Smith's
 * method; 0/0 divides each part by zero, as NumPy does. */
#define RS_NP_COMPLEX(S, T, R, F)                                                                 \
  RS_NP_FN T rs_np_mul_##S(T a, T b) {                                                            \
    T r;                                                                                          \
    r.re = a.re * b.re - a.im * b.im;                                                             \
    r.im = a.re * b.im + a.im * b.re;                                                             \
    return r;                                                                                     \
  }                                                                                               \
  RS_NP_FN T rs_np_div_##S(T a, T b) {                                                            \
    R abr = fabs##F(b.re), abi = fabs##F(b.im);                                                   \
    T r;                                                                                          \
    if (abr >= abi) {                                                                             \
      if (abr == 0 && abi == 0) {                                                                 \
        r.re = a.re / abr;                                                                        \
        r.im = a.im / abr;                                                                        \
        return r;                                                                                 \
      }                                                                                           \
      R rat = b.im / b.re, scl = (R)1 / (b.re + b.im * rat);                                      \
      r.re = (a.re + a.im * rat) * scl;                                                           \
      r.im = (a.im - a.re * rat) * scl;                                                           \
      return r;                                                                                   \
    }                                                                                             \
    R rat = b.re / b.im, scl = (R)1 / (b.im + b.re * rat);                                        \
    r.re = (a.re * rat + a.im) * scl;                                                             \
    r.im = (a.im * rat - a.re) * scl;                                                             \
    return r;                                                                                     \
  }

RS_NP_COMPLEX(c, rs_np_c, float, f)
RS_NP_COMPLEX(z, rs_np_z, double, )

/* Complex power where NumPy gives an exact answer: 1 for a zero exponent, 0 or NaN for a
 * zero base, repeated products for small integer exponents. Returns 0 when the caller must
 * compute exp(b log a) itself (the C library's cexp/clog on the host, the prelude's own on
 * the GPU). */
RS_NP_FN int rs_np_pow_exact_z(rs_np_z a, rs_np_z b, rs_np_z *r) {
  if (b.re == 0 && b.im == 0) {
    *r = rs_np_mkz(1.0, 0.0);
    return 1;
  }
  if (a.re == 0 && a.im == 0) {
    *r = b.re > 0 ? rs_np_mkz(0.0, 0.0) : rs_np_mkz(RS_NP_NAN, RS_NP_NAN);
    return 1;
  }
  if (!(b.im == 0 && b.re == floor(b.re) && fabs(b.re) <= 100)) return 0;
  long long e = (long long)fabs(b.re);
  rs_np_z p = rs_np_mkz(1.0, 0.0), x = a;
  while (e) {
    if (e & 1) p = rs_np_mul_z(p, x);
    x = rs_np_mul_z(x, x);
    e >>= 1;
  }
  *r = b.re < 0 ? rs_np_div_z(rs_np_mkz(1.0, 0.0), p) : p;
  return 1;
}

/* z / |z|, with NumPy's limits: an infinite part alone gives its direction. */
RS_NP_FN rs_np_z rs_np_sign_z(rs_np_z a) {
  if (rs_np_isnan_d(a.re) || rs_np_isnan_d(a.im) || (rs_np_isinf_d(a.re) && rs_np_isinf_d(a.im)))
    return rs_np_mkz(RS_NP_NAN, RS_NP_NAN);
  if (rs_np_isinf_d(a.re)) return rs_np_mkz(a.re > 0 ? 1.0 : -1.0, 0.0);
  if (rs_np_isinf_d(a.im)) return rs_np_mkz(0.0, a.im > 0 ? 1.0 : -1.0);
  double m = hypot(a.re, a.im);
  if (m == 0) return rs_np_mkz(0.0, 0.0);
  return rs_np_mkz(a.re / m, a.im / m);
}

/* ---- manip (issue 18): shifts, logaddexp, float16 nextafter, signbit ------------------ */

/* Shifts as NumPy's npy_lshift / npy_rshift: a count at or past the width - or negative,
 * which NumPy compares as an unsigned size - gives 0, and 0 or -1 (the sign) for a right
 * shift. Values of the narrower integer dtypes are held here as int64 and wrapped after,
 * which gives NumPy's answers for them too: a count past their width shifts every bit out
 * of the kept bits (left) or leaves only sign bits (right). */
RS_NP_FN rs_np_i rs_np_lshift_i(rs_np_i a, rs_np_i b) { return (rs_np_u)b < 64 ? (rs_np_i)((rs_np_u)a << b) : 0; }
RS_NP_FN rs_np_i rs_np_rshift_i(rs_np_i a, rs_np_i b) { return (rs_np_u)b < 64 ? a >> b : (a < 0 ? -1 : 0); }
RS_NP_FN rs_np_u rs_np_lshift_u(rs_np_u a, rs_np_u b) { return b < 64 ? a << b : 0; }
RS_NP_FN rs_np_u rs_np_rshift_u(rs_np_u a, rs_np_u b) { return b < 64 ? a >> b : 0; }

/* NumPy's npy_logaddexp: equal arguments (infinities of one sign included) give x + log 2,
 * else the larger plus log1p(exp(-|x - y|)), and NaN propagates. signbit through copysign,
 * which both compilers have for float and double alike. */
#define RS_NP_REAL_MORE(S, T, F)                                                                  \
  RS_NP_FN T rs_np_logaddexp_##S(T x, T y) {                                                      \
    if (x == y) return x + (T)0.693147180559945309417232121458176568;                             \
    T d = x - y;                                                                                  \
    if (d > 0) return x + log1p##F(exp##F(-d));                                                  \
    if (d <= 0) return y + log1p##F(exp##F(d));                                                  \
    return d;                                                                                     \
  }                                                                                               \
  RS_NP_FN int rs_np_signbit_##S(T a) { return copysign##F((T)1, a) < 0; }

RS_NP_REAL_MORE(f, float, f)
RS_NP_REAL_MORE(d, double, )

/* nextafter in float16 steps, on float values that are float16 values (float16 is
 * computed in float): the float16 spacing at |x| is 2^(e-10) for |x| in [2^e, 2^(e+1)),
 * e >= -14, and 2^-24 below; stepping down from a power of two takes the finer spacing
 * below it. The caller's rounding to float16 turns 65504 + 32 into infinity. Equal
 * arguments give x, as NumPy's npy_half_nextafter does. */
RS_NP_FN float rs_np_nextafter_h(float x, float y) {
  if (x != x || y != y) return x + y;
  if (x == y) return x;
  if (x == 0) return y > 0 ? 5.9604644775390625e-08f : -5.9604644775390625e-08f;
  float ax = fabsf(x);
  if (ax > 65504.0f) return x > 0 ? 65504.0f : -65504.0f; /* from infinity towards y */
  int away = (x < y) == (x > 0), e = 0;
  frexpf(ax, &e);
  e -= 1; /* ax in [2^e, 2^(e+1)) */
  if (e < -14) e = -14;
  float ulp = ldexpf(1.0f, e - 10);
  if (!away && e > -14 && ax == ldexpf(1.0f, e)) ulp *= 0.5f;
  float r = away ? ax + ulp : ax - ulp;
  return x > 0 ? r : -r;
}

#endif
