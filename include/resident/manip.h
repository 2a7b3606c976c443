/* resident/manip.h - the array API standard's manipulation and creation functions:
 * concat, stack, unstack, expand_dims, flip, moveaxis, permute_dims, repeat, roll,
 * squeeze, tile, broadcast_to, broadcast_arrays, meshgrid, tril, triu, and astype with the
 * standard's copy flag. NumPy 2's semantics.
 *
 * VIEWS OR COPIES. The functions named rs_array_* here are views, as NumPy's are
 * (expand_dims, permute_dims, moveaxis, squeeze, broadcast_to, broadcast_arrays,
 * unstack): they never copy or launch anything, the result shares the buffer (resident/
 * array.h, views) and nothing is ordered on a stream. A broadcast view has stride 0 on its
 * broadcast axes: read it, copy it (rs_copy), do not write into it (every write to one
 * element would land on the same bytes). The others (concat, stack, flip, repeat, roll,
 * tile, meshgrid, tril, triu) make an independent array, and follow ops.h's RESULTS: a
 * new array, or the `_into` form writing into dst (any view of the result's shape, of a
 * dtype the result casts to under "same_kind"). They run where their data is (ops.h,
 * WHERE AN OP RUNS), as copies through the one strided-copy kernel (resident's elementwise
 * machinery, generated for the layout on the GPU): concat is one copy per input into a
 * slice of the result, flip one copy from a view with negative strides, roll two copies per
 * rolled axis, tile and a scalar repeat one copy from a broadcast view. A dst that shares
 * memory with an input is written through a temporary, so the result is as if the inputs
 * were read first.
 *
 * AXES. Negative axes count from the end. An axis out of range or given twice is
 * RS_ERR_AXIS; shapes that do not fit are RS_ERR_SHAPE; a negative count (repeats) is
 * RS_ERR_INVALID_ARGUMENT; on failure nothing is written and nothing returned.
 * RS_ALL_AXES (resident/array.h) stands for the standard's axis=None where it takes one:
 * the arrays are flattened in C order first.
 *
 * Thread safety: as ops.h (the functions are thread-safe; writes into the same memory from
 * several threads race).
 */
#ifndef RESIDENT_MANIP_H
#define RESIDENT_MANIP_H

#include "resident/export.h"

#include <stdint.h>
#include "resident/array.h"
#include "resident/stream.h"
#include "resident/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- views ------------------------------------------------------------------------- */

/* Insert naxes axes of length 1; axes index the RESULT (ndim + naxes axes), as the
 * standard's expand_dims with a tuple. Repeated or out of range: RS_ERR_AXIS. */
RS_API rs_status rs_array_expand_dims_axes(rs_array **out, const rs_array *a, int naxes, const int *axes);

/* Remove the naxes listed axes, each of which must have length 1 (RS_ERR_SHAPE otherwise):
 * the standard's squeeze(x, axis). (rs_array_squeeze removes one axis or all of length 1.) */
RS_API rs_status rs_array_squeeze_axes(rs_array **out, const rs_array *a, int naxes, const int *axes);

/* The standard's name of rs_array_permute: axis i of the result is axis axes[i] of a. */
RS_API rs_status rs_array_permute_dims(rs_array **out, const rs_array *a, const int *axes);

/* Move axes source[i] to positions destination[i] (i < naxes); the other axes keep their
 * order. Each list must be free of repeats (RS_ERR_AXIS). */
RS_API rs_status rs_array_moveaxis(rs_array **out, const rs_array *a, int naxes, const int *source,
                                   const int *destination);

/* a broadcast to shape (NumPy's rules: a's axes align to the right, each of length 1 or
 * equal; RS_ERR_BROADCAST otherwise). A view with stride 0 on the broadcast axes: read
 * only by convention (see VIEWS OR COPIES). */
RS_API rs_status rs_array_broadcast_to(rs_array **out, const rs_array *a, int ndim, const int64_t *shape);

/* The n arrays broadcast against each other: outs[i] is a view of arrays[i] with the
 * common shape (read only by convention), one reference each (release every one). On
 * failure no outs[i] is set. */
RS_API rs_status rs_array_broadcast_arrays(rs_array **outs, int n, const rs_array *const *arrays);

/* Split a along axis into its shape[axis] slices, each without that axis: outs must have
 * room for nouts == shape[axis] views (RS_ERR_SHAPE when nouts differs), one reference
 * each. 0-d a: RS_ERR_AXIS. */
RS_API rs_status rs_array_unstack(rs_array **outs, int64_t nouts, const rs_array *a, int axis);

/* ---- copies ------------------------------------------------------------------------ */

/* Join n >= 1 arrays along an existing axis: every other axis must agree (RS_ERR_SHAPE),
 * and 0-d arrays cannot be joined along an axis (RS_ERR_AXIS). axis RS_ALL_AXES joins
 * them flattened (a 1-d result). The result dtype is the arrays' promoted dtype. */
RS_API rs_status rs_concat(rs_array **out, int n, const rs_array *const *arrays, int axis, rs_stream *stream);
RS_API rs_status rs_concat_into(rs_array *dst, int n, const rs_array *const *arrays, int axis,
                                rs_stream *stream);

/* Join n >= 1 arrays of one shape along a NEW axis (0 .. ndim of the result - 1). */
RS_API rs_status rs_stack(rs_array **out, int n, const rs_array *const *arrays, int axis, rs_stream *stream);
RS_API rs_status rs_stack_into(rs_array *dst, int n, const rs_array *const *arrays, int axis, rs_stream *stream);

/* Reverse the order of the elements along the naxes axes; axes == NULL reverses every axis. */
RS_API rs_status rs_flip(rs_array **out, const rs_array *a, int naxes, const int *axes, rs_stream *stream);
RS_API rs_status rs_flip_into(rs_array *dst, const rs_array *a, int naxes, const int *axes, rs_stream *stream);

/* Shift elements along axes, those pushed past the end coming back at the start:
 * result[(i + shift) mod n] = a[i]. shifts has nshifts entries for the nshifts axes; an
 * axis given twice adds its shifts (NumPy). axes == NULL rolls the flattened array by
 * shifts[0] (nshifts must be 1) and keeps a's shape. */
RS_API rs_status rs_roll(rs_array **out, const rs_array *a, int nshifts, const int64_t *shifts, const int *axes,
                         rs_stream *stream);
RS_API rs_status rs_roll_into(rs_array *dst, const rs_array *a, int nshifts, const int64_t *shifts,
                              const int *axes, rs_stream *stream);

/* Repeat each element along axis: repeats[0] times each when nrepeats is 1, else
 * repeats[i] times element i (nrepeats must be the axis's length, RS_ERR_SHAPE). Counts
 * are host values >= 0. axis RS_ALL_AXES repeats the flattened array (a 1-d result). Each
 * run of equal counts is one copy, so a scalar count is one copy whatever the size - and
 * per-element counts that all differ cost one copy (one launch on the GPU) per element. */
RS_API rs_status rs_repeat(rs_array **out, const rs_array *a, int64_t nrepeats, const int64_t *repeats, int axis,
                           rs_stream *stream);
RS_API rs_status rs_repeat_into(rs_array *dst, const rs_array *a, int64_t nrepeats, const int64_t *repeats,
                                int axis, rs_stream *stream);

/* a repeated reps[i] times along each axis (reps >= 0): the shorter of a's shape and reps
 * is padded with leading 1s, as NumPy's tile. */
RS_API rs_status rs_tile(rs_array **out, const rs_array *a, int nreps, const int64_t *reps, rs_stream *stream);
RS_API rs_status rs_tile_into(rs_array *dst, const rs_array *a, int nreps, const int64_t *reps, rs_stream *stream);

/* ---- creation ---------------------------------------------------------------------- */

/* Matrix indexing ("ij": outs[i] has shape (N0, N1, ...)) or Cartesian ("xy": the first
 * two lengths swapped), as the standard's meshgrid. */
typedef enum rs_meshgrid_indexing { RS_MESHGRID_XY = 0, RS_MESHGRID_IJ = 1 } rs_meshgrid_indexing;

/* From n >= 1 one-dimensional arrays, n coordinate arrays: outs[i] holds arrays[i]'s
 * values along its axis and keeps its dtype. Each is a new array (NumPy's copy=True; one
 * reference each). On
 * failure no outs[i] is set (new) or some dsts may be written (_into: every dst is checked
 * first, so only a failure of the device itself leaves them half written). */
RS_API rs_status rs_meshgrid(rs_array **outs, int n, const rs_array *const *arrays, rs_meshgrid_indexing indexing,
                             rs_stream *stream);
RS_API rs_status rs_meshgrid_into(rs_array *const *dsts, int n, const rs_array *const *arrays,
                                  rs_meshgrid_indexing indexing, rs_stream *stream);

/* The lower (tril: j - i <= k) or upper (triu: j - i >= k) triangle of each matrix of the
 * last two axes (a needs ndim >= 2, RS_ERR_SHAPE), the rest 0. k = 0 is the diagonal. */
RS_API rs_status rs_tril(rs_array **out, const rs_array *a, int64_t k, rs_stream *stream);
RS_API rs_status rs_tril_into(rs_array *dst, const rs_array *a, int64_t k, rs_stream *stream);
RS_API rs_status rs_triu(rs_array **out, const rs_array *a, int64_t k, rs_stream *stream);
RS_API rs_status rs_triu_into(rs_array *dst, const rs_array *a, int64_t k, rs_stream *stream);

/* The standard's astype(x, dtype, copy=): copy != 0 is rs_astype (always a new array);
 * copy == 0 gives a itself (one more reference, nothing copied or queued) when its dtype is
 * already `dtype`, else a new converted array. The new array is C-ordered as rs_astype's. */
RS_API rs_status rs_astype_copy(rs_array **out, const rs_array *a, rs_dtype dtype, int copy, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
