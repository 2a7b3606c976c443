/* Native elementwise math: every op for every value class, as typed loops over blocks.
 * What each op does to one value where NumPy's answer is not plain C (integer wrap-around
 * and division by zero, Python's float floor_divide/remainder, NaN-propagating
 * maximum/minimum, the complex formulas) is src/native/numpy_scalar.h, which the
 * generated CUDA kernels compile too; the rest is C operators and the C library. */
#include <math.h>
#include "native/native.h"
#include "core/dtype_rules.h"
#include "native/numpy_scalar.h"

/* ---- C complex <-> the shared {re, im} structs --------------------------------------- */

static inline rs_np_z z_np(rs_vz a) { return rs_np_mkz(creal(a), cimag(a)); }
static inline rs_vz z_vz(rs_np_z a) { return CMPLX(a.re, a.im); }
static inline rs_np_c c_np(rs_vc a) { return rs_np_mkc(crealf(a), cimagf(a)); }
static inline rs_vc c_vc(rs_np_c a) { return CMPLXF(a.re, a.im); }

static inline rs_vz z_mul(rs_vz a, rs_vz b) { return z_vz(rs_np_mul_z(z_np(a), z_np(b))); }
static inline rs_vz z_div(rs_vz a, rs_vz b) { return z_vz(rs_np_div_z(z_np(a), z_np(b))); }
static inline rs_vc c_mul(rs_vc a, rs_vc b) { return c_vc(rs_np_mul_c(c_np(a), c_np(b))); }
static inline rs_vc c_div(rs_vc a, rs_vc b) { return c_vc(rs_np_div_c(c_np(a), c_np(b))); }
static inline rs_vz z_sign(rs_vz a) { return z_vz(rs_np_sign_z(z_np(a))); }

/* Where NumPy's power is not exact, exp(b log a) with the C library's cexp and clog. */
static inline rs_vz z_pow(rs_vz a, rs_vz b) {
  rs_np_z r;
  if (rs_np_pow_exact_z(z_np(a), z_np(b), &r)) return z_vz(r);
  return cexp(z_mul(b, clog(a)));
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
    case RS_OP_ADD: L2(rs_vi, rs_vi, rs_np_add_i(p, q)); break;
    case RS_OP_SUBTRACT: L2(rs_vi, rs_vi, rs_np_sub_i(p, q)); break;
    case RS_OP_MULTIPLY: L2(rs_vi, rs_vi, rs_np_mul_i(p, q)); break;
    case RS_OP_FLOOR_DIVIDE: L2(rs_vi, rs_vi, rs_np_floor_divide_i(p, q)); break;
    case RS_OP_REMAINDER: L2(rs_vi, rs_vi, rs_np_remainder_i(p, q)); break;
    case RS_OP_POWER: L2(rs_vi, rs_vi, rs_np_power_i(p, q)); break;
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
    case RS_OP_BITWISE_LEFT_SHIFT: L2(rs_vi, rs_vi, rs_np_lshift_i(p, q)); break;
    case RS_OP_BITWISE_RIGHT_SHIFT: L2(rs_vi, rs_vi, rs_np_rshift_i(p, q)); break;
    default: break;
  }
}

static void bin_u(int op, const void *x, const void *y, void *r, int n) {
  switch (op) {
    case RS_OP_ADD: L2(rs_vu, rs_vu, p + q); break;
    case RS_OP_SUBTRACT: L2(rs_vu, rs_vu, p - q); break;
    case RS_OP_MULTIPLY: L2(rs_vu, rs_vu, p * q); break;
    case RS_OP_FLOOR_DIVIDE: L2(rs_vu, rs_vu, rs_np_floor_divide_u(p, q)); break;
    case RS_OP_REMAINDER: L2(rs_vu, rs_vu, rs_np_remainder_u(p, q)); break;
    case RS_OP_POWER: L2(rs_vu, rs_vu, rs_np_power_u(p, q)); break;
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
    case RS_OP_BITWISE_LEFT_SHIFT: L2(rs_vu, rs_vu, rs_np_lshift_u(p, q)); break;
    case RS_OP_BITWISE_RIGHT_SHIFT: L2(rs_vu, rs_vu, rs_np_rshift_u(p, q)); break;
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
    case RS_OP_FLOOR_DIVIDE: L2(T, T, rs_np_floor_divide_##P(p, q)); break;                            \
    case RS_OP_REMAINDER: L2(T, T, rs_np_remainder_##P(p, q)); break;                                \
    case RS_OP_POWER: L2(T, T, pow##S(p, q)); break;                                     \
    case RS_OP_MAXIMUM: L2(T, T, rs_np_maximum_##P(p, q)); break;                   \
    case RS_OP_MINIMUM: L2(T, T, rs_np_minimum_##P(p, q)); break;                   \
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
    case RS_OP_LOGADDEXP: L2(T, T, rs_np_logaddexp_##P(p, q)); break;                    \
    case RS_OP_NEXTAFTER: L2(T, T, nextafter##S(p, q)); break;                           \
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
  if (op == RS_OP_NEXTAFTER && arg == RS_FLOAT16) { /* steps of float16, not of the float it is held in */
    L2(rs_vf, rs_vf, rs_np_nextafter_h(p, q));
    return;
  }
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
    case RS_OP_NEGATIVE: L1(rs_vi, rs_vi, rs_np_neg_i(p)); break;
    case RS_OP_POSITIVE: case RS_OP_FLOOR: case RS_OP_CEIL: case RS_OP_TRUNC: case RS_OP_CONJ: case RS_OP_REAL:
    case RS_OP_ROUND:
      L1(rs_vi, rs_vi, p); break;
    case RS_OP_ABS: L1(rs_vi, rs_vi, rs_np_abs_i(p)); break;
    case RS_OP_SIGN: L1(rs_vi, rs_vi, rs_np_sign_i(p)); break;
    case RS_OP_SQUARE: L1(rs_vi, rs_vi, rs_np_mul_i(p, p)); break;
    case RS_OP_RECIPROCAL: L1(rs_vi, rs_vi, rs_np_reciprocal_i(p)); break;
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
    case RS_OP_ABS: case RS_OP_ROUND:
      L1(rs_vu, rs_vu, p); break;
    case RS_OP_SIGN: L1(rs_vu, rs_vu, rs_np_sign_u(p)); break;
    case RS_OP_SQUARE: L1(rs_vu, rs_vu, p * p); break;
    case RS_OP_RECIPROCAL: L1(rs_vu, rs_vu, rs_np_reciprocal_u(p)); break;
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
    case RS_OP_SIGN: L1(T, T, rs_np_sign_##P(p)); break;                                       \
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
    case RS_OP_RINT: case RS_OP_ROUND: L1(T, T, rs_np_rint_##P(p)); break;                      \
    case RS_OP_SIGNBIT: L1(T, rs_vb, rs_np_signbit_##P(p)); break;                              \
    case RS_OP_IMAG: L1(T, T, 0); break;                                                 \
    case RS_OP_ISNAN: L1(T, rs_vb, rs_np_isnan_##P(p)); break;                                \
    case RS_OP_ISINF: L1(T, rs_vb, rs_np_isinf_##P(p)); break;                                \
    case RS_OP_ISFINITE: L1(T, rs_vb, rs_np_isfinite_##P(p)); break;                          \
    case RS_OP_DEG2RAD: L1(T, T, p * (T)(PI / 180.0)); break;                            \
    case RS_OP_RAD2DEG: L1(T, T, p * (T)(180.0 / PI)); break;                            \
    default: break;                                                                      \
  }

#define RS_PI 3.14159265358979323846
static void un_f(int op, const void *x, void *r, int n) { RS_FLOAT_UNARY(rs_vf, f, f, RS_PI) }
static void un_d(int op, const void *x, void *r, int n) { RS_FLOAT_UNARY(rs_vd, , d, RS_PI) }

/* Complex: T the type, R its real type, S the libm suffix, W the wider type for pow. */
#define RS_COMPLEX_UNARY(T, R, S, P, RF)                                                     \
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
    case RS_OP_ROUND: L1(T, T, CMPLX##RF(rint##S(creal##S(p)), rint##S(cimag##S(p)))); break; \
    default: break;                                                                      \
  }

static void un_c(int op, const void *x, void *r, int n) { RS_COMPLEX_UNARY(rs_vc, rs_vf, f, c, F) }
static void un_z(int op, const void *x, void *r, int n) { RS_COMPLEX_UNARY(rs_vz, rs_vd, , z, ) }

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
