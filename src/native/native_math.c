/* Native elementwise math: every op for every value class, as typed loops over blocks.
 * Integer arithmetic goes through unsigned types so wrap-around is defined behaviour;
 * float floor_divide/remainder are Python's (NumPy's npy_divmod); NaN handling follows
 * NumPy (maximum/minimum propagate NaN, fmax/fmin ignore it). The same semantics are
 * generated as CUDA C in src/backend/cuda/cuda_ops_codegen.c. */
#include <math.h>
#include "native/native.h"
#include "core/dtype_rules.h"

/* ---- scalar helpers ---------------------------------------------------------------- */

static inline rs_vi i_add(rs_vi a, rs_vi b) { return (rs_vi)((rs_vu)a + (rs_vu)b); }
static inline rs_vi i_sub(rs_vi a, rs_vi b) { return (rs_vi)((rs_vu)a - (rs_vu)b); }
static inline rs_vi i_mul(rs_vi a, rs_vi b) { return (rs_vi)((rs_vu)a * (rs_vu)b); }
static inline rs_vi i_neg(rs_vi a) { return (rs_vi)(0 - (rs_vu)a); }

static inline rs_vi i_fdiv(rs_vi a, rs_vi b) {
  if (b == 0) return 0;
  if (b == -1) return i_neg(a); /* INT64_MIN / -1 wraps instead of trapping */
  rs_vi q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q--;
  return q;
}

static inline rs_vi i_mod(rs_vi a, rs_vi b) {
  if (b == 0 || b == -1) return 0;
  rs_vi r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static inline rs_vu u_pow(rs_vu base, rs_vu e) {
  rs_vu r = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

/* A negative exponent has no integer answer; NumPy raises, here it is 1/a^e truncated. */
static inline rs_vi i_pow(rs_vi a, rs_vi e) {
  if (e < 0) return a == 1 ? 1 : a == -1 ? ((e & 1) ? -1 : 1) : 0;
  return (rs_vi)u_pow((rs_vu)a, (rs_vu)e);
}

static inline rs_vi i_sign(rs_vi a) { return (a > 0) - (a < 0); }
static inline rs_vi i_abs(rs_vi a) { return a < 0 ? i_neg(a) : a; }
static inline rs_vi i_recip(rs_vi a) { return a == 1 ? 1 : a == -1 ? -1 : 0; }

/* Python's divmod for floats (NumPy's npy_divmod). */
static inline double d_divmod(double a, double b, double *mod) {
  double m = fmod(a, b);
  if (b == 0) {
    *mod = m;
    return a / b;
  }
  double div = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      div -= 1.0;
    }
  } else {
    m = copysign(0.0, b);
  }
  double fl;
  if (div != 0) {
    fl = floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = copysign(0.0, a / b);
  }
  *mod = m;
  return fl;
}

static inline float f_divmod(float a, float b, float *mod) {
  float m = fmodf(a, b);
  if (b == 0) {
    *mod = m;
    return a / b;
  }
  float div = (a - m) / b;
  if (m != 0) {
    if ((b < 0) != (m < 0)) {
      m += b;
      div -= 1.0f;
    }
  } else {
    m = copysignf(0.0f, b);
  }
  float fl;
  if (div != 0) {
    fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
  } else {
    fl = copysignf(0.0f, a / b);
  }
  *mod = m;
  return fl;
}

static inline double d_fdiv(double a, double b) {
  double m;
  return d_divmod(a, b, &m);
}
static inline double d_mod(double a, double b) {
  double m;
  d_divmod(a, b, &m);
  return m;
}
static inline float f_fdiv(float a, float b) {
  float m;
  return f_divmod(a, b, &m);
}
static inline float f_mod(float a, float b) {
  float m;
  f_divmod(a, b, &m);
  return m;
}

static inline double d_sign(double a) { return a > 0 ? 1.0 : a < 0 ? -1.0 : a == 0 ? 0.0 : a; }
static inline float f_sign(float a) { return a > 0 ? 1.0f : a < 0 ? -1.0f : a == 0 ? 0.0f : a; }

/* Complex product and quotient with NumPy's formulas (not C's Annex G recovery of
 * infinities), so the host, the simulator and the GPU code agree with NumPy. */
static inline rs_vz z_mul(rs_vz a, rs_vz b) {
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  return CMPLX(ar * br - ai * bi, ar * bi + ai * br);
}

static inline rs_vz z_div(rs_vz a, rs_vz b) {
  double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
  double abr = fabs(br), abi = fabs(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return CMPLX(ar / abr, ai / abr);
    double rat = bi / br, scl = 1.0 / (br + bi * rat);
    return CMPLX((ar + ai * rat) * scl, (ai - ar * rat) * scl);
  }
  double rat = br / bi, scl = 1.0 / (bi + br * rat);
  return CMPLX((ar * rat + ai) * scl, (ai * rat - ar) * scl);
}

static inline rs_vc c_mul(rs_vc a, rs_vc b) {
  float ar = crealf(a), ai = cimagf(a), br = crealf(b), bi = cimagf(b);
  return CMPLXF(ar * br - ai * bi, ar * bi + ai * br);
}

static inline rs_vc c_div(rs_vc a, rs_vc b) {
  float ar = crealf(a), ai = cimagf(a), br = crealf(b), bi = cimagf(b);
  float abr = fabsf(br), abi = fabsf(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return CMPLXF(ar / abr, ai / abr);
    float rat = bi / br, scl = 1.0f / (br + bi * rat);
    return CMPLXF((ar + ai * rat) * scl, (ai - ar * rat) * scl);
  }
  float rat = br / bi, scl = 1.0f / (bi + br * rat);
  return CMPLXF((ar * rat + ai) * scl, (ai * rat - ar) * scl);
}

/* Complex power: exact repeated products for small integer exponents (as NumPy), else
 * exp(b log a). */
static inline rs_vz z_pow(rs_vz a, rs_vz b) {
  double br = creal(b), bi = cimag(b);
  if (br == 0 && bi == 0) return CMPLX(1.0, 0.0);
  if (creal(a) == 0 && cimag(a) == 0) return br > 0 ? CMPLX(0.0, 0.0) : CMPLX(NAN, NAN);
  if (bi == 0 && br == floor(br) && fabs(br) <= 100) {
    long e = (long)fabs(br);
    rs_vz r = CMPLX(1.0, 0.0), x = a;
    while (e) {
      if (e & 1) r = z_mul(r, x);
      x = z_mul(x, x);
      e >>= 1;
    }
    return br < 0 ? z_div(CMPLX(1.0, 0.0), r) : r;
  }
  return cexp(z_mul(b, clog(a)));
}

/* z / |z|, with NumPy's limits: an infinite part alone gives its direction. */
static inline rs_vz z_sign(rs_vz a) {
  double re = creal(a), im = cimag(a);
  if (isnan(re) || isnan(im) || (isinf(re) && isinf(im))) return CMPLX(NAN, NAN);
  if (isinf(re)) return CMPLX(re > 0 ? 1.0 : -1.0, 0.0);
  if (isinf(im)) return CMPLX(0.0, im > 0 ? 1.0 : -1.0);
  double m = cabs(a);
  if (m == 0) return CMPLX(0.0, 0.0);
  return CMPLX(re / m, im / m);
}

/* ---- loops ------------------------------------------------------------------------- */

#define L1(TX, TR, EXPR)              \
  do {                                \
    const TX *xs = x;                 \
    TR *rs = r;                       \
    for (int i = 0; i < n; i++) {     \
      TX p = xs[i];                   \
      (void)p;                        \
      rs[i] = (EXPR);                 \
    }                                 \
  } while (0)

#define L2(TX, TR, EXPR)              \
  do {                                \
    const TX *xs = x, *ys = y;        \
    TR *rs = r;                       \
    for (int i = 0; i < n; i++) {     \
      TX p = xs[i], q = ys[i];        \
      rs[i] = (EXPR);                 \
    }                                 \
  } while (0)

static void bin_b(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: case RS_OP_MAXIMUM: case RS_OP_FMAX: case RS_OP_BITWISE_OR: case RS_OP_LOGICAL_OR:
      L2(rs_vb, rs_vb, p | q); break;
    case RS_OP_MULTIPLY: case RS_OP_MINIMUM: case RS_OP_FMIN: case RS_OP_BITWISE_AND: case RS_OP_LOGICAL_AND:
      L2(rs_vb, rs_vb, p & q); break;
    case RS_OP_BITWISE_XOR: case RS_OP_LOGICAL_XOR: case RS_OP_NOT_EQUAL: L2(rs_vb, rs_vb, p ^ q); break;
    case RS_OP_EQUAL: L2(rs_vb, rs_vb, p == q); break;
    case RS_OP_LESS: L2(rs_vb, rs_vb, p < q); break;
    case RS_OP_LESS_EQUAL: L2(rs_vb, rs_vb, p <= q); break;
    case RS_OP_GREATER: L2(rs_vb, rs_vb, p > q); break;
    case RS_OP_GREATER_EQUAL: L2(rs_vb, rs_vb, p >= q); break;
    default: break;
  }
}

static void bin_i(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: L2(rs_vi, rs_vi, i_add(p, q)); break;
    case RS_OP_SUBTRACT: L2(rs_vi, rs_vi, i_sub(p, q)); break;
    case RS_OP_MULTIPLY: L2(rs_vi, rs_vi, i_mul(p, q)); break;
    case RS_OP_FLOOR_DIVIDE: L2(rs_vi, rs_vi, i_fdiv(p, q)); break;
    case RS_OP_REMAINDER: L2(rs_vi, rs_vi, i_mod(p, q)); break;
    case RS_OP_POWER: L2(rs_vi, rs_vi, i_pow(p, q)); break;
    case RS_OP_MAXIMUM: case RS_OP_FMAX: L2(rs_vi, rs_vi, p >= q ? p : q); break;
    case RS_OP_MINIMUM: case RS_OP_FMIN: L2(rs_vi, rs_vi, p <= q ? p : q); break;
    case RS_OP_EQUAL: L2(rs_vi, rs_vb, p == q); break;
    case RS_OP_NOT_EQUAL: L2(rs_vi, rs_vb, p != q); break;
    case RS_OP_LESS: L2(rs_vi, rs_vb, p < q); break;
    case RS_OP_LESS_EQUAL: L2(rs_vi, rs_vb, p <= q); break;
    case RS_OP_GREATER: L2(rs_vi, rs_vb, p > q); break;
    case RS_OP_GREATER_EQUAL: L2(rs_vi, rs_vb, p >= q); break;
    case RS_OP_BITWISE_AND: L2(rs_vi, rs_vi, p & q); break;
    case RS_OP_BITWISE_OR: L2(rs_vi, rs_vi, p | q); break;
    case RS_OP_BITWISE_XOR: L2(rs_vi, rs_vi, p ^ q); break;
    default: break;
  }
}

static void bin_u(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: L2(rs_vu, rs_vu, p + q); break;
    case RS_OP_SUBTRACT: L2(rs_vu, rs_vu, p - q); break;
    case RS_OP_MULTIPLY: L2(rs_vu, rs_vu, p * q); break;
    case RS_OP_FLOOR_DIVIDE: L2(rs_vu, rs_vu, q ? p / q : 0); break;
    case RS_OP_REMAINDER: L2(rs_vu, rs_vu, q ? p % q : 0); break;
    case RS_OP_POWER: L2(rs_vu, rs_vu, u_pow(p, q)); break;
    case RS_OP_MAXIMUM: case RS_OP_FMAX: L2(rs_vu, rs_vu, p >= q ? p : q); break;
    case RS_OP_MINIMUM: case RS_OP_FMIN: L2(rs_vu, rs_vu, p <= q ? p : q); break;
    case RS_OP_EQUAL: L2(rs_vu, rs_vb, p == q); break;
    case RS_OP_NOT_EQUAL: L2(rs_vu, rs_vb, p != q); break;
    case RS_OP_LESS: L2(rs_vu, rs_vb, p < q); break;
    case RS_OP_LESS_EQUAL: L2(rs_vu, rs_vb, p <= q); break;
    case RS_OP_GREATER: L2(rs_vu, rs_vb, p > q); break;
    case RS_OP_GREATER_EQUAL: L2(rs_vu, rs_vb, p >= q); break;
    case RS_OP_BITWISE_AND: L2(rs_vu, rs_vu, p & q); break;
    case RS_OP_BITWISE_OR: L2(rs_vu, rs_vu, p | q); break;
    case RS_OP_BITWISE_XOR: L2(rs_vu, rs_vu, p ^ q); break;
    default: break;
  }
}

/* Real floats: T the type, S the libm suffix (f or nothing), P the helper prefix. */
#define RS_FLOAT_BINARY(T, S, P)                                                         \
  switch (op) {                                                                          \
    case RS_OP_ADD: L2(T, T, p + q); break;                                              \
    case RS_OP_SUBTRACT: L2(T, T, p - q); break;                                         \
    case RS_OP_MULTIPLY: L2(T, T, p * q); break;                                         \
    case RS_OP_DIVIDE: L2(T, T, p / q); break;                                           \
    case RS_OP_FLOOR_DIVIDE: L2(T, T, P##_fdiv(p, q)); break;                            \
    case RS_OP_REMAINDER: L2(T, T, P##_mod(p, q)); break;                                \
    case RS_OP_POWER: L2(T, T, pow##S(p, q)); break;                                     \
    case RS_OP_MAXIMUM: L2(T, T, (p >= q || isnan(p)) ? p : q); break;                   \
    case RS_OP_MINIMUM: L2(T, T, (p <= q || isnan(p)) ? p : q); break;                   \
    case RS_OP_FMAX: L2(T, T, fmax##S(p, q)); break;                                     \
    case RS_OP_FMIN: L2(T, T, fmin##S(p, q)); break;                                     \
    case RS_OP_EQUAL: L2(T, rs_vb, p == q); break;                                       \
    case RS_OP_NOT_EQUAL: L2(T, rs_vb, p != q); break;                                   \
    case RS_OP_LESS: L2(T, rs_vb, p < q); break;                                         \
    case RS_OP_LESS_EQUAL: L2(T, rs_vb, p <= q); break;                                  \
    case RS_OP_GREATER: L2(T, rs_vb, p > q); break;                                      \
    case RS_OP_GREATER_EQUAL: L2(T, rs_vb, p >= q); break;                               \
    case RS_OP_ARCTAN2: L2(T, T, atan2##S(p, q)); break;                                 \
    case RS_OP_HYPOT: L2(T, T, hypot##S(p, q)); break;                                   \
    case RS_OP_COPYSIGN: L2(T, T, copysign##S(p, q)); break;                             \
    default: break;                                                                      \
  }

static void bin_f(int op, const void *x, const void *y, void *r, int n) { RS_FLOAT_BINARY(rs_vf, f, f) }
static void bin_d(int op, const void *x, const void *y, void *r, int n) { RS_FLOAT_BINARY(rs_vd, , d) }

static void bin_z(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: L2(rs_vz, rs_vz, p + q); break;
    case RS_OP_SUBTRACT: L2(rs_vz, rs_vz, p - q); break;
    case RS_OP_MULTIPLY: L2(rs_vz, rs_vz, z_mul(p, q)); break;
    case RS_OP_DIVIDE: L2(rs_vz, rs_vz, z_div(p, q)); break;
    case RS_OP_POWER: L2(rs_vz, rs_vz, z_pow(p, q)); break;
    case RS_OP_EQUAL: L2(rs_vz, rs_vb, p == q); break;
    case RS_OP_NOT_EQUAL: L2(rs_vz, rs_vb, p != q); break;
    default: break;
  }
}

static void bin_c(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: L2(rs_vc, rs_vc, p + q); break;
    case RS_OP_SUBTRACT: L2(rs_vc, rs_vc, p - q); break;
    case RS_OP_MULTIPLY: L2(rs_vc, rs_vc, c_mul(p, q)); break;
    case RS_OP_DIVIDE: L2(rs_vc, rs_vc, c_div(p, q)); break;
    case RS_OP_POWER: L2(rs_vc, rs_vc, (rs_vc)z_pow(p, q)); break;
    case RS_OP_EQUAL: L2(rs_vc, rs_vb, p == q); break;
    case RS_OP_NOT_EQUAL: L2(rs_vc, rs_vb, p != q); break;
    default: break;
  }
}

void rs_nat_binary(int op, rs_dtype arg, rs_dtype res, const void *x, const void *y, void *r, int n) {
  (void)res;
  switch (rs_dtype_cls(arg)) {
    case RS_CLS_B: bin_b(op, x, y, r, n); break;
    case RS_CLS_I: bin_i(op, x, y, r, n); break;
    case RS_CLS_U: bin_u(op, x, y, r, n); break;
    case RS_CLS_F: bin_f(op, x, y, r, n); break;
    case RS_CLS_D: bin_d(op, x, y, r, n); break;
    case RS_CLS_C: bin_c(op, x, y, r, n); break;
    case RS_CLS_Z: bin_z(op, x, y, r, n); break;
    default: break;
  }
}

/* ---- unary ------------------------------------------------------------------------- */

static void un_b(int op, const void *x, void *r, int n) {
  switch (op) {
    case RS_OP_POSITIVE: case RS_OP_ABS: case RS_OP_FLOOR: case RS_OP_CEIL: case RS_OP_TRUNC: case RS_OP_REAL:
      L1(rs_vb, rs_vb, p); break;
    case RS_OP_LOGICAL_NOT: case RS_OP_INVERT: L1(rs_vb, rs_vb, !p); break;
    case RS_OP_ISNAN: case RS_OP_ISINF: case RS_OP_IMAG: L1(rs_vb, rs_vb, 0); break;
    case RS_OP_ISFINITE: L1(rs_vb, rs_vb, 1); break;
    default: break;
  }
}

static void un_i(int op, const void *x, void *r, int n) {
  switch (op) {
    case RS_OP_NEGATIVE: L1(rs_vi, rs_vi, i_neg(p)); break;
    case RS_OP_POSITIVE: case RS_OP_FLOOR: case RS_OP_CEIL: case RS_OP_TRUNC: case RS_OP_CONJ: case RS_OP_REAL:
      L1(rs_vi, rs_vi, p); break;
    case RS_OP_ABS: L1(rs_vi, rs_vi, i_abs(p)); break;
    case RS_OP_SIGN: L1(rs_vi, rs_vi, i_sign(p)); break;
    case RS_OP_SQUARE: L1(rs_vi, rs_vi, i_mul(p, p)); break;
    case RS_OP_RECIPROCAL: L1(rs_vi, rs_vi, i_recip(p)); break;
    case RS_OP_INVERT: L1(rs_vi, rs_vi, ~p); break;
    case RS_OP_IMAG: L1(rs_vi, rs_vi, 0); break;
    case RS_OP_ISNAN: case RS_OP_ISINF: L1(rs_vi, rs_vb, 0); break;
    case RS_OP_ISFINITE: L1(rs_vi, rs_vb, 1); break;
    default: break;
  }
}

static void un_u(int op, const void *x, void *r, int n) {
  switch (op) {
    case RS_OP_NEGATIVE: L1(rs_vu, rs_vu, 0 - p); break;
    case RS_OP_POSITIVE: case RS_OP_FLOOR: case RS_OP_CEIL: case RS_OP_TRUNC: case RS_OP_CONJ: case RS_OP_REAL:
    case RS_OP_ABS:
      L1(rs_vu, rs_vu, p); break;
    case RS_OP_SIGN: L1(rs_vu, rs_vu, p > 0); break;
    case RS_OP_SQUARE: L1(rs_vu, rs_vu, p * p); break;
    case RS_OP_RECIPROCAL: L1(rs_vu, rs_vu, p == 1); break;
    case RS_OP_INVERT: L1(rs_vu, rs_vu, ~p); break;
    case RS_OP_IMAG: L1(rs_vu, rs_vu, 0); break;
    case RS_OP_ISNAN: case RS_OP_ISINF: L1(rs_vu, rs_vb, 0); break;
    case RS_OP_ISFINITE: L1(rs_vu, rs_vb, 1); break;
    default: break;
  }
}

#define RS_FLOAT_UNARY(T, S, P, PI)                                                      \
  switch (op) {                                                                          \
    case RS_OP_NEGATIVE: L1(T, T, -p); break;                                            \
    case RS_OP_POSITIVE: case RS_OP_CONJ: case RS_OP_REAL: L1(T, T, p); break;           \
    case RS_OP_ABS: L1(T, T, fabs##S(p)); break;                                         \
    case RS_OP_SIGN: L1(T, T, P##_sign(p)); break;                                       \
    case RS_OP_SQUARE: L1(T, T, p * p); break;                                           \
    case RS_OP_RECIPROCAL: L1(T, T, (T)1 / p); break;                                    \
    case RS_OP_SQRT: L1(T, T, sqrt##S(p)); break;                                        \
    case RS_OP_CBRT: L1(T, T, cbrt##S(p)); break;                                        \
    case RS_OP_EXP: L1(T, T, exp##S(p)); break;                                          \
    case RS_OP_EXP2: L1(T, T, exp2##S(p)); break;                                        \
    case RS_OP_EXPM1: L1(T, T, expm1##S(p)); break;                                      \
    case RS_OP_LOG: L1(T, T, log##S(p)); break;                                          \
    case RS_OP_LOG2: L1(T, T, log2##S(p)); break;                                        \
    case RS_OP_LOG10: L1(T, T, log10##S(p)); break;                                      \
    case RS_OP_LOG1P: L1(T, T, log1p##S(p)); break;                                      \
    case RS_OP_SIN: L1(T, T, sin##S(p)); break;                                          \
    case RS_OP_COS: L1(T, T, cos##S(p)); break;                                          \
    case RS_OP_TAN: L1(T, T, tan##S(p)); break;                                          \
    case RS_OP_ARCSIN: L1(T, T, asin##S(p)); break;                                      \
    case RS_OP_ARCCOS: L1(T, T, acos##S(p)); break;                                      \
    case RS_OP_ARCTAN: L1(T, T, atan##S(p)); break;                                      \
    case RS_OP_SINH: L1(T, T, sinh##S(p)); break;                                        \
    case RS_OP_COSH: L1(T, T, cosh##S(p)); break;                                        \
    case RS_OP_TANH: L1(T, T, tanh##S(p)); break;                                        \
    case RS_OP_ARCSINH: L1(T, T, asinh##S(p)); break;                                    \
    case RS_OP_ARCCOSH: L1(T, T, acosh##S(p)); break;                                    \
    case RS_OP_ARCTANH: L1(T, T, atanh##S(p)); break;                                    \
    case RS_OP_FLOOR: L1(T, T, floor##S(p)); break;                                      \
    case RS_OP_CEIL: L1(T, T, ceil##S(p)); break;                                        \
    case RS_OP_TRUNC: L1(T, T, trunc##S(p)); break;                                      \
    case RS_OP_RINT: L1(T, T, rint##S(p)); break;                                        \
    case RS_OP_IMAG: L1(T, T, 0); break;                                                 \
    case RS_OP_ISNAN: L1(T, rs_vb, isnan(p) != 0); break;                                \
    case RS_OP_ISINF: L1(T, rs_vb, isinf(p) != 0); break;                                \
    case RS_OP_ISFINITE: L1(T, rs_vb, isfinite(p) != 0); break;                          \
    case RS_OP_DEG2RAD: L1(T, T, p * (T)(PI / 180.0)); break;                            \
    case RS_OP_RAD2DEG: L1(T, T, p * (T)(180.0 / PI)); break;                            \
    default: break;                                                                      \
  }

#define RS_PI 3.14159265358979323846
static void un_f(int op, const void *x, void *r, int n) { RS_FLOAT_UNARY(rs_vf, f, f, RS_PI) }
static void un_d(int op, const void *x, void *r, int n) { RS_FLOAT_UNARY(rs_vd, , d, RS_PI) }

/* Complex: T the type, R its real type, S the libm suffix, W the wider type for pow. */
#define RS_COMPLEX_UNARY(T, R, S, P)                                                     \
  switch (op) {                                                                          \
    case RS_OP_NEGATIVE: L1(T, T, -p); break;                                            \
    case RS_OP_POSITIVE: L1(T, T, p); break;                                             \
    case RS_OP_ABS: L1(T, R, cabs##S(p)); break;                                         \
    case RS_OP_SIGN: L1(T, T, (T)z_sign(p)); break;                                      \
    case RS_OP_SQUARE: L1(T, T, P##_mul(p, p)); break;                                   \
    case RS_OP_RECIPROCAL: L1(T, T, P##_div((T)1, p)); break;                            \
    case RS_OP_SQRT: L1(T, T, csqrt##S(p)); break;                                       \
    case RS_OP_EXP: L1(T, T, cexp##S(p)); break;                                         \
    case RS_OP_LOG: L1(T, T, clog##S(p)); break;                                         \
    case RS_OP_SIN: L1(T, T, csin##S(p)); break;                                         \
    case RS_OP_COS: L1(T, T, ccos##S(p)); break;                                         \
    case RS_OP_TAN: L1(T, T, ctan##S(p)); break;                                         \
    case RS_OP_SINH: L1(T, T, csinh##S(p)); break;                                       \
    case RS_OP_COSH: L1(T, T, ccosh##S(p)); break;                                       \
    case RS_OP_TANH: L1(T, T, ctanh##S(p)); break;                                       \
    case RS_OP_CONJ: L1(T, T, conj##S(p)); break;                                        \
    case RS_OP_REAL: L1(T, R, creal##S(p)); break;                                       \
    case RS_OP_IMAG: L1(T, R, cimag##S(p)); break;                                       \
    case RS_OP_ISNAN: L1(T, rs_vb, isnan(creal##S(p)) || isnan(cimag##S(p))); break;     \
    case RS_OP_ISINF: L1(T, rs_vb, isinf(creal##S(p)) || isinf(cimag##S(p))); break;     \
    case RS_OP_ISFINITE: L1(T, rs_vb, isfinite(creal##S(p)) && isfinite(cimag##S(p))); break; \
    default: break;                                                                      \
  }

static void un_c(int op, const void *x, void *r, int n) { RS_COMPLEX_UNARY(rs_vc, rs_vf, f, c) }
static void un_z(int op, const void *x, void *r, int n) { RS_COMPLEX_UNARY(rs_vz, rs_vd, , z) }

void rs_nat_unary(int op, rs_dtype arg, rs_dtype res, const void *x, void *r, int n) {
  (void)res;
  switch (rs_dtype_cls(arg)) {
    case RS_CLS_B: un_b(op, x, r, n); break;
    case RS_CLS_I: un_i(op, x, r, n); break;
    case RS_CLS_U: un_u(op, x, r, n); break;
    case RS_CLS_F: un_f(op, x, r, n); break;
    case RS_CLS_D: un_d(op, x, r, n); break;
    case RS_CLS_C: un_c(op, x, r, n); break;
    case RS_CLS_Z: un_z(op, x, r, n); break;
    default: break;
  }
}
