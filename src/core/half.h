/* Internal: IEEE half <-> float/double conversions (round to nearest even), in portable C
 * because float16 is storage only here and no C11 type holds it. */
#ifndef RS_CORE_HALF_H
#define RS_CORE_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline float rs_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: shift the mantissa up to the implicit bit */
      int e = -1;
      do {
        e++;
        man <<= 1;
      } while (!(man & 0x400u));
      bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static inline uint16_t rs_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) /* inf, or NaN kept quiet */
    return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u | ((ax >> 13) & 0x3ffu) : 0u));
  if (ax >= 0x47800000u) return (uint16_t)(sign | 0x7c00u); /* >= 65536: infinity */
  if (ax < 0x38800000u) {                                    /* below 2^-14: subnormal or zero */
    if (ax < 0x33000000u) return sign;                       /* <= 2^-25 rounds to 0 */
    uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    int shift = 126 - (int)e; /* 14 .. 24 */
    uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax >> 13) & 0x3ffu), rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++; /* a carry may reach infinity: right */
  return (uint16_t)(sign | h);
}

/* Double to half in one correct rounding: round to float "to odd" (truncate, then set
 * the last bit if anything was lost), which keeps the second rounding exact. */
static inline uint16_t rs_double_to_half(double d) {
  float f = (float)d;
  if (isfinite(f) && (double)f != d) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if (fabs((double)f) > fabs(d)) b -= 1u;
    b |= 1u;
    memcpy(&f, &b, sizeof f);
  }
  return rs_float_to_half(f);
}

#endif
