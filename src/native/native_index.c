/* The native loops of indexing, searching and sets (plans: native/plans_index.h). Gathers,
 * scatters to distinct elements and searches are spread over the pool; a scatter that may
 * repeat an index runs in C order on one thread, which is what makes the last writer win;
 * compaction and runs are one pass. */
#include <string.h>
#include "core/half.h"
#include "native/native.h"
#include "native/native_index.h"

/* ---- gather / scatter ---- */
static void index_range(int64_t begin, int64_t end, void *arg) {
  const rs_index_plan *p = arg;
  int64_t c[RS_MAX_DIMS];
  int64_t rem = begin;
  for (int k = p->ndim - 1; k >= 0; k--) { /* coordinates of `begin` */
    c[k] = rem % p->shape[k];
    rem /= p->shape[k];
  }
  size_t sz = (size_t)p->itemsize;
  for (int64_t e = begin; e < end; e++) {
    int64_t doff = 0, ioff = 0, voff = 0;
    for (int k = 0; k < p->ndim; k++) {
      doff += c[k] * p->data_strides[k];
      ioff += c[k] * p->idx_strides[k];
      voff += c[k] * p->vals_strides[k];
    }
    int64_t i;
    memcpy(&i, p->idx + ioff, sizeof i);
    if (i < 0) i += p->axis_len;
    doff += i * p->axis_stride;
    if (p->scatter)
      memcpy(p->data + doff, p->vals + voff, sz);
    else
      memcpy(p->vals + voff, p->data + doff, sz);
    for (int k = p->ndim - 1; k >= 0; k--) { /* next coordinates (odometer) */
      if (++c[k] < p->shape[k]) break;
      c[k] = 0;
    }
  }
}

void rs_native_index(rs_thread_pool *pool, const rs_index_plan *p) {
  if (p->scatter != 1 && rs_native_parallel(pool, p->count)) /* no last writer to keep */
    rs_native_for(pool, p->count, index_range, (void *)p);
  else
    index_range(0, p->count, (void *)p);
}

/* ---- compaction ---- */
void rs_native_select(const rs_select_plan *p) {
  int64_t k = 0;
  if (p->values) {
    size_t sz = (size_t)p->itemsize;
    for (int64_t i = 0; i < p->n; i++)
      if (p->flags[i]) memcpy(p->out + (k++) * (int64_t)sz, p->values + i * (int64_t)sz, sz);
  } else {
    for (int64_t i = 0; i < p->n; i++)
      if (p->flags[i]) p->positions[k++] = i;
  }
  *p->count = k;
}

/* ---- the dtypes, compared as NumPy sorts them (NaN last) ---- */
/* Element i of a sorted-dtype array as a comparable key: integers exactly, floats as
 * double (float16 widened), bool as 0/1. */
typedef struct key {
  int kind; /* 0 signed, 1 unsigned, 2 float */
  int64_t i;
  uint64_t u;
  double d;
} key;

static key key_at(rs_dtype dt, const void *base, int64_t i) {
  key k = {0, 0, 0, 0};
  const char *p = (const char *)base;
  switch (dt) {
#define RS_KEY_(DT, T, KIND, FIELD) \
  case DT: {                        \
    T v;                            \
    memcpy(&v, p + i * (int64_t)sizeof v, sizeof v); \
    k.kind = KIND;                  \
    k.FIELD = v;                    \
    break;                          \
  }
    RS_KEY_(RS_BOOL, uint8_t, 1, u)
    RS_KEY_(RS_INT8, int8_t, 0, i)
    RS_KEY_(RS_INT16, int16_t, 0, i)
    RS_KEY_(RS_INT32, int32_t, 0, i)
    RS_KEY_(RS_INT64, int64_t, 0, i)
    RS_KEY_(RS_UINT8, uint8_t, 1, u)
    RS_KEY_(RS_UINT16, uint16_t, 1, u)
    RS_KEY_(RS_UINT32, uint32_t, 1, u)
    RS_KEY_(RS_UINT64, uint64_t, 1, u)
    RS_KEY_(RS_FLOAT32, float, 2, d)
    RS_KEY_(RS_FLOAT64, double, 2, d)
#undef RS_KEY_
    case RS_FLOAT16: {
      uint16_t h;
      memcpy(&h, p + i * 2, 2);
      k.kind = 2;
      k.d = rs_half_to_float(h);
      break;
    }
    default: break;
  }
  if (dt == RS_BOOL) k.u = k.u != 0;
  return k;
}

static int key_less(key a, key b) { /* a < b with NaN after everything */
  if (a.kind == 0) return a.i < b.i;
  if (a.kind == 1) return a.u < b.u;
  return a.d < b.d || (b.d != b.d && a.d == a.d);
}

static int key_equal(key a, key b) { /* ==: NaN equals nothing */
  if (a.kind == 0) return a.i == b.i;
  if (a.kind == 1) return a.u == b.u;
  return a.d == b.d;
}

/* ---- runs of a sorted array ---- */
void rs_native_unique(const rs_unique_plan *p) {
  size_t sz = rs_dtype_size(p->dtype);
  int64_t r = -1;
  key prev = {0, 0, 0, 0};
  for (int64_t i = 0; i < p->n; i++) {
    key k = key_at(p->dtype, p->sorted, i);
    if (i == 0 || !key_equal(prev, k)) { /* a new run */
      r++;
      memcpy((char *)p->values + r * (int64_t)sz, (const char *)p->sorted + i * (int64_t)sz, sz);
      if (p->counts) p->counts[r] = 0;
      if (p->first) p->first[r] = p->perm[i];
    }
    if (p->counts) p->counts[r]++;
    if (p->inverse) p->inverse[p->perm[i]] = r;
    prev = k;
  }
  *p->nruns = r + 1;
}

/* ---- binary search ---- */
static void search_range(int64_t begin, int64_t end, void *arg) {
  const rs_search_plan *p = arg;
  for (int64_t j = begin; j < end; j++) {
    key v = key_at(p->dtype, p->v, j);
    int64_t lo = 0, hi = p->n; /* the answer is in [lo, hi] */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      key s = key_at(p->dtype, p->sorted, mid);
      int go_right = p->right ? !key_less(v, s) : key_less(s, v);
      if (go_right)
        lo = mid + 1;
      else
        hi = mid;
    }
    p->out[j] = lo;
  }
}

void rs_native_search(rs_thread_pool *pool, const rs_search_plan *p) {
  if (rs_native_parallel(pool, p->m * 16))
    rs_native_for(pool, p->m, search_range, (void *)p);
  else
    search_range(0, p->m, (void *)p);
}
