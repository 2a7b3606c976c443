/* resident/sort.h - sort and argsort along the last axis (rs_sort, rs_argsort) or any
 * axis (rs_sort_axis, rs_argsort_axis: the array API's sort(x, axis, descending, stable)).
 *
 * Integer, bool and float dtypes (float16 included); complex is RS_ERR_DTYPE. NaN sorts
 * last, as in NumPy (whatever its sign bit). Both sorts are stable, so argsort equals
 * NumPy's argsort(kind="stable"): -0.0 and 0.0 count as equal there (they keep their
 * order); rs_sort may put -0.0 before 0.0 (equal values either way). On the GPU they are
 * CUB radix sorts (several rows: two stable passes over the whole array, by key then by
 * row); on the host and the simulator an LSD radix sort of the same keys per row, a
 * long row (65536 elements and more) spread over the host's threads, and a long row of
 * rs_sort (values: stability cannot show) sorted by Highway's vectorized quicksort in
 * parallel parts and merges where the library was built with it (libhwy-dev). Every way
 * gives the same values on any number of threads.
 * A 0-d array is RS_ERR_AXIS. Results as in resident/ops.h (a new array, or the _into
 * form's dst): rs_sort_into(a, a, stream) sorts in place; argsort gives int64 indices
 * along the last axis.
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_SORT_H
#define RESIDENT_SORT_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

RS_API rs_status rs_sort(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_sort_into(rs_array *dst, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_argsort(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_argsort_into(rs_array *dst, const rs_array *a, rs_stream *stream);

/* Along `axis` (negative counts from the end; out of range is RS_ERR_AXIS), ascending or
 * descending. The axis is moved last and its rows sorted as above (a gather of the input
 * and a scatter of the result when the axis is not the last, each at copy speed).
 * descending is the array API's STABLE descending order, as array_api_compat gives it
 * for NumPy: the reverse of the ascending sort of the reversed axis - NaNs first, equal
 * elements in their original order (argsort: the first of equal elements first).
 * `stable` is accepted for the standard's signature; every sort here is stable. */
RS_API rs_status rs_sort_axis(rs_array **out, const rs_array *a, int axis, int descending, int stable,
                              rs_stream *stream);
RS_API rs_status rs_sort_axis_into(rs_array *dst, const rs_array *a, int axis, int descending, int stable,
                                   rs_stream *stream);
RS_API rs_status rs_argsort_axis(rs_array **out, const rs_array *a, int axis, int descending, int stable,
                                 rs_stream *stream);
RS_API rs_status rs_argsort_axis_into(rs_array *dst, const rs_array *a, int axis, int descending, int stable,
                                      rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
