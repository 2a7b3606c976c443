/* Native sort and argsort along rows: values become unsigned keys whose order is the
 * values' order (sign bit flipped for integers; floats by their sign-magnitude bits; every
 * NaN becomes the largest key, so NaN sorts last as in NumPy), then a stable LSD radix
 * sort, one byte per pass, skipping passes where every key has the same byte. Short rows
 * use insertion sort (also stable), so argsort equals NumPy's kind="stable". Rows run in
 * parallel, each in its own slice of the scratch memory; a long row of 32- or 64-bit
 * keys is itself sorted in parallel (native_radix.c), with the same result. */
#include <string.h>
#include "native/native.h"
#include "native/native_radix.h"

static int key_width(rs_dtype dt) { return (int)rs_dtype_size(dt); }

typedef struct sort_job {
  const rs_sort_plan *p;
  unsigned char *scratch;
  int w;
} sort_job;

/* ---- keys ---- */

#define RS_FKEY(KT, SIGN, EXPMASK)                                                       \
  static inline KT fkey_##KT(KT b) {                                                     \
    if ((b & (KT) ~SIGN) > EXPMASK) return (KT) ~(KT)0; /* NaN: last */                  \
    return (b & SIGN) ? (KT) ~b : (KT)(b | SIGN);                                        \
  }                                                                                      \
  static inline KT fval_##KT(KT k, KT qnan) {                                            \
    if (k == (KT) ~(KT)0) return qnan;                                                   \
    return (k & SIGN) ? (KT)(k ^ SIGN) : (KT) ~k;                                        \
  }
RS_FKEY(uint16_t, 0x8000u, 0x7c00u)
RS_FKEY(uint32_t, 0x80000000u, 0x7f800000u)
RS_FKEY(uint64_t, UINT64_C(0x8000000000000000), UINT64_C(0x7ff0000000000000))

/* argsort keys: -0.0 is +0.0 (equal values keep their order, as NumPy's stable sort).
 * sort keeps them apart (-0.0 first), so the values come back bit for bit. */
static void zero_keys(rs_dtype dt, void *keys, int64_t n) {
  if (dt == RS_FLOAT16) {
    uint16_t *k = keys;
    for (int64_t i = 0; i < n; i++) k[i] = k[i] == 0x7fffu ? 0x8000u : k[i];
  } else if (dt == RS_FLOAT32) {
    uint32_t *k = keys;
    for (int64_t i = 0; i < n; i++) k[i] = k[i] == 0x7fffffffu ? 0x80000000u : k[i];
  } else if (dt == RS_FLOAT64) {
    uint64_t *k = keys;
    for (int64_t i = 0; i < n; i++) k[i] = k[i] == UINT64_C(0x7fffffffffffffff) ? UINT64_C(0x8000000000000000) : k[i];
  }
}

static void make_keys(rs_dtype dt, const void *src, void *keys, int64_t n) {
  switch (dt) {
    case RS_BOOL: {
      const uint8_t *s = src;
      uint8_t *k = keys;
      for (int64_t i = 0; i < n; i++) k[i] = s[i] != 0;
      break;
    }
#define RS_IKEY(DT, ST, KT, FLIP)                           \
  case DT: {                                                \
    const ST *s = src;                                      \
    KT *k = keys;                                           \
    for (int64_t i = 0; i < n; i++) k[i] = (KT)((KT)s[i] ^ (FLIP)); \
    break;                                                  \
  }
      RS_IKEY(RS_INT8, int8_t, uint8_t, 0x80u)
      RS_IKEY(RS_INT16, int16_t, uint16_t, 0x8000u)
      RS_IKEY(RS_INT32, int32_t, uint32_t, 0x80000000u)
      RS_IKEY(RS_INT64, int64_t, uint64_t, UINT64_C(0x8000000000000000))
      RS_IKEY(RS_UINT8, uint8_t, uint8_t, 0)
      RS_IKEY(RS_UINT16, uint16_t, uint16_t, 0)
      RS_IKEY(RS_UINT32, uint32_t, uint32_t, 0)
      RS_IKEY(RS_UINT64, uint64_t, uint64_t, 0)
#undef RS_IKEY
/* float bits (read with memcpy: the source need not be aligned) to ordered keys */
#define RS_FLOAT_KEY(DT, KT)                   \
  case DT: {                              \
    KT *k = keys;                         \
    const unsigned char *s = src;         \
    for (int64_t i = 0; i < n; i++) {     \
      KT b;                               \
      memcpy(&b, s + i * sizeof b, sizeof b); \
      k[i] = fkey_##KT(b);                \
    }                                     \
    break;                                \
  }
      RS_FLOAT_KEY(RS_FLOAT16, uint16_t)
      RS_FLOAT_KEY(RS_FLOAT32, uint32_t)
      RS_FLOAT_KEY(RS_FLOAT64, uint64_t)
#undef RS_FLOAT_KEY
    default:
      break;
  }
}

/* Keys back to values (dst may be the keys' own memory). */
static void from_keys(rs_dtype dt, const void *keys, void *dst, int64_t n) {
  switch (dt) {
    case RS_BOOL:
    case RS_UINT8:
    case RS_UINT16:
    case RS_UINT32:
    case RS_UINT64:
      memmove(dst, keys, (size_t)n * rs_dtype_size(dt));
      break;
#define RS_IVAL(DT, KT, FLIP)                                      \
  case DT: {                                                       \
    const KT *k = keys;                                            \
    KT *d = dst;                                                   \
    for (int64_t i = 0; i < n; i++) d[i] = (KT)(k[i] ^ (FLIP));    \
    break;                                                         \
  }
      RS_IVAL(RS_INT8, uint8_t, 0x80u)
      RS_IVAL(RS_INT16, uint16_t, 0x8000u)
      RS_IVAL(RS_INT32, uint32_t, 0x80000000u)
      RS_IVAL(RS_INT64, uint64_t, UINT64_C(0x8000000000000000))
#undef RS_IVAL
    case RS_FLOAT16: {
      const uint16_t *k = keys;
      uint16_t *d = dst;
      for (int64_t i = 0; i < n; i++) d[i] = fval_uint16_t(k[i], 0x7e00u);
      break;
    }
    case RS_FLOAT32: {
      const uint32_t *k = keys;
      uint32_t *d = dst;
      for (int64_t i = 0; i < n; i++) d[i] = fval_uint32_t(k[i], 0x7fc00000u);
      break;
    }
    case RS_FLOAT64: {
      const uint64_t *k = keys;
      uint64_t *d = dst;
      for (int64_t i = 0; i < n; i++) d[i] = fval_uint64_t(k[i], UINT64_C(0x7ff8000000000000));
      break;
    }
    default:
      break;
  }
}

/* ---- stable sorts of (key, index) ---- */

#define RS_RADIX(KT)                                                                           \
  static void isort_##KT(KT *k, int64_t *ix, int64_t n) {                                      \
    for (int64_t i = 1; i < n; i++) {                                                          \
      KT kv = k[i];                                                                            \
      int64_t iv = ix ? ix[i] : 0, j = i;                                                      \
      for (; j > 0 && k[j - 1] > kv; j--) {                                                    \
        k[j] = k[j - 1];                                                                       \
        if (ix) ix[j] = ix[j - 1];                                                             \
      }                                                                                        \
      k[j] = kv;                                                                               \
      if (ix) ix[j] = iv;                                                                      \
    }                                                                                          \
  }                                                                                            \
  /* Sorts k (with ix alongside when not NULL) using k2/ix2 as the other buffers; returns 1  \
   * if the result ended in k2/ix2. */                                                        \
  static int radix_##KT(KT *k, int64_t *ix, KT *k2, int64_t *ix2, int64_t n) {                 \
    int in_second = 0;                                                                         \
    for (unsigned shift = 0; shift < sizeof(KT) * 8; shift += 8) {                             \
      KT *src = in_second ? k2 : k, *dst = in_second ? k : k2;                                 \
      int64_t *isrc = in_second ? ix2 : ix, *idst = in_second ? ix : ix2;                      \
      int64_t count[256] = {0};                                                                \
      for (int64_t i = 0; i < n; i++) count[(src[i] >> shift) & 0xffu]++;                      \
      if (count[(src[0] >> shift) & 0xffu] == n) continue; /* every key has this byte */      \
      int64_t pos = 0;                                                                         \
      for (int b = 0; b < 256; b++) {                                                          \
        int64_t c = count[b];                                                                  \
        count[b] = pos;                                                                        \
        pos += c;                                                                              \
      }                                                                                        \
      for (int64_t i = 0; i < n; i++) {                                                        \
        int64_t d = count[(src[i] >> shift) & 0xffu]++;                                        \
        dst[d] = src[i];                                                                       \
        if (ix) idst[d] = isrc[i];                                                             \
      }                                                                                        \
      in_second = !in_second;                                                                  \
    }                                                                                          \
    return in_second;                                                                          \
  }                                                                                            \
  static void sort_keys_##KT(KT *k, int64_t *ix, KT *k2, int64_t *ix2, int64_t n) {            \
    if (n <= 32) {                                                                             \
      isort_##KT(k, ix, n);                                                                    \
      return;                                                                                  \
    }                                                                                          \
    if (radix_##KT(k, ix, k2, ix2, n)) {                                                       \
      memcpy(k, k2, (size_t)n * sizeof(KT));                                                   \
      if (ix) memcpy(ix, ix2, (size_t)n * sizeof(int64_t));                                    \
    }                                                                                          \
  }
RS_RADIX(uint8_t)
RS_RADIX(uint16_t)
RS_RADIX(uint32_t)
RS_RADIX(uint64_t)

static void sort_keys(int w, void *k, int64_t *ix, void *k2, int64_t *ix2, int64_t n) {
  switch (w) {
    case 1: sort_keys_uint8_t(k, ix, k2, ix2, n); break;
    case 2: sort_keys_uint16_t(k, ix, k2, ix2, n); break;
    case 4: sort_keys_uint32_t(k, ix, k2, ix2, n); break;
    default: sort_keys_uint64_t(k, ix, k2, ix2, n); break;
  }
}

/* Scratch per row: sort - one key buffer (keys live in dst); argsort - two key buffers
 * and one index buffer (indices live in the output). */
static size_t row_scratch(const rs_sort_plan *p) {
  size_t w = (size_t)key_width(p->dtype), n = (size_t)p->n;
  size_t bytes = p->argsort ? n * (2 * w + 8) : n * w;
  return (bytes + 7) & ~(size_t)7; /* every row's slice 8-byte aligned */
}

static void sort_rows(int64_t r0, int64_t r1, void *arg) {
  const sort_job *j = arg;
  const rs_sort_plan *p = j->p;
  size_t w = (size_t)j->w, n = (size_t)p->n, per = row_scratch(p);
  for (int64_t r = r0; r < r1; r++) {
    unsigned char *s = j->scratch + (size_t)r * per;
    const unsigned char *src = (const unsigned char *)p->src + (size_t)r * n * w;
    if (p->argsort) {
      int64_t *ix = p->indices + (size_t)r * n;
      int64_t *ix2 = (int64_t *)(void *)s; /* first: aligned for int64 */
      void *k = s + n * 8, *k2 = s + n * 8 + n * w;
      for (size_t i = 0; i < n; i++) ix[i] = (int64_t)i;
      make_keys(p->dtype, src, k, (int64_t)n);
      zero_keys(p->dtype, k, (int64_t)n);
      sort_keys(j->w, k, ix, k2, ix2, (int64_t)n);
    } else {
      unsigned char *dst = (unsigned char *)p->dst + (size_t)r * n * w;
      make_keys(p->dtype, src, dst, (int64_t)n); /* in place when dst == src: a key per value */
      sort_keys(j->w, dst, NULL, s, NULL, (int64_t)n);
      from_keys(p->dtype, dst, dst, (int64_t)n);
    }
  }
}

/* A row long enough to spread over the threads, of keys the parallel radix sort takes. */
static int long_rows(const rs_sort_plan *p) {
  int w = key_width(p->dtype);
  return p->n >= ((int64_t)1 << 16) && (w == 4 || w == 8);
}

size_t rs_native_sort_scratch(const rs_sort_plan *p) {
  if (long_rows(p)) return row_scratch(p) + rs_radix_scratch(); /* one row at a time */
  return row_scratch(p) * (size_t)p->rows;
}

/* The element-wise steps around a long row's radix sort, over element ranges. */
typedef struct row_job {
  const rs_sort_plan *p;
  int w, stage; /* 0: keys (and indices); 1: values back from keys */
  const void *src;
  void *keys, *out;
  int64_t *ix;
} row_job;

static void row_steps(int64_t b, int64_t e, void *arg) {
  const row_job *j = arg;
  size_t w = (size_t)j->w;
  if (j->stage == 0) {
    make_keys(j->p->dtype, (const char *)j->src + (size_t)b * w, (char *)j->keys + (size_t)b * w, e - b);
    if (j->ix) {
      zero_keys(j->p->dtype, (char *)j->keys + (size_t)b * w, e - b);
      for (int64_t i = b; i < e; i++) j->ix[i] = i;
    }
  } else if (j->out) {
    from_keys(j->p->dtype, (const char *)j->keys + (size_t)b * w, (char *)j->out + (size_t)b * w, e - b);
  } else {
    memcpy(j->ix + b, (const int64_t *)j->keys + b, (size_t)(e - b) * sizeof(int64_t));
  }
}

/* Keys for the vqsort path: made from the values, or copied when made already. */
typedef struct key_source {
  rs_keys_maker mk;
  int ready; /* mk.src holds keys, not values */
} key_source;

static void make_some(const rs_keys_maker *mk, int64_t first, int64_t n, void *keys) {
  const key_source *ks = (const key_source *)(const void *)mk;
  size_t w = (size_t)key_width(mk->dtype);
  const char *from = (const char *)mk->src + (size_t)first * w;
  if (ks->ready)
    memcpy(keys, from, (size_t)n * w);
  else
    make_keys(mk->dtype, from, keys, n);
}

static void long_row(rs_thread_pool *pool, const rs_sort_plan *p, int64_t r, unsigned char *scratch) {
  size_t w = (size_t)key_width(p->dtype), n = (size_t)p->n;
  const unsigned char *src = (const unsigned char *)p->src + (size_t)r * n * w;
  unsigned char *radix = scratch + row_scratch(p);
  row_job j = {p, (int)w, 0, src, NULL, NULL, NULL};
  if (p->argsort) {
    int64_t *ix = p->indices + (size_t)r * n, *ix2 = (int64_t *)(void *)scratch;
    void *k = scratch + n * 8, *k2 = scratch + n * 8 + n * w;
    j.keys = k, j.ix = ix;
    rs_native_for(pool, p->n, row_steps, &j);
    if (rs_radix_sort(pool, j.w, k, ix, k2, ix2, p->n, radix)) {
      j.stage = 1, j.keys = ix2; /* the order ended in the second buffer: copy it home */
      rs_native_for(pool, p->n, row_steps, &j);
    }
  } else {
    unsigned char *dst = (unsigned char *)p->dst + (size_t)r * n * w;
    /* vqsort where the build has it: keys made from the values straight into dst - or,
     * sorting in place, from keys made first into the scratch */
    key_source ks = {{make_some, p->dtype, src}, 0};
    if (dst == src) {
      j.keys = scratch;
      rs_native_for(pool, p->n, row_steps, &j);
      ks.mk.src = scratch, ks.ready = 1;
    }
    int second = 0;
    if (!rs_vqsort_row(pool, &ks.mk, j.w, dst, p->n)) {
      j.keys = dst, j.src = src; /* in place when dst == src: a key per value */
      rs_native_for(pool, p->n, row_steps, &j);
      second = rs_radix_sort(pool, j.w, dst, NULL, scratch, NULL, p->n, radix);
    }
    j.stage = 1, j.keys = second ? (void *)scratch : (void *)dst, j.out = dst;
    rs_native_for(pool, p->n, row_steps, &j);
  }
}

void rs_native_sort(rs_thread_pool *pool, const rs_sort_plan *p, void *scratch) {
  if (p->rows <= 0 || p->n <= 0) return;
  if (long_rows(p)) {
    for (int64_t r = 0; r < p->rows; r++) long_row(pool, p, r, scratch);
    return;
  }
  sort_job j = {p, scratch, key_width(p->dtype)};
  if (p->rows > 1 && rs_native_parallel(pool, p->rows * p->n))
    rs_native_for(pool, p->rows, sort_rows, &j);
  else
    sort_rows(0, p->rows, &j);
}
