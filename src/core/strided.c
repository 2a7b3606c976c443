#include <string.h>
#include "core/strided.h"

void rs_strided_setup(rs_strided_copy *c, void *dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides, int ndim, const int64_t *shape, size_t itemsize) {
  memset(c, 0, sizeof *c);
  c->dst = dst;
  c->src = src;
  c->ndim = ndim;
  c->itemsize = itemsize;
  for (int i = 0; i < ndim; i++) {
    c->shape[i] = shape[i];
    c->dst_strides[i] = dst_strides[i];
    c->src_strides[i] = src_strides[i];
  }
}

void rs_strided_collapse(rs_strided_copy *c) {
  for (int i = 0; i < c->ndim; i++)
    if (c->shape[i] == 0) { /* empty: nothing to copy */
      c->ndim = 1;
      c->shape[0] = 0;
      return;
    }
  int n = 0;
  for (int i = 0; i < c->ndim; i++) {
    if (c->shape[i] == 1) continue;
    if (n > 0 && c->dst_strides[n - 1] == c->dst_strides[i] * c->shape[i] &&
        c->src_strides[n - 1] == c->src_strides[i] * c->shape[i]) {
      c->shape[n - 1] *= c->shape[i];
      c->dst_strides[n - 1] = c->dst_strides[i];
      c->src_strides[n - 1] = c->src_strides[i];
      continue;
    }
    c->shape[n] = c->shape[i];
    c->dst_strides[n] = c->dst_strides[i];
    c->src_strides[n] = c->src_strides[i];
    n++;
  }
  c->ndim = n;
}

/* The innermost axis, element by element, with a fixed-size move the compiler can inline. */
static void rs_copy_row(char *d, const char *s, int64_t n, int64_t ds, int64_t ss, size_t item) {
  if (ds == (int64_t)item && ss == (int64_t)item) {
    memcpy(d, s, (size_t)n * item);
    return;
  }
#define RS_ROW_CASE(T)                                            \
  for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, sizeof(T)); \
  return;
  switch (item) {
    case 1: RS_ROW_CASE(uint8_t)
    case 2: RS_ROW_CASE(uint16_t)
    case 4: RS_ROW_CASE(uint32_t)
    case 8: RS_ROW_CASE(uint64_t)
    default:
      for (int64_t i = 0; i < n; i++) memcpy(d + i * ds, s + i * ss, item);
  }
#undef RS_ROW_CASE
}

void rs_strided_copy_host(const rs_strided_copy *in) {
  rs_strided_copy c = *in;
  rs_strided_collapse(&c);
  if (c.ndim == 0) { /* a single element */
    memcpy(c.dst, c.src, c.itemsize);
    return;
  }
  if (c.shape[0] == 0) return;
  int inner = c.ndim - 1;
  int64_t index[RS_MAX_DIMS] = {0};
  char *d = c.dst;
  const char *s = c.src;
  for (;;) {
    rs_copy_row(d, s, c.shape[inner], c.dst_strides[inner], c.src_strides[inner], c.itemsize);
    int k = inner - 1;
    while (k >= 0) {
      d += c.dst_strides[k];
      s += c.src_strides[k];
      if (++index[k] < c.shape[k]) break;
      d -= c.dst_strides[k] * c.shape[k];
      s -= c.src_strides[k] * c.shape[k];
      index[k] = 0;
      k--;
    }
    if (k < 0) return;
  }
}
