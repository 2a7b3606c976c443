/* Internal: shape and stride arithmetic, overflow-checked. */
#ifndef RS_CORE_LAYOUT_H
#define RS_CORE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "resident/array.h"

/* Check ndim and shape (no negative extent) and count elements without overflow.
 * `who` names the caller in messages. */
rs_status rs_layout_count(int64_t *elements, int ndim, const int64_t *shape, const char *who);

/* Contiguous byte strides for order C or F; fails on byte-count overflow. */
rs_status rs_layout_contiguous_strides(int64_t *strides, int ndim, const int64_t *shape,
                                       size_t itemsize, rs_order order, const char *who);

/* Validate user strides for a new allocation (non-negative, multiples of the item size,
 * no two elements overlap) and return the bytes the allocation needs. */
rs_status rs_layout_alloc_bytes(size_t *bytes, int ndim, const int64_t *shape,
                                const int64_t *strides, size_t itemsize, const char *who);

int rs_layout_is_c_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                              size_t itemsize);
int rs_layout_is_f_contiguous(int ndim, const int64_t *shape, const int64_t *strides,
                              size_t itemsize);

/* Lowest and highest byte offsets (relative to element 0) touched by a view; both 0
 * for an empty view (then *empty = 1). 1 when they overflow int64 (never for an array:
 * src/memory/array.c refuses such a layout), else 0. */
int rs_layout_extent(int64_t *low, int64_t *high, int *empty, int ndim, const int64_t *shape,
                     const int64_t *strides, size_t itemsize);

/* "(3, 4)" into buf. */
const char *rs_layout_shape_str(char *buf, size_t len, int ndim, const int64_t *shape);

#endif
