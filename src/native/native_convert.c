/* Native value conversions: loading stored dtypes into value classes, storing them back,
 * converting between classes (float to integer as NumPy on x86: src/native/numpy_scalar.h),
 * and constants. Every pair is a tight typed loop chosen once per block, so a block costs
 * one switch and no per-element type dispatch. */
#include <math.h>
#include <string.h>
#include "native/native.h"
#include "core/dtype_rules.h"
#include "core/half.h"
#include "native/numpy_scalar.h"

size_t rs_cls_size(rs_cls c) {
  static const size_t sizes[RS_CLS_COUNT] = {1, 8, 8, 4, 8, 8, 16};
  return (unsigned)c < RS_CLS_COUNT ? sizes[c] : 0;
}

static inline rs_vc mkc(float re, float im) { return CMPLXF(re, im); }
static inline rs_vz mkz(double re, double im) { return CMPLX(re, im); }

/* ---- load / store ------------------------------------------------------------------ */

#define RS_LOAD(ST, CT, EXPR)                                                      \
  do {                                                                             \
    CT *d = dst;                                                                   \
    if (offs) {                                                                    \
      for (int i = 0; i < n; i++) {                                                \
        ST v = *(const ST *)(const void *)(base + offs[i]);                        \
        d[i] = (EXPR);                                                             \
      }                                                                            \
    } else if (stride == (int64_t)sizeof(ST)) {                                    \
      const ST *s = (const ST *)(const void *)base;                                \
      for (int i = 0; i < n; i++) {                                                \
        ST v = s[i];                                                               \
        d[i] = (EXPR);                                                             \
      }                                                                            \
    } else {                                                                       \
      for (int i = 0; i < n; i++) {                                                \
        ST v = *(const ST *)(const void *)(base + (int64_t)i * stride);            \
        d[i] = (EXPR);                                                             \
      }                                                                            \
    }                                                                              \
  } while (0)

void rs_nat_load(rs_dtype dt, const char *base, int64_t stride, const int64_t *offs, int n, void *dst) {
  switch (dt) {
    case RS_BOOL: RS_LOAD(uint8_t, rs_vb, (rs_vb)(v != 0)); break;
    case RS_INT8: RS_LOAD(int8_t, rs_vi, v); break;
    case RS_INT16: RS_LOAD(int16_t, rs_vi, v); break;
    case RS_INT32: RS_LOAD(int32_t, rs_vi, v); break;
    case RS_INT64: RS_LOAD(int64_t, rs_vi, v); break;
    case RS_UINT8: RS_LOAD(uint8_t, rs_vi, v); break;
    case RS_UINT16: RS_LOAD(uint16_t, rs_vi, v); break;
    case RS_UINT32: RS_LOAD(uint32_t, rs_vi, v); break;
    case RS_UINT64: RS_LOAD(uint64_t, rs_vu, v); break;
    case RS_FLOAT16: RS_LOAD(uint16_t, rs_vf, rs_half_to_float(v)); break;
    case RS_FLOAT32: RS_LOAD(float, rs_vf, v); break;
    case RS_FLOAT64: RS_LOAD(double, rs_vd, v); break;
    case RS_COMPLEX64: RS_LOAD(rs_vc, rs_vc, v); break;
    case RS_COMPLEX128: RS_LOAD(rs_vz, rs_vz, v); break;
    default: break;
  }
}

#define RS_STORE(ST, CT, EXPR)                                                     \
  do {                                                                             \
    const CT *s = src;                                                             \
    if (offs) {                                                                    \
      for (int i = 0; i < n; i++) {                                                \
        CT v = s[i];                                                               \
        *(ST *)(void *)(base + offs[i]) = (EXPR);                                  \
      }                                                                            \
    } else if (stride == (int64_t)sizeof(ST)) {                                    \
      ST *d = (ST *)(void *)base;                                                  \
      for (int i = 0; i < n; i++) {                                                \
        CT v = s[i];                                                               \
        d[i] = (EXPR);                                                             \
      }                                                                            \
    } else {                                                                       \
      for (int i = 0; i < n; i++) {                                                \
        CT v = s[i];                                                               \
        *(ST *)(void *)(base + (int64_t)i * stride) = (EXPR);                      \
      }                                                                            \
    }                                                                              \
  } while (0)

/* Values are already what dt holds (normalized), so narrowing loses nothing. */
void rs_nat_store(rs_dtype dt, const void *src, char *base, int64_t stride, const int64_t *offs, int n) {
  switch (dt) {
    case RS_BOOL: RS_STORE(uint8_t, rs_vb, v); break;
    case RS_INT8: RS_STORE(int8_t, rs_vi, (int8_t)v); break;
    case RS_INT16: RS_STORE(int16_t, rs_vi, (int16_t)v); break;
    case RS_INT32: RS_STORE(int32_t, rs_vi, (int32_t)v); break;
    case RS_INT64: RS_STORE(int64_t, rs_vi, v); break;
    case RS_UINT8: RS_STORE(uint8_t, rs_vi, (uint8_t)v); break;
    case RS_UINT16: RS_STORE(uint16_t, rs_vi, (uint16_t)v); break;
    case RS_UINT32: RS_STORE(uint32_t, rs_vi, (uint32_t)v); break;
    case RS_UINT64: RS_STORE(uint64_t, rs_vu, v); break;
    case RS_FLOAT16: RS_STORE(uint16_t, rs_vf, rs_float_to_half(v)); break;
    case RS_FLOAT32: RS_STORE(float, rs_vf, v); break;
    case RS_FLOAT64: RS_STORE(double, rs_vd, v); break;
    case RS_COMPLEX64: RS_STORE(rs_vc, rs_vc, v); break;
    case RS_COMPLEX128: RS_STORE(rs_vz, rs_vz, v); break;
    default: break;
  }
}

/* ---- class to class ---------------------------------------------------------------- */

#define RS_CONV(FT, TT, EXPR)               \
  do {                                      \
    const FT *s = src;                      \
    TT *d = dst;                            \
    for (int i = 0; i < n; i++) {           \
      FT v = s[i];                          \
      d[i] = (EXPR);                        \
    }                                       \
  } while (0)

#define RS_PAIR(a, b) ((int)(a) * RS_CLS_COUNT + (int)(b))

void rs_nat_convert(rs_cls from, const void *src, rs_cls to, void *dst, int n) {
  if (from == to) {
    memcpy(dst, src, (size_t)n * rs_cls_size(from));
    return;
  }
  switch (RS_PAIR(from, to)) {
    case RS_PAIR(RS_CLS_B, RS_CLS_I): RS_CONV(rs_vb, rs_vi, v); break;
    case RS_PAIR(RS_CLS_B, RS_CLS_U): RS_CONV(rs_vb, rs_vu, v); break;
    case RS_PAIR(RS_CLS_B, RS_CLS_F): RS_CONV(rs_vb, rs_vf, v); break;
    case RS_PAIR(RS_CLS_B, RS_CLS_D): RS_CONV(rs_vb, rs_vd, v); break;
    case RS_PAIR(RS_CLS_B, RS_CLS_C): RS_CONV(rs_vb, rs_vc, mkc(v, 0)); break;
    case RS_PAIR(RS_CLS_B, RS_CLS_Z): RS_CONV(rs_vb, rs_vz, mkz(v, 0)); break;

    case RS_PAIR(RS_CLS_I, RS_CLS_B): RS_CONV(rs_vi, rs_vb, v != 0); break;
    case RS_PAIR(RS_CLS_I, RS_CLS_U): RS_CONV(rs_vi, rs_vu, (rs_vu)v); break;
    case RS_PAIR(RS_CLS_I, RS_CLS_F): RS_CONV(rs_vi, rs_vf, (float)v); break;
    case RS_PAIR(RS_CLS_I, RS_CLS_D): RS_CONV(rs_vi, rs_vd, (double)v); break;
    case RS_PAIR(RS_CLS_I, RS_CLS_C): RS_CONV(rs_vi, rs_vc, mkc((float)v, 0)); break;
    case RS_PAIR(RS_CLS_I, RS_CLS_Z): RS_CONV(rs_vi, rs_vz, mkz((double)v, 0)); break;

    case RS_PAIR(RS_CLS_U, RS_CLS_B): RS_CONV(rs_vu, rs_vb, v != 0); break;
    case RS_PAIR(RS_CLS_U, RS_CLS_I): RS_CONV(rs_vu, rs_vi, (rs_vi)v); break;
    case RS_PAIR(RS_CLS_U, RS_CLS_F): RS_CONV(rs_vu, rs_vf, (float)v); break;
    case RS_PAIR(RS_CLS_U, RS_CLS_D): RS_CONV(rs_vu, rs_vd, (double)v); break;
    case RS_PAIR(RS_CLS_U, RS_CLS_C): RS_CONV(rs_vu, rs_vc, mkc((float)v, 0)); break;
    case RS_PAIR(RS_CLS_U, RS_CLS_Z): RS_CONV(rs_vu, rs_vz, mkz((double)v, 0)); break;

    case RS_PAIR(RS_CLS_F, RS_CLS_B): RS_CONV(rs_vf, rs_vb, v != 0); break;
    case RS_PAIR(RS_CLS_F, RS_CLS_I): RS_CONV(rs_vf, rs_vi, rs_np_f2i(v)); break;
    case RS_PAIR(RS_CLS_F, RS_CLS_U): RS_CONV(rs_vf, rs_vu, rs_np_f2u(v)); break;
    case RS_PAIR(RS_CLS_F, RS_CLS_D): RS_CONV(rs_vf, rs_vd, v); break;
    case RS_PAIR(RS_CLS_F, RS_CLS_C): RS_CONV(rs_vf, rs_vc, mkc(v, 0)); break;
    case RS_PAIR(RS_CLS_F, RS_CLS_Z): RS_CONV(rs_vf, rs_vz, mkz(v, 0)); break;

    case RS_PAIR(RS_CLS_D, RS_CLS_B): RS_CONV(rs_vd, rs_vb, v != 0); break;
    case RS_PAIR(RS_CLS_D, RS_CLS_I): RS_CONV(rs_vd, rs_vi, rs_np_f2i(v)); break;
    case RS_PAIR(RS_CLS_D, RS_CLS_U): RS_CONV(rs_vd, rs_vu, rs_np_f2u(v)); break;
    case RS_PAIR(RS_CLS_D, RS_CLS_F): RS_CONV(rs_vd, rs_vf, (float)v); break;
    case RS_PAIR(RS_CLS_D, RS_CLS_C): RS_CONV(rs_vd, rs_vc, mkc((float)v, 0)); break;
    case RS_PAIR(RS_CLS_D, RS_CLS_Z): RS_CONV(rs_vd, rs_vz, mkz(v, 0)); break;

    case RS_PAIR(RS_CLS_C, RS_CLS_B): RS_CONV(rs_vc, rs_vb, crealf(v) != 0 || cimagf(v) != 0); break;
    case RS_PAIR(RS_CLS_C, RS_CLS_I): RS_CONV(rs_vc, rs_vi, rs_np_f2i(crealf(v))); break;
    case RS_PAIR(RS_CLS_C, RS_CLS_U): RS_CONV(rs_vc, rs_vu, rs_np_f2u(crealf(v))); break;
    case RS_PAIR(RS_CLS_C, RS_CLS_F): RS_CONV(rs_vc, rs_vf, crealf(v)); break;
    case RS_PAIR(RS_CLS_C, RS_CLS_D): RS_CONV(rs_vc, rs_vd, crealf(v)); break;
    case RS_PAIR(RS_CLS_C, RS_CLS_Z): RS_CONV(rs_vc, rs_vz, mkz(crealf(v), cimagf(v))); break;

    case RS_PAIR(RS_CLS_Z, RS_CLS_B): RS_CONV(rs_vz, rs_vb, creal(v) != 0 || cimag(v) != 0); break;
    case RS_PAIR(RS_CLS_Z, RS_CLS_I): RS_CONV(rs_vz, rs_vi, rs_np_f2i(creal(v))); break;
    case RS_PAIR(RS_CLS_Z, RS_CLS_U): RS_CONV(rs_vz, rs_vu, rs_np_f2u(creal(v))); break;
    case RS_PAIR(RS_CLS_Z, RS_CLS_F): RS_CONV(rs_vz, rs_vf, (float)creal(v)); break;
    case RS_PAIR(RS_CLS_Z, RS_CLS_D): RS_CONV(rs_vz, rs_vd, creal(v)); break;
    case RS_PAIR(RS_CLS_Z, RS_CLS_C): RS_CONV(rs_vz, rs_vc, mkc((float)creal(v), (float)cimag(v))); break;
    default: break;
  }
}

#define RS_NORM(CT, EXPR)         \
  do {                            \
    CT *b = buf;                  \
    for (int i = 0; i < n; i++) { \
      CT v = b[i];                \
      b[i] = (EXPR);              \
    }                             \
  } while (0)

void rs_nat_normalize(rs_dtype dt, void *buf, int n) {
  switch (dt) {
    case RS_INT8: RS_NORM(rs_vi, (int8_t)v); break;
    case RS_INT16: RS_NORM(rs_vi, (int16_t)v); break;
    case RS_INT32: RS_NORM(rs_vi, (int32_t)v); break;
    case RS_UINT8: RS_NORM(rs_vi, (uint8_t)v); break;
    case RS_UINT16: RS_NORM(rs_vi, (uint16_t)v); break;
    case RS_UINT32: RS_NORM(rs_vi, (uint32_t)v); break;
    case RS_FLOAT16: RS_NORM(rs_vf, rs_half_to_float(rs_float_to_half(v))); break;
    default: break; /* the class holds dt exactly */
  }
}

void rs_nat_const(rs_scalar s, rs_dtype dt, void *dst, int n) {
  /* the scalar as its own class first, then the ordinary conversions */
  union {
    rs_vb b;
    rs_vi i;
    rs_vd d;
    rs_vz z;
  } one;
  rs_cls from;
  switch (s.kind) {
    case RS_SCALAR_BOOL: one.b = s.i != 0; from = RS_CLS_B; break;
    case RS_SCALAR_INT: one.i = s.i; from = RS_CLS_I; break;
    case RS_SCALAR_FLOAT: one.d = s.re; from = RS_CLS_D; break;
    default: one.z = mkz(s.re, s.im); from = RS_CLS_Z; break;
  }
  rs_cls to = rs_dtype_cls(dt);
  size_t sz = rs_cls_size(to);
  unsigned char v[16];
  rs_nat_convert(from, &one, to, v, 1);
  if (dt == RS_FLOAT16 && from == RS_CLS_D) {
    /* a double constant rounds to half once, not through float */
    float f = rs_half_to_float(rs_double_to_half(s.re));
    memcpy(v, &f, sizeof f);
  } else {
    rs_nat_normalize(dt, v, 1);
  }
  for (int i = 0; i < n; i++) memcpy((unsigned char *)dst + (size_t)i * sz, v, sz);
}
