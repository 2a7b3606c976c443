#include <string.h>
#include "core/checked.h"
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

static int64_t rs_abs64(int64_t v) { return v < 0 ? -v : v; }

void rs_strided_plan_make(rs_strided_plan *p, const rs_strided_copy *c, void *dst, const void *src) {
  p->dst = dst;
  p->src = src;
  p->itemsize = c->itemsize;
  p->total = 1;
  int n = 0;
  for (int d = 0; d < c->ndim; d++) {
    p->total *= c->shape[d];
    if (c->shape[d] == 1) continue;
    p->shape[n] = c->shape[d];
    p->ds[n] = c->dst_strides[d];
    p->ss[n] = c->src_strides[d];
    /* Reversed on both sides: walk both forwards from the other end instead. */
    if (p->ds[n] < 0 && p->ss[n] < 0) {
      p->dst += p->ds[n] * (p->shape[n] - 1);
      p->src += p->ss[n] * (p->shape[n] - 1);
      p->ds[n] = -p->ds[n];
      p->ss[n] = -p->ss[n];
    }
    n++;
  }
  /* Largest destination stride outermost, so writes go forward through memory. */
  for (int i = 1; i < n; i++) {
    int64_t sh = p->shape[i], d = p->ds[i], s = p->ss[i];
    int j = i;
    for (; j > 0 && rs_abs64(p->ds[j - 1]) < rs_abs64(d); j--) {
      p->shape[j] = p->shape[j - 1];
      p->ds[j] = p->ds[j - 1];
      p->ss[j] = p->ss[j - 1];
    }
    p->shape[j] = sh;
    p->ds[j] = d;
    p->ss[j] = s;
  }
  int m = 0;
  for (int d = 0; d < n; d++) {
    if (m > 0 && rs_stride_follows(p->ds[m - 1], p->ds[d], p->shape[d]) &&
        rs_stride_follows(p->ss[m - 1], p->ss[d], p->shape[d])) {
      p->shape[m - 1] *= p->shape[d];
      p->ds[m - 1] = p->ds[d];
      p->ss[m - 1] = p->ss[d];
      continue;
    }
    p->shape[m] = p->shape[d];
    p->ds[m] = p->ds[d];
    p->ss[m] = p->ss[d];
    m++;
  }
  if (m == 0) {
    p->shape[0] = 1;
    p->ds[0] = p->ss[0] = (int64_t)p->itemsize;
    m = 1;
  }
  p->ndim = m;
}

static void rs_copy_row(char *dst, const char *src, int64_t n, int64_t ds, int64_t ss, size_t itemsize) {
  if (ds == (int64_t)itemsize && ss == (int64_t)itemsize) {
    memmove(dst, src, (size_t)n * itemsize); /* a copy within one buffer may overlap */
    return;
  }
  /* Constant sizes let the compiler turn each memcpy into one load and one store. */
  switch (itemsize) {
    case 1: for (int64_t i = 0; i < n; i++) dst[i * ds] = src[i * ss]; break;
    case 2: for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 2); break;
    case 4: for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 4); break;
    case 8: for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, 8); break;
    default: for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, itemsize); break;
  }
}

void rs_strided_copy_range(int64_t begin, int64_t end, void *plan) {
  const rs_strided_plan *p = plan;
  int in = p->ndim - 1;
  int64_t idx[RS_MAX_DIMS];
  int64_t doff = 0, soff = 0, rem = begin;
  for (int d = in; d >= 0; d--) {
    idx[d] = rem % p->shape[d];
    rem /= p->shape[d];
    doff += idx[d] * p->ds[d];
    soff += idx[d] * p->ss[d];
  }
  int64_t left = end - begin;
  while (left > 0) {
    int64_t n = p->shape[in] - idx[in];
    if (n > left) n = left;
    rs_copy_row(p->dst + doff, p->src + soff, n, p->ds[in], p->ss[in], p->itemsize);
    left -= n;
    if (left == 0) return;
    doff -= idx[in] * p->ds[in];
    soff -= idx[in] * p->ss[in];
    idx[in] = 0;
    for (int d = in - 1; d >= 0; d--) {
      doff += p->ds[d];
      soff += p->ss[d];
      if (++idx[d] < p->shape[d]) break;
      doff -= p->shape[d] * p->ds[d];
      soff -= p->shape[d] * p->ss[d];
      idx[d] = 0;
    }
  }
}

void rs_strided_copy_host(const rs_strided_copy *c) {
  rs_strided_plan p;
  rs_strided_plan_make(&p, c, c->dst, c->src);
  if (p.total > 0) rs_strided_copy_range(0, p.total, &p);
}
