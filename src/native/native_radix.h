/* Internal: the sorts of one long row, for native_sort.c - the parallel radix sort
 * (native_radix.c) and, where the build has Highway, vqsort on every thread
 * (native_samplesort.c, native_vqsort.cpp). */
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

/* How the sort below makes keys: n keys (of its width) of the row's elements from `first`
 * on, into keys. */
typedef struct rs_keys_maker rs_keys_maker;
struct rs_keys_maker {
  void (*make)(const rs_keys_maker *mk, int64_t first, int64_t n, void *keys);
  rs_dtype dtype;
  const void *src; /* the row's values */
};

/* Sort the keys of a row of n values, w bytes each (4 or 8), into out with Highway's
 * vqsort on every thread (native_samplesort.c): 1 when done, 0 when this build has no
 * vqsort (nothing done). Values only: not stable. out may be the values' own memory only
 * when the row is not split (no pool). */
int rs_vqsort_row(rs_thread_pool *pool, const rs_keys_maker *mk, int w, void *out, int64_t n);

/* Highway's vectorized quicksort of n unsigned keys, ascending (native_vqsort.cpp; only
 * in builds with RS_HOST_VQSORT). Not stable. */
void rs_vqsort_u64(uint64_t *keys, int64_t n);
void rs_vqsort_u32(uint32_t *keys, int64_t n);

#endif
