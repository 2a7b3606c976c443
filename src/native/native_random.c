/* Native random numbers: Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random
 * numbers: as easy as 1, 2, 3", SC'11) - a counter-based generator, so element i's value
 * is a pure function of (seed, offset + i) and any split of the work over threads gives
 * the same array. The round function and the counter/key layout are the published ones
 * (the layout cuRAND's Philox uses: counter words 0-1 the block number, key the seed). */
#include <math.h>
#include <string.h>
#include "native/native.h"
#include "core/dtype_rules.h"
#include "core/half.h"

void rs_philox4x32(uint64_t key, uint64_t ctr, uint32_t out[4]) {
  uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1, n3 = (uint32_t)p0;
    c0 = n0, c1 = n1, c2 = n2, c3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/* 53 random bits as a double in [0, 1). */
static inline double unit53(uint32_t lo, uint32_t hi) {
  return (double)((((uint64_t)hi << 32) | lo) >> 11) * 0x1.0p-53;
}

/* One element's value(s) from its block: re (and im for complex). */
static void draw(const rs_random_plan *p, const uint32_t w[4], double *re, double *im, int64_t *iv) {
  switch (p->kind) {
    case RS_RANDOM_UNIFORM:
      *re = p->a + (p->b - p->a) * unit53(w[0], w[1]);
      *im = p->a + (p->b - p->a) * unit53(w[2], w[3]);
      break;
    case RS_RANDOM_NORMAL: { /* Box-Muller; u1 in (0, 1) so the log is finite */
      double u1 = ((double)((((uint64_t)w[1] << 32) | w[0]) >> 11) + 0.5) * 0x1.0p-53;
      double u2 = unit53(w[2], w[3]);
      double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
      *re = p->a + p->b * (r * cos(t));
      *im = p->a + p->b * (r * sin(t));
      break;
    }
    default: { /* integers: the high 64 bits of v * range, an (almost) unbiased draw */
      uint64_t v = ((uint64_t)w[1] << 32) | w[0], range = (uint64_t)p->hi - (uint64_t)p->lo;
      *iv = (int64_t)((uint64_t)p->lo + (uint64_t)(((unsigned __int128)v * range) >> 64));
      break;
    }
  }
}

/* Keep uniform values below `high` after rounding to a narrower float. */
static float below_f(float v, double high, double low) {
  return (double)v >= high && high > low ? nextafterf((float)high, -INFINITY) : v;
}

static uint16_t below_h(uint16_t h, double high, double low) {
  if (!((double)rs_half_to_float(h) >= high && high > low)) return h;
  h = rs_double_to_half(high);
  if (h == 0) return 0x8001u;                      /* +0: the smallest negative below it */
  return (h & 0x8000u) ? (uint16_t)(h + 1) : (uint16_t)(h - 1); /* one step towards -inf */
}

typedef struct rand_job {
  const rs_random_plan *p;
} rand_job;

static void rand_body(int64_t begin, int64_t end, void *arg) {
  const rs_random_plan *p = ((const rand_job *)arg)->p;
  int nd = p->ndim;
  int64_t idx[RS_MAX_DIMS], off = 0, rem = begin;
  for (int k = nd - 1; k >= 0; k--) {
    idx[k] = rem % p->shape[k];
    rem /= p->shape[k];
    off += idx[k] * p->strides[k];
  }
  int uniform = p->kind == RS_RANDOM_UNIFORM;
  for (int64_t i = begin; i < end; i++) {
    uint32_t w[4];
    double re = 0, im = 0;
    int64_t iv = 0;
    rs_philox4x32(p->seed, p->offset + (uint64_t)i, w);
    draw(p, w, &re, &im, &iv);
    char *dst = p->ptr + off;
    switch (p->dtype) {
      case RS_FLOAT64: memcpy(dst, &re, 8); break;
      case RS_FLOAT32: {
        float f = (float)re;
        if (uniform) f = below_f(f, p->b, p->a);
        memcpy(dst, &f, 4);
        break;
      }
      case RS_FLOAT16: {
        uint16_t h = rs_double_to_half(re);
        if (uniform) h = below_h(h, p->b, p->a);
        memcpy(dst, &h, 2);
        break;
      }
      case RS_COMPLEX128: {
        double z[2] = {re, im};
        memcpy(dst, z, 16);
        break;
      }
      case RS_COMPLEX64: {
        float z[2] = {(float)re, (float)im};
        if (uniform) z[0] = below_f(z[0], p->b, p->a), z[1] = below_f(z[1], p->b, p->a);
        memcpy(dst, z, 8);
        break;
      }
      default: { /* integers and bool: the value fits (checked by the caller) */
        rs_vi v = iv;
        if (p->dtype == RS_UINT64) {
          rs_vu u = (rs_vu)iv;
          rs_nat_store(p->dtype, &u, dst, 0, NULL, 1);
        } else {
          rs_vb b = (rs_vb)(iv != 0);
          rs_nat_store(p->dtype, p->dtype == RS_BOOL ? (const void *)&b : (const void *)&v, dst, 0, NULL, 1);
        }
        break;
      }
    }
    for (int k = nd - 1; k >= 0; k--) { /* odometer */
      off += p->strides[k];
      if (++idx[k] < p->shape[k]) break;
      off -= idx[k] * p->strides[k];
      idx[k] = 0;
    }
  }
}

void rs_native_random(rs_thread_pool *pool, const rs_random_plan *p) {
  rand_job j = {p};
  if (rs_native_parallel(pool, p->count))
    rs_native_for(pool, p->count, rand_body, &j);
  else
    rand_body(0, p->count, &j);
}
