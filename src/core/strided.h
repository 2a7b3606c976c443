/* Internal: element-by-element copies between strided views in host-addressable memory.
 * Written once, used by the copy path (gathering and scattering host arrays) and by the
 * simulator backend (its device memory is host memory behind a tag), which spreads the
 * ranges of a plan over its threads. */
#ifndef RS_CORE_STRIDED_H
#define RS_CORE_STRIDED_H

#include <stddef.h>
#include <stdint.h>
#include "resident/array.h"

/* An element-by-element copy between two strided views of device-reachable memory
 * (device, mapped-device-alias or managed). Pointers address element 0; strides are
 * in bytes and may be negative or zero (src only). */
typedef struct rs_strided_copy {
  void *dst;
  const void *src;
  int ndim;
  size_t itemsize; /* 1, 2, 4, 8 or 16 */
  int64_t shape[RS_MAX_DIMS];
  int64_t dst_strides[RS_MAX_DIMS];
  int64_t src_strides[RS_MAX_DIMS];
} rs_strided_copy;

#ifdef __cplusplus
extern "C" {
#endif

/* A copy reduced to few long axes; pointers are host addresses. */
typedef struct rs_strided_plan {
  char *dst;
  const char *src;
  size_t itemsize;
  int ndim; /* >= 1 */
  int64_t total;
  int64_t shape[RS_MAX_DIMS];
  int64_t ds[RS_MAX_DIMS], ss[RS_MAX_DIMS];
} rs_strided_plan;

/* Fill c from two views of equal shape (pointers at element 0). */
void rs_strided_setup(rs_strided_copy *c, void *dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides, int ndim, const int64_t *shape, size_t itemsize);

/* Plan c with host addresses dst and src (c's own pointers may be device addresses):
 * axes of length 1 dropped, axes reversed on both sides walked forwards, the largest
 * destination stride outermost, and axes contiguous in both views merged - so a
 * contiguous copy becomes one memcpy and a transposed one two nested loops. */
void rs_strided_plan_make(rs_strided_plan *p, const rs_strided_copy *c, void *dst, const void *src);

/* Copy elements [begin, end) of the plan's C-order walk (ranges may run in parallel). */
void rs_strided_copy_range(int64_t begin, int64_t end, void *plan);

/* The whole copy on the calling thread. Pointers in c must be host addresses. */
void rs_strided_copy_host(const rs_strided_copy *c);

#ifdef __cplusplus
}
#endif

#endif
