/* Internal: element-by-element copies between strided views in host-addressable memory.
 * Shared by the copy path (gathering and scattering host arrays) and by the simulator
 * backend (its device memory is host memory behind a tag). */
#ifndef RS_CORE_STRIDED_H
#define RS_CORE_STRIDED_H

#include "backend/backend.h"

/* Drop axes of length 1 and merge neighbouring axes that are contiguous in both views,
 * so that a contiguous copy becomes one axis and a transposed one two. */
void rs_strided_collapse(rs_strided_copy *c);

/* Copy on the calling thread. Pointers must be host addresses. */
void rs_strided_copy_host(const rs_strided_copy *c);

/* Fill c from two views of equal shape (pointers at element 0). */
void rs_strided_setup(rs_strided_copy *c, void *dst, const int64_t *dst_strides, const void *src,
                      const int64_t *src_strides, int ndim, const int64_t *shape, size_t itemsize);

#endif
