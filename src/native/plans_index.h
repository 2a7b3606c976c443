/* Internal: the plans of indexing, searching and sets (resident/indexing.h, sets.h) - what
 * the ops layer (src/ops/indexing*.c, sets.c) hands to the native loops (native_index.c)
 * and the device tables (src/backend/ops_table.h). Indices are already checked: every
 * index is in [-axis_len, axis_len). Included by C and CUDA C++ files. */
#ifndef RS_NATIVE_PLANS_INDEX_H
#define RS_NATIVE_PLANS_INDEX_H

#include <stdint.h>
#include "resident/array.h"
#include "resident/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gather or scatter along one axis of `data`. The iteration runs over `shape` (ndim dims,
 * count elements, C order): element at coordinates c reads / writes
 *   vals + sum c[k] * vals_strides[k]                               (the gathered result,
 *                                                                     or the values put)
 *   data + sum c[k] * data_strides[k] + wrap(i) * axis_stride        (the indexed array)
 * where i = *(int64_t *)(idx + sum c[k] * idx_strides[k]) and wrap(i) = i < 0 ? i +
 * axis_len : i. Strides are in bytes; 0 broadcasts. gather: vals = data[...]; scatter:
 * data[...] = vals, and when several elements reach one data element the LAST in C order
 * wins (data_ids / axis_id number the data elements 0 .. data_size-1 for that).
 * scatter == 2: the indices are known distinct (a mask's positions): no two elements reach
 * one data element, so there is no last writer to find. */
typedef struct rs_index_plan {
  int scatter; /* 0 gather, 1 scatter, 2 scatter to distinct elements */
  int itemsize; /* 1, 2, 4, 8 or 16 */
  int ndim;     /* >= 1 */
  int64_t count; /* > 0 */
  int64_t shape[RS_MAX_DIMS];
  char *data;
  int64_t data_strides[RS_MAX_DIMS];
  int64_t axis_len, axis_stride;
  const char *idx;
  int64_t idx_strides[RS_MAX_DIMS];
  char *vals;
  int64_t vals_strides[RS_MAX_DIMS];
  int64_t data_ids[RS_MAX_DIMS], axis_id, data_size;
} rs_index_plan;

/* Compaction: positions[0 .. k) = the i in [0, n) with flags[i] != 0, ascending; *count =
 * k (both device memory on the device tables). flags are n contiguous bytes. n > 0.
 * With values (n contiguous elements of itemsize 1, 2, 4, 8 or 16 bytes) the selected
 * elements themselves go to out instead (positions is then NULL): a masked read in one
 * pass, out holding exactly k elements (the count is known before). */
typedef struct rs_select_plan {
  int64_t n;
  const uint8_t *flags;
  int64_t *positions;
  int64_t *count;
  const char *values;
  int itemsize;
  char *out;
} rs_select_plan;

/* Runs of equal values in `sorted` (n > 0 contiguous elements of dtype, ascending, NaN
 * last; equality is ==, so every NaN is a run of its own and -0.0 joins 0.0): values[r]
 * = the first element of run r, counts[r] = its length, *nruns = the number of runs.
 * With perm (the stable order that sorted the input: sorted[i] = input[perm[i]]),
 * first[r] = perm of the run's first element and inverse[perm[i]] = the run of i. Any
 * output but values and nruns may be NULL. Outputs hold n elements. */
typedef struct rs_unique_plan {
  rs_dtype dtype; /* not complex */
  int64_t n;
  const void *sorted;
  const int64_t *perm;
  void *values;
  int64_t *counts, *first, *inverse, *nruns;
} rs_unique_plan;

/* out[j] = the insertion point of v[j] in sorted (n >= 0 contiguous elements, ascending,
 * NaN last): the first i with !(sorted[i] < v[j]) (left) or v[j] < sorted[i] (right), as
 * NumPy's searchsorted. v: m > 0 contiguous elements of the same dtype (not complex). */
typedef struct rs_search_plan {
  rs_dtype dtype;
  int right;
  int64_t n, m;
  const void *sorted;
  const void *v;
  int64_t *out;
} rs_search_plan;

#ifdef __cplusplus
}
#endif
#endif
