/* resident/indexing.h - indexing and searching: take, take_along_axis, put (integer-array
 * reads and writes), boolean masks (reads and writes), nonzero, count_nonzero,
 * searchsorted. NumPy 2 semantics (the array API standard's functions of these names).
 *
 * They follow resident/ops.h: they run where the data is (device arrays on the device,
 * host arrays on the host; a host operand of a device op is copied in implicitly and
 * recorded), results are new C-order arrays through `rs_array **out` or are written into
 * `dst` in the _into forms (exactly the result's shape; the dtype exactly the result's for
 * index results, one the result casts to "same_kind" otherwise). Every dtype is accepted
 * as data; indices are any integer dtype (bool and floats are RS_ERR_DTYPE). On failure
 * nothing is written and nothing is returned.
 *
 * INDICES. An index i along an axis of length n is valid in [-n, n); a negative one counts
 * from the end (NumPy's wrap). Any other is RS_ERR_INDEX, found BEFORE anything is
 * written: the op first reduces the indices to their min and max and reads those two
 * values back (one small device-to-host read for device indices, recorded by the ledger
 * as an implicit copy caused by the op - so a transfer guard that disallows implicit D2H
 * copies refuses it, by name). Empty indices read nothing.
 *
 * BOOLEAN MASKS. The length of a masked read (and of nonzero, and of the unique_* results
 * of resident/sets.h) depends on the data: after the compaction on the device the op
 * reads the count back - one 8-byte device-to-host read, recorded by the ledger as an
 * implicit copy whose cause names the op - and waits for it. A mask is a bool array whose
 * shape equals the first mask.ndim axes of the array (1 <= mask.ndim <= a.ndim); any other
 * shape or dtype is RS_ERR_SHAPE / RS_ERR_DTYPE.
 *
 * ON THE GPU compaction is CUB's DeviceSelect::Flagged over the flags, gathers and scatters
 * are small kernels, searchsorted is a binary search per value; on the host and the
 * simulator the same native loops (src/native/native_index.c).
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_INDEXING_H
#define RESIDENT_INDEXING_H

#include "resident/export.h"

#include <limits.h>
#include "resident/array.h"
#include "resident/ops.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `axis` of rs_take and rs_put that means "the flattened array" (NumPy's axis=None):
 * the array is read in C order as one axis. */
#define RS_INDEX_FLAT INT_MIN

/* out = a.take(indices, axis): along `axis` (negative counts from the end) the elements at
 * `indices` (any shape, any integer dtype): the result's shape is a.shape[:axis] +
 * indices.shape + a.shape[axis+1:] and its dtype a's. RS_INDEX_FLAT takes from the
 * flattened array (result shape indices.shape). A 0-d array has no axis (RS_ERR_AXIS)
 * but may be taken from flattened; taking any index from an empty axis is RS_ERR_INDEX. */
RS_API rs_status rs_take(rs_array **out, const rs_array *a, const rs_array *indices, int axis, rs_stream *stream);
RS_API rs_status rs_take_into(rs_array *dst, const rs_array *a, const rs_array *indices, int axis,
                              rs_stream *stream);

/* out = take_along_axis(a, indices, axis): indices has a's ndim; along `axis` result
 * element [.., j, ..] is a[.., indices[.., j, ..], ..]; the other axes broadcast between a
 * and indices (as NumPy: the result has indices' length along axis and the broadcast
 * shape elsewhere). The axis of rs_argsort's result, for instance. */
RS_API rs_status rs_take_along_axis(rs_array **out, const rs_array *a, const rs_array *indices, int axis,
                                    rs_stream *stream);
RS_API rs_status rs_take_along_axis_into(rs_array *dst, const rs_array *a, const rs_array *indices, int axis,
                                         rs_stream *stream);

/* a[(:,)*axis, indices] = values: integer-array indexing for writes (NumPy's a[idx] = v
 * for axis 0, np.put for RS_INDEX_FLAT). values broadcast to the shape rs_take would
 * give and are cast to a's dtype "same_kind" (else RS_ERR_DTYPE). Where indices repeat,
 * the LAST element in C order of the indexed positions wins - on every backend (the GPU
 * resolves it with a pass that finds each destination's last writer). a may be any view;
 * values may overlap a (they are read first). */
RS_API rs_status rs_put(rs_array *a, const rs_array *indices, int axis, const rs_array *values, rs_stream *stream);

/* out = a[mask]: the elements (or sub-arrays, for a mask of fewer axes) where mask is
 * true, in C order: shape (count,) + a.shape[mask.ndim:]. One read of the count (above). */
RS_API rs_status rs_mask_get(rs_array **out, const rs_array *a, const rs_array *mask, rs_stream *stream);
RS_API rs_status rs_mask_get_into(rs_array *dst, const rs_array *a, const rs_array *mask, rs_stream *stream);

/* a[mask] = values: values broadcast to (count,) + a.shape[mask.ndim:] and are cast
 * "same_kind" to a's dtype (one read of the count, above, unless values is a single
 * element). rs_mask_set_scalar: a[mask] = s, one elementwise pass, no read. */
RS_API rs_status rs_mask_set(rs_array *a, const rs_array *mask, const rs_array *values, rs_stream *stream);
RS_API rs_status rs_mask_set_scalar(rs_array *a, const rs_array *mask, rs_scalar s, rs_stream *stream);

/* out = the indices of a's nonzero elements (NaN and -0.0 as NumPy: NaN is nonzero, -0.0
 * is not), as one int64 array of shape (a.ndim, count): row k holds the indices along axis
 * k, in C order - row k is NumPy's nonzero(a)[k]. A 0-d array is RS_ERR_AXIS (NumPy 2
 * refuses it too). One read of the count (above). */
RS_API rs_status rs_nonzero(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_nonzero_into(rs_array *dst, const rs_array *a, rs_stream *stream);

/* out = count_nonzero(a, axes, keepdims): int64 counts of nonzero elements over the axes
 * (resident/reduce.h's axes: axes == NULL counts over every axis, giving a 0-d array). No
 * read: the counts stay where a is. */
RS_API rs_status rs_count_nonzero(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                                  rs_stream *stream);
RS_API rs_status rs_count_nonzero_into(rs_array *dst, const rs_array *a, int naxes, const int *axes, int keepdims,
                                       rs_stream *stream);

typedef enum rs_side { RS_SIDE_LEFT = 0, RS_SIDE_RIGHT = 1 } rs_side;

/* out = searchsorted(a, v, side, sorter): for each element of v (any shape) the int64
 * index where it would be inserted into the 1-d array a to keep it sorted - the first
 * such index (left) or the last (right). a must be sorted ascending (NaN last, as
 * rs_sort leaves it), or sorter (int64 or any integer dtype, a's length, NULL for none)
 * the permutation that sorts it (rs_argsort's result): a[sorter] is then searched. The
 * result has v's shape. a and v are compared in their promoted dtype (NumPy's result
 * type); complex is RS_ERR_DTYPE (not ordered here), an a of ndim != 1 RS_ERR_SHAPE, a
 * sorter out of range RS_ERR_INDEX (checked as indices are, above). */
RS_API rs_status rs_searchsorted(rs_array **out, const rs_array *a, const rs_array *v, rs_side side,
                                 const rs_array *sorter, rs_stream *stream);
RS_API rs_status rs_searchsorted_into(rs_array *dst, const rs_array *a, const rs_array *v, rs_side side,
                                      const rs_array *sorter, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
