/* Internal: the sorts of one long row, for native_sort.c - the parallel radix sort
 * (native_radix.c) and, where the build has Highway, vqsort in parallel parts
 * (native_merge.c, native_vqsort.cpp). */
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

/* Sort n keys of w bytes (4 or 8) in k with Highway's vqsort in parallel parts and merges
 * (native_merge.c), k2 the other buffer: 0 when this build has no vqsort (nothing done),
 * 1 when the result is in k, 2 when in k2. Values only: not stable. */
int rs_vqsort_row(rs_thread_pool *pool, int w, void *k, void *k2, int64_t n);

/* Highway's vectorized quicksort of n unsigned keys, ascending (native_vqsort.cpp; only
 * in builds with RS_HOST_VQSORT). Not stable. */
void rs_vqsort_u64(uint64_t *keys, int64_t n);
void rs_vqsort_u32(uint32_t *keys, int64_t n);

#endif
