/* resident/sets.h - the array API standard's set functions: unique_values, unique_counts,
 * unique_inverse, unique_all, with NumPy 2's semantics (np.unique_values ... of NumPy 2,
 * which are np.unique(x, ..., equal_nan=False) flattened):
 *
 *   - x is flattened; values are its distinct elements in ascending order (NaN last).
 *   - Equality is ==: every NaN is distinct, so k NaNs give k NaN values (each with count
 *     1); -0.0 and 0.0 are one value (the one the sort put first).
 *   - indices (int64): for each value, the index in the flattened x of its FIRST
 *     occurrence; inverse (int64, x's shape - the standard's, as NumPy 2's unique_inverse
 *     and unique_all): the position in values of each element of x, so values[inverse]
 *     == x (NaN aside); counts (int64): how often each value occurs.
 *   - Every dtype but complex (RS_ERR_DTYPE: complex numbers are not ordered here). An
 *     empty x gives empty results; a 0-d x is one element.
 *
 * How: a sort (values only) or a stable argsort (when indices or inverse are asked for)
 * of the flattened x - on the GPU CUB's radix sorts - then the runs of equal values (on
 * the GPU CUB's DeviceRunLengthEncode::Encode, and DeviceScan for inverse and indices; at
 * most 2^31 - 1 elements there, else RS_ERR_UNSUPPORTED). The number of distinct values
 * is data-dependent: it is read back once - one 8-byte device-to-host read that the ledger
 * records as an implicit copy caused by the function - and the results are then made of
 * exactly that length.
 *
 * Results are new arrays through the out-parameters, or written into the _into forms'
 * destinations, which must have exactly the results' shapes (RS_ERR_SHAPE, checked after
 * the count is read and before anything is written) and dtypes (x's for values, int64
 * for the rest: RS_ERR_DTYPE). On failure nothing is returned or written.
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_SETS_H
#define RESIDENT_SETS_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

RS_API rs_status rs_unique_values(rs_array **values, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_values_into(rs_array *values, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_counts(rs_array **values, rs_array **counts, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_counts_into(rs_array *values, rs_array *counts, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_inverse(rs_array **values, rs_array **inverse, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_inverse_into(rs_array *values, rs_array *inverse, const rs_array *x,
                                        rs_stream *stream);
RS_API rs_status rs_unique_all(rs_array **values, rs_array **indices, rs_array **inverse, rs_array **counts,
                               const rs_array *x, rs_stream *stream);
RS_API rs_status rs_unique_all_into(rs_array *values, rs_array *indices, rs_array *inverse, rs_array *counts,
                                    const rs_array *x, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
