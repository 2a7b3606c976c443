/* Internal: overflow-checked integer arithmetic, the one set used for every shape,
 * stride, step, offset and element count the library computes from what a caller gave
 * it. Each returns 1 when the exact result does not fit (then *out is unspecified) and 0
 * otherwise, so a caller reads `if (rs_mul_i64(a, b, &c)) return rs_fail(...)`.
 *
 * Arrays keep an invariant built on these (src/memory/array.c checks it for every new
 * array and view): the element count times the item size, and every byte offset a view
 * reaches, fit in int64. Code that walks an existing array may multiply its shapes and
 * strides freely; code that builds a new shape, stride or offset uses these. */
#ifndef RS_CORE_CHECKED_H
#define RS_CORE_CHECKED_H

#include <stddef.h>
#include <stdint.h>

static inline int rs_mul_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline int rs_add_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_add_overflow(a, b, out);
}
static inline int rs_sub_i64(int64_t a, int64_t b, int64_t *out) {
  return __builtin_sub_overflow(a, b, out);
}
static inline int rs_mul_size(size_t a, size_t b, size_t *out) {
  return __builtin_mul_overflow(a, b, out);
}
static inline int rs_add_size(size_t a, size_t b, size_t *out) {
  return __builtin_add_overflow(a, b, out);
}

/* 1 when one step of `outer` bytes is n steps of `inner` (two axes that merge into one);
 * a product past int64 is no match. */
static inline int rs_stride_follows(int64_t outer, int64_t inner, int64_t n) {
  int64_t p;
  return !rs_mul_i64(inner, n, &p) && p == outer;
}

/* ceil(a / b) for a >= 0 and b > 0, without forming a + b - 1 (which overflows near
 * INT64_MAX). */
static inline int64_t rs_ceil_div_i64(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* Elements of a slice from start towards stop (exclusive) in steps of step (non-zero),
 * for start and stop already inside [-1, n]: no intermediate overflows, whatever the
 * step (INT64_MIN and INT64_MAX included). */
static inline int64_t rs_slice_count(int64_t start, int64_t stop, int64_t step) {
  if (step > 0) return stop > start ? 1 + (stop - start - 1) / step : 0;
  /* start - stop - 1 >= 0 and a division by a negative step truncates towards zero, so
   * -(d / step) is d / |step| without ever forming |step|. */
  return start > stop ? 1 - (start - stop - 1) / step : 0;
}

#endif
