// cuda_ops_prelude.cuh - the device code every generated array-operation kernel starts with
// (see cuda_ops.h): value classes, loads and stores of each dtype, conversions and every op.
// NVRTC compiles it at run time as the head of each generated kernel; the library holds
// its text through the build's embed step (cmake/embed_text.cmake), and the build compiles
// it once with nvcc so a syntax error shows here rather than on a GPU. It includes no
// header: NVRTC declares the math functions and intrinsics itself. The build puts the text
// of src/native/numpy_scalar.h before it: NumPy's per-value semantics (rs_np_*), the same
// functions the native loops run, so the two cannot drift apart; what is here maps each op
// of each value class onto them, or onto CUDA's math functions.
// Value classes (as src/ops/ops_backend.h): bool, int64, uint64, float, double, complex.
typedef unsigned char rs_b;
typedef rs_np_i rs_i;
typedef rs_np_u rs_u;
typedef float rs_f;
typedef double rs_d;
typedef rs_np_c rs_c;
typedef rs_np_z rs_z;
struct rs_cv { long long i; double re, im; }; // a constant, filled by the host
#define RS_D __device__ __forceinline__
RS_D double rs_nand() { return RS_NP_NAN; }
RS_D double rs_infd() { return RS_NP_INF; }
RS_D bool rs_isnan(double x) { return rs_np_isnan_d(x); }
RS_D bool rs_isinf(double x) { return rs_np_isinf_d(x); }
RS_D bool rs_isfin(double x) { return rs_np_isfinite_d(x); }
RS_D rs_c mkc(float re, float im) { return rs_np_mkc(re, im); }
RS_D rs_z mkz(double re, double im) { return rs_np_mkz(re, im); }
// ---- half <-> float (float16 is storage only) ----
RS_D float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
RS_D unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
RS_D unsigned short d2h(double d) { unsigned short h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d)); return h; }
// ---- loads and stores of stored dtypes (values in their class) ----
RS_D rs_b ld_bool(const char *p) { return *(const unsigned char *)p != 0; }
RS_D rs_i ld_int8(const char *p) { return *(const signed char *)p; }
RS_D rs_i ld_int16(const char *p) { return *(const short *)p; }
RS_D rs_i ld_int32(const char *p) { return *(const int *)p; }
RS_D rs_i ld_int64(const char *p) { return *(const long long *)p; }
RS_D rs_i ld_uint8(const char *p) { return *(const unsigned char *)p; }
RS_D rs_i ld_uint16(const char *p) { return *(const unsigned short *)p; }
RS_D rs_i ld_uint32(const char *p) { return *(const unsigned *)p; }
RS_D rs_u ld_uint64(const char *p) { return *(const unsigned long long *)p; }
RS_D rs_f ld_float16(const char *p) { return h2f(*(const unsigned short *)p); }
RS_D rs_f ld_float32(const char *p) { return *(const float *)p; }
RS_D rs_d ld_float64(const char *p) { return *(const double *)p; }
RS_D rs_c ld_complex64(const char *p) { return *(const rs_c *)p; }
RS_D rs_z ld_complex128(const char *p) { return *(const rs_z *)p; }
RS_D void st_bool(char *p, rs_b v) { *(unsigned char *)p = v; }
RS_D void st_int8(char *p, rs_i v) { *(signed char *)p = (signed char)v; }
RS_D void st_int16(char *p, rs_i v) { *(short *)p = (short)v; }
RS_D void st_int32(char *p, rs_i v) { *(int *)p = (int)v; }
RS_D void st_int64(char *p, rs_i v) { *(long long *)p = v; }
RS_D void st_uint8(char *p, rs_i v) { *(unsigned char *)p = (unsigned char)v; }
RS_D void st_uint16(char *p, rs_i v) { *(unsigned short *)p = (unsigned short)v; }
RS_D void st_uint32(char *p, rs_i v) { *(unsigned *)p = (unsigned)v; }
RS_D void st_uint64(char *p, rs_u v) { *(unsigned long long *)p = v; }
RS_D void st_float16(char *p, rs_f v) { *(unsigned short *)p = f2h(v); }
RS_D void st_float32(char *p, rs_f v) { *(float *)p = v; }
RS_D void st_float64(char *p, rs_d v) { *(double *)p = v; }
RS_D void st_complex64(char *p, rs_c v) { *(rs_c *)p = v; }
RS_D void st_complex128(char *p, rs_z v) { *(rs_z *)p = v; }
// ---- wrap / round to a narrower dtype held in its class ----
RS_D rs_i nz_int8(rs_i v) { return (signed char)v; }
RS_D rs_i nz_int16(rs_i v) { return (short)v; }
RS_D rs_i nz_int32(rs_i v) { return (int)v; }
RS_D rs_i nz_uint8(rs_i v) { return (unsigned char)v; }
RS_D rs_i nz_uint16(rs_i v) { return (unsigned short)v; }
RS_D rs_i nz_uint32(rs_i v) { return (unsigned)v; }
RS_D rs_f nz_float16(rs_f v) { return h2f(f2h(v)); }
// ---- class to class (as astype) ----
RS_D rs_i cv_b_i(rs_b v) { return v; }
RS_D rs_u cv_b_u(rs_b v) { return v; }
RS_D rs_f cv_b_f(rs_b v) { return v; }
RS_D rs_d cv_b_d(rs_b v) { return v; }
RS_D rs_c cv_b_c(rs_b v) { return mkc(v, 0); }
RS_D rs_z cv_b_z(rs_b v) { return mkz(v, 0); }
RS_D rs_b cv_i_b(rs_i v) { return v != 0; }
RS_D rs_u cv_i_u(rs_i v) { return (rs_u)v; }
RS_D rs_f cv_i_f(rs_i v) { return (float)v; }
RS_D rs_d cv_i_d(rs_i v) { return (double)v; }
RS_D rs_c cv_i_c(rs_i v) { return mkc((float)v, 0); }
RS_D rs_z cv_i_z(rs_i v) { return mkz((double)v, 0); }
RS_D rs_b cv_u_b(rs_u v) { return v != 0; }
RS_D rs_i cv_u_i(rs_u v) { return (rs_i)v; }
RS_D rs_f cv_u_f(rs_u v) { return (float)v; }
RS_D rs_d cv_u_d(rs_u v) { return (double)v; }
RS_D rs_c cv_u_c(rs_u v) { return mkc((float)v, 0); }
RS_D rs_z cv_u_z(rs_u v) { return mkz((double)v, 0); }
RS_D rs_b cv_f_b(rs_f v) { return v != 0; }
RS_D rs_i cv_f_i(rs_f v) { return rs_np_f2i(v); }
RS_D rs_u cv_f_u(rs_f v) { return rs_np_f2u(v); }
RS_D rs_d cv_f_d(rs_f v) { return v; }
RS_D rs_c cv_f_c(rs_f v) { return mkc(v, 0); }
RS_D rs_z cv_f_z(rs_f v) { return mkz(v, 0); }
RS_D rs_b cv_d_b(rs_d v) { return v != 0; }
RS_D rs_i cv_d_i(rs_d v) { return rs_np_f2i(v); }
RS_D rs_u cv_d_u(rs_d v) { return rs_np_f2u(v); }
RS_D rs_f cv_d_f(rs_d v) { return (float)v; }
RS_D rs_c cv_d_c(rs_d v) { return mkc((float)v, 0); }
RS_D rs_z cv_d_z(rs_d v) { return mkz(v, 0); }
RS_D rs_b cv_c_b(rs_c v) { return v.re != 0 || v.im != 0; }
RS_D rs_i cv_c_i(rs_c v) { return rs_np_f2i(v.re); }
RS_D rs_u cv_c_u(rs_c v) { return rs_np_f2u(v.re); }
RS_D rs_f cv_c_f(rs_c v) { return v.re; }
RS_D rs_d cv_c_d(rs_c v) { return v.re; }
RS_D rs_z cv_c_z(rs_c v) { return mkz(v.re, v.im); }
RS_D rs_b cv_z_b(rs_z v) { return v.re != 0 || v.im != 0; }
RS_D rs_i cv_z_i(rs_z v) { return rs_np_f2i(v.re); }
RS_D rs_u cv_z_u(rs_z v) { return rs_np_f2u(v.re); }
RS_D rs_f cv_z_f(rs_z v) { return (float)v.re; }
RS_D rs_d cv_z_d(rs_z v) { return v.re; }
RS_D rs_c cv_z_c(rs_z v) { return mkc((float)v.re, (float)v.im); }
// float to narrow integers through a 32-bit conversion (x86 C casts, as NumPy)
RS_D rs_i cv32(double v) { return rs_np_f2i32(v); }
// ---- integer ops (wrap-around through unsigned arithmetic) ----
RS_D rs_i add_i(rs_i a, rs_i b) { return rs_np_add_i(a, b); }
RS_D rs_i subtract_i(rs_i a, rs_i b) { return rs_np_sub_i(a, b); }
RS_D rs_i multiply_i(rs_i a, rs_i b) { return rs_np_mul_i(a, b); }
RS_D rs_i negative_i(rs_i a) { return rs_np_neg_i(a); }
RS_D rs_i floor_divide_i(rs_i a, rs_i b) { return rs_np_floor_divide_i(a, b); }
RS_D rs_i remainder_i(rs_i a, rs_i b) { return rs_np_remainder_i(a, b); }
RS_D rs_u power_u(rs_u a, rs_u e) { return rs_np_power_u(a, e); }
RS_D rs_i power_i(rs_i a, rs_i e) { return rs_np_power_i(a, e); }
RS_D rs_i maximum_i(rs_i a, rs_i b) { return a >= b ? a : b; }
RS_D rs_i minimum_i(rs_i a, rs_i b) { return a <= b ? a : b; }
RS_D rs_i fmax_i(rs_i a, rs_i b) { return a >= b ? a : b; }
RS_D rs_i fmin_i(rs_i a, rs_i b) { return a <= b ? a : b; }
RS_D rs_i bitwise_and_i(rs_i a, rs_i b) { return a & b; }
RS_D rs_i bitwise_or_i(rs_i a, rs_i b) { return a | b; }
RS_D rs_i bitwise_xor_i(rs_i a, rs_i b) { return a ^ b; }
RS_D rs_i positive_i(rs_i a) { return a; }
RS_D rs_i absolute_i(rs_i a) { return rs_np_abs_i(a); }
RS_D rs_i sign_i(rs_i a) { return rs_np_sign_i(a); }
RS_D rs_i square_i(rs_i a) { return multiply_i(a, a); }
RS_D rs_i reciprocal_i(rs_i a) { return rs_np_reciprocal_i(a); }
RS_D rs_i floor_i(rs_i a) { return a; }
RS_D rs_i ceil_i(rs_i a) { return a; }
RS_D rs_i trunc_i(rs_i a) { return a; }
RS_D rs_i conjugate_i(rs_i a) { return a; }
RS_D rs_i real_i(rs_i a) { return a; }
RS_D rs_i imag_i(rs_i a) { return 0; }
RS_D rs_i invert_i(rs_i a) { return ~a; }
RS_D rs_u add_u(rs_u a, rs_u b) { return a + b; }
RS_D rs_u subtract_u(rs_u a, rs_u b) { return a - b; }
RS_D rs_u multiply_u(rs_u a, rs_u b) { return a * b; }
RS_D rs_u floor_divide_u(rs_u a, rs_u b) { return rs_np_floor_divide_u(a, b); }
RS_D rs_u remainder_u(rs_u a, rs_u b) { return rs_np_remainder_u(a, b); }
RS_D rs_u maximum_u(rs_u a, rs_u b) { return a >= b ? a : b; }
RS_D rs_u minimum_u(rs_u a, rs_u b) { return a <= b ? a : b; }
RS_D rs_u fmax_u(rs_u a, rs_u b) { return a >= b ? a : b; }
RS_D rs_u fmin_u(rs_u a, rs_u b) { return a <= b ? a : b; }
RS_D rs_u bitwise_and_u(rs_u a, rs_u b) { return a & b; }
RS_D rs_u bitwise_or_u(rs_u a, rs_u b) { return a | b; }
RS_D rs_u bitwise_xor_u(rs_u a, rs_u b) { return a ^ b; }
RS_D rs_u negative_u(rs_u a) { return 0 - a; }
RS_D rs_u positive_u(rs_u a) { return a; }
RS_D rs_u absolute_u(rs_u a) { return a; }
RS_D rs_u sign_u(rs_u a) { return rs_np_sign_u(a); }
RS_D rs_u square_u(rs_u a) { return a * a; }
RS_D rs_u reciprocal_u(rs_u a) { return rs_np_reciprocal_u(a); }
RS_D rs_u floor_u(rs_u a) { return a; }
RS_D rs_u ceil_u(rs_u a) { return a; }
RS_D rs_u trunc_u(rs_u a) { return a; }
RS_D rs_u conjugate_u(rs_u a) { return a; }
RS_D rs_u real_u(rs_u a) { return a; }
RS_D rs_u imag_u(rs_u a) { return 0; }
RS_D rs_u invert_u(rs_u a) { return ~a; }
// ---- bool ops ----
RS_D rs_b add_b(rs_b a, rs_b b) { return a | b; }
RS_D rs_b multiply_b(rs_b a, rs_b b) { return a & b; }
RS_D rs_b maximum_b(rs_b a, rs_b b) { return a | b; }
RS_D rs_b minimum_b(rs_b a, rs_b b) { return a & b; }
RS_D rs_b fmax_b(rs_b a, rs_b b) { return a | b; }
RS_D rs_b fmin_b(rs_b a, rs_b b) { return a & b; }
RS_D rs_b bitwise_and_b(rs_b a, rs_b b) { return a & b; }
RS_D rs_b bitwise_or_b(rs_b a, rs_b b) { return a | b; }
RS_D rs_b bitwise_xor_b(rs_b a, rs_b b) { return a ^ b; }
RS_D rs_b logical_and_b(rs_b a, rs_b b) { return a & b; }
RS_D rs_b logical_or_b(rs_b a, rs_b b) { return a | b; }
RS_D rs_b logical_xor_b(rs_b a, rs_b b) { return a ^ b; }
RS_D rs_b positive_b(rs_b a) { return a; }
RS_D rs_b absolute_b(rs_b a) { return a; }
RS_D rs_b floor_b(rs_b a) { return a; }
RS_D rs_b ceil_b(rs_b a) { return a; }
RS_D rs_b trunc_b(rs_b a) { return a; }
RS_D rs_b real_b(rs_b a) { return a; }
RS_D rs_b imag_b(rs_b a) { return 0; }
RS_D rs_b logical_not_b(rs_b a) { return !a; }
RS_D rs_b invert_b(rs_b a) { return !a; }
// ---- comparisons of every real class, NaN tests ----
#define RS_CMP(S, T)                                                    \
  RS_D rs_b equal_##S(T a, T b) { return a == b; }                      \
  RS_D rs_b not_equal_##S(T a, T b) { return a != b; }                  \
  RS_D rs_b less_##S(T a, T b) { return a < b; }                        \
  RS_D rs_b less_equal_##S(T a, T b) { return a <= b; }                 \
  RS_D rs_b greater_##S(T a, T b) { return a > b; }                     \
  RS_D rs_b greater_equal_##S(T a, T b) { return a >= b; }
RS_CMP(b, rs_b)
RS_CMP(i, rs_i)
RS_CMP(u, rs_u)
RS_CMP(f, rs_f)
RS_CMP(d, rs_d)
RS_D rs_b isnan_b(rs_b) { return 0; }
RS_D rs_b isinf_b(rs_b) { return 0; }
RS_D rs_b isfinite_b(rs_b) { return 1; }
RS_D rs_b isnan_i(rs_i) { return 0; }
RS_D rs_b isinf_i(rs_i) { return 0; }
RS_D rs_b isfinite_i(rs_i) { return 1; }
RS_D rs_b isnan_u(rs_u) { return 0; }
RS_D rs_b isinf_u(rs_u) { return 0; }
RS_D rs_b isfinite_u(rs_u) { return 1; }
// ---- real floats: S the suffix, T the type, F the libm suffix ----
#define RS_FLOAT_OPS(S, T, F, ONE, PI)                                                            \
  RS_D T add_##S(T a, T b) { return a + b; }                                                      \
  RS_D T subtract_##S(T a, T b) { return a - b; }                                                 \
  RS_D T multiply_##S(T a, T b) { return a * b; }                                                 \
  RS_D T divide_##S(T a, T b) { return a / b; }                                                   \
  RS_D T floor_divide_##S(T a, T b) { return rs_np_floor_divide_##S(a, b); }                      \
  RS_D T remainder_##S(T a, T b) { return rs_np_remainder_##S(a, b); }                            \
  RS_D T power_##S(T a, T b) { return pow##F(a, b); }                                             \
  RS_D T maximum_##S(T a, T b) { return rs_np_maximum_##S(a, b); }                                \
  RS_D T minimum_##S(T a, T b) { return rs_np_minimum_##S(a, b); }                                \
  RS_D T fmax_##S(T a, T b) { return fmax##F(a, b); }                                             \
  RS_D T fmin_##S(T a, T b) { return fmin##F(a, b); }                                             \
  RS_D T arctan2_##S(T a, T b) { return atan2##F(a, b); }                                         \
  RS_D T hypot_##S(T a, T b) { return hypot##F(a, b); }                                           \
  RS_D T copysign_##S(T a, T b) { return copysign##F(a, b); }                                     \
  RS_D T negative_##S(T a) { return -a; }                                                         \
  RS_D T positive_##S(T a) { return a; }                                                          \
  RS_D T conjugate_##S(T a) { return a; }                                                         \
  RS_D T real_##S(T a) { return a; }                                                              \
  RS_D T imag_##S(T) { return 0; }                                                                \
  RS_D T absolute_##S(T a) { return fabs##F(a); }                                                 \
  RS_D T sign_##S(T a) { return rs_np_sign_##S(a); }                                              \
  RS_D T square_##S(T a) { return a * a; }                                                        \
  RS_D T reciprocal_##S(T a) { return ONE / a; }                                                  \
  RS_D T sqrt_##S(T a) { return sqrt##F(a); }                                                     \
  RS_D T cbrt_##S(T a) { return cbrt##F(a); }                                                     \
  RS_D T exp_##S(T a) { return exp##F(a); }                                                       \
  RS_D T exp2_##S(T a) { return exp2##F(a); }                                                     \
  RS_D T expm1_##S(T a) { return expm1##F(a); }                                                   \
  RS_D T log_##S(T a) { return log##F(a); }                                                       \
  RS_D T log2_##S(T a) { return log2##F(a); }                                                     \
  RS_D T log10_##S(T a) { return log10##F(a); }                                                   \
  RS_D T log1p_##S(T a) { return log1p##F(a); }                                                   \
  RS_D T sin_##S(T a) { return sin##F(a); }                                                       \
  RS_D T cos_##S(T a) { return cos##F(a); }                                                       \
  RS_D T tan_##S(T a) { return tan##F(a); }                                                       \
  RS_D T arcsin_##S(T a) { return asin##F(a); }                                                   \
  RS_D T arccos_##S(T a) { return acos##F(a); }                                                   \
  RS_D T arctan_##S(T a) { return atan##F(a); }                                                   \
  RS_D T sinh_##S(T a) { return sinh##F(a); }                                                     \
  RS_D T cosh_##S(T a) { return cosh##F(a); }                                                     \
  RS_D T tanh_##S(T a) { return tanh##F(a); }                                                     \
  RS_D T arcsinh_##S(T a) { return asinh##F(a); }                                                 \
  RS_D T arccosh_##S(T a) { return acosh##F(a); }                                                 \
  RS_D T arctanh_##S(T a) { return atanh##F(a); }                                                 \
  RS_D T floor_##S(T a) { return floor##F(a); }                                                   \
  RS_D T ceil_##S(T a) { return ceil##F(a); }                                                     \
  RS_D T trunc_##S(T a) { return trunc##F(a); }                                                   \
  RS_D T rint_##S(T a) { return rs_np_rint_##S(a); }                                              \
  RS_D T deg2rad_##S(T a) { return a * (T)(PI / 180.0); }                                         \
  RS_D T rad2deg_##S(T a) { return a * (T)(180.0 / PI); }                                         \
  RS_D rs_b isnan_##S(T a) { return rs_np_isnan_##S(a); }                                         \
  RS_D rs_b isinf_##S(T a) { return rs_np_isinf_##S(a); }                                         \
  RS_D rs_b isfinite_##S(T a) { return rs_np_isfinite_##S(a); }
RS_FLOAT_OPS(f, rs_f, f, 1.0f, 3.14159265358979323846)
RS_FLOAT_OPS(d, rs_d, , 1.0, 3.14159265358979323846)
// ---- complex: NumPy's product, quotient, power and sign are rs_np_*; below, what the host
// takes from the C library (cexp, clog, csqrt, ...), which NVRTC does not have for complex
// values, computed in double ----
RS_D double zabs(rs_z a) { return hypot(a.re, a.im); }
RS_D rs_z zexp(rs_z a) { // C99 cexp's special values, as the host path (and NumPy) give
  if (a.im == 0) return mkz(exp(a.re), a.im);
  if (rs_isinf(a.re) && !rs_isfin(a.im)) return a.re > 0 ? mkz(a.re, rs_nand()) : mkz(0, 0);
  double e = exp(a.re);
  return mkz(e * cos(a.im), e * sin(a.im));
}
RS_D rs_z zlog(rs_z a) { return mkz(log(zabs(a)), atan2(a.im, a.re)); }
RS_D rs_z zsqrt(rs_z a) { // the principal root, computed without cancellation
  if (a.re == 0 && a.im == 0) return mkz(0, a.im);
  if (rs_isinf(a.im)) return mkz(rs_infd(), a.im);
  double t = sqrt((fabs(a.re) + zabs(a)) * 0.5);
  if (a.re >= 0) return mkz(t, a.im / (2 * t));
  return mkz(fabs(a.im) / (2 * t), copysign(t, a.im));
}
RS_D rs_z zsin(rs_z a) { return mkz(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); }
RS_D rs_z zcos(rs_z a) { return mkz(cos(a.re) * cosh(a.im), -sin(a.re) * sinh(a.im)); }
RS_D rs_z zsinh(rs_z a) { return mkz(sinh(a.re) * cos(a.im), cosh(a.re) * sin(a.im)); }
RS_D rs_z zcosh(rs_z a) { return mkz(cosh(a.re) * cos(a.im), sinh(a.re) * sin(a.im)); }
RS_D rs_z ztanh(rs_z a) { // (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), stable for large |x|
  if (fabs(a.re) > 20) return mkz(copysign(1.0, a.re), 4 * sin(a.im) * cos(a.im) * exp(-2 * fabs(a.re)));
  double d = cosh(2 * a.re) + cos(2 * a.im);
  return mkz(sinh(2 * a.re) / d, sin(2 * a.im) / d);
}
RS_D rs_z ztan(rs_z a) { rs_z t = ztanh(mkz(-a.im, a.re)); return mkz(t.im, -t.re); } // tan z = -i tanh(iz)
RS_D rs_z zpow(rs_z a, rs_z b) {
  rs_z r;
  if (rs_np_pow_exact_z(a, b, &r)) return r;
  return zexp(rs_np_mul_z(b, zlog(a)));
}
RS_D rs_z up(rs_c a) { return mkz(a.re, a.im); }
RS_D rs_c dn(rs_z a) { return mkc((float)a.re, (float)a.im); }
RS_D rs_z up(rs_z a) { return a; }
RS_D rs_z dn2z(rs_z a) { return a; }
#define RS_CPLX_OPS(S, T, R, DN)                                                                  \
  RS_D T add_##S(T a, T b) { T r; r.re = a.re + b.re; r.im = a.im + b.im; return r; }             \
  RS_D T subtract_##S(T a, T b) { T r; r.re = a.re - b.re; r.im = a.im - b.im; return r; }        \
  RS_D T multiply_##S(T a, T b) { return rs_np_mul_##S(a, b); }                                  \
  RS_D T divide_##S(T a, T b) { return rs_np_div_##S(a, b); }                                     \
  RS_D T power_##S(T a, T b) { return DN(zpow(up(a), up(b))); }                                   \
  RS_D rs_b equal_##S(T a, T b) { return a.re == b.re && a.im == b.im; }                          \
  RS_D rs_b not_equal_##S(T a, T b) { return a.re != b.re || a.im != b.im; }                      \
  RS_D T negative_##S(T a) { T r; r.re = -a.re; r.im = -a.im; return r; }                         \
  RS_D T positive_##S(T a) { return a; }                                                          \
  RS_D T conjugate_##S(T a) { T r; r.re = a.re; r.im = -a.im; return r; }                         \
  RS_D R absolute_##S(T a) { return (R)zabs(up(a)); }                                             \
  RS_D R real_##S(T a) { return a.re; }                                                           \
  RS_D R imag_##S(T a) { return a.im; }                                                           \
  RS_D T sign_##S(T a) { return DN(rs_np_sign_z(up(a))); }                                        \
  RS_D T square_##S(T a) { return multiply_##S(a, a); }                                           \
  RS_D T reciprocal_##S(T a) { T one; one.re = 1; one.im = 0; return divide_##S(one, a); }        \
  RS_D T sqrt_##S(T a) { return DN(zsqrt(up(a))); }                                               \
  RS_D T exp_##S(T a) { return DN(zexp(up(a))); }                                                 \
  RS_D T log_##S(T a) { return DN(zlog(up(a))); }                                                 \
  RS_D T sin_##S(T a) { return DN(zsin(up(a))); }                                                 \
  RS_D T cos_##S(T a) { return DN(zcos(up(a))); }                                                 \
  RS_D T tan_##S(T a) { return DN(ztan(up(a))); }                                                 \
  RS_D T sinh_##S(T a) { return DN(zsinh(up(a))); }                                               \
  RS_D T cosh_##S(T a) { return DN(zcosh(up(a))); }                                               \
  RS_D T tanh_##S(T a) { return DN(ztanh(up(a))); }                                               \
  RS_D rs_b isnan_##S(T a) { return rs_isnan(a.re) || rs_isnan(a.im); }                           \
  RS_D rs_b isinf_##S(T a) { return rs_isinf(a.re) || rs_isinf(a.im); }                           \
  RS_D rs_b isfinite_##S(T a) { return rs_isfin(a.re) && rs_isfin(a.im); }
RS_CPLX_OPS(c, rs_c, float, dn)
RS_CPLX_OPS(z, rs_z, double, dn2z)
// ---- manip (issue 18): shifts, logaddexp, nextafter, signbit, round (rs_np_* as the host) ----
RS_D rs_i bitwise_left_shift_i(rs_i a, rs_i b) { return rs_np_lshift_i(a, b); }
RS_D rs_i bitwise_right_shift_i(rs_i a, rs_i b) { return rs_np_rshift_i(a, b); }
RS_D rs_u bitwise_left_shift_u(rs_u a, rs_u b) { return rs_np_lshift_u(a, b); }
RS_D rs_u bitwise_right_shift_u(rs_u a, rs_u b) { return rs_np_rshift_u(a, b); }
RS_D rs_i round_i(rs_i a) { return a; }
RS_D rs_u round_u(rs_u a) { return a; }
RS_D rs_f logaddexp_f(rs_f a, rs_f b) { return rs_np_logaddexp_f(a, b); }
RS_D rs_d logaddexp_d(rs_d a, rs_d b) { return rs_np_logaddexp_d(a, b); }
RS_D rs_f nextafter_f(rs_f a, rs_f b) { return nextafterf(a, b); }
RS_D rs_d nextafter_d(rs_d a, rs_d b) { return nextafter(a, b); }
RS_D rs_f nextafter_h(rs_f a, rs_f b) { return rs_np_nextafter_h(a, b); } // float16 (cuda_ops_codegen.c)
RS_D rs_b signbit_f(rs_f a) { return rs_np_signbit_f(a); }
RS_D rs_b signbit_d(rs_d a) { return rs_np_signbit_d(a); }
RS_D rs_f round_f(rs_f a) { return rs_np_rint_f(a); }
RS_D rs_d round_d(rs_d a) { return rs_np_rint_d(a); }
RS_D rs_c round_c(rs_c a) { return mkc(rs_np_rint_f(a.re), rs_np_rint_f(a.im)); }
RS_D rs_z round_z(rs_z a) { return mkz(rs_np_rint_d(a.re), rs_np_rint_d(a.im)); }
