/* Internal: the parallel radix sort of one long row (native_radix.c), for native_sort.c. */
#ifndef RS_NATIVE_RADIX_H
#define RS_NATIVE_RADIX_H

#include "native/native.h"

/* The most slices a row is cut into (one per thread up to this). */
#define RS_RADIX_SLICES 8

/* Scratch bytes the sort needs besides the second key (and index) buffer. */
size_t rs_radix_scratch(void);

/* Stable sort of n keys of w bytes (4 or 8) in k, with indices ix alongside when not NULL;
 * k2/ix2 are the other buffers. Returns 1 if the result ended in k2/ix2. */
int rs_radix_sort(rs_thread_pool *pool, int w, void *k, int64_t *ix, void *k2, int64_t *ix2, int64_t n,
                  void *scratch);

#endif
