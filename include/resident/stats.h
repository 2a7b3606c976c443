/* resident/stats.h - statistics and scans of the array API standard: var and std over
 * several axes, cumulative_sum and cumulative_prod along an axis, clip, and diff.
 *
 * They follow the rules of resident/ops.h: they run where the data is (a device operand
 * makes them device ops, ordered on `stream`), every one has a new-array form and an
 * _into form writing into `dst` (the result's shape; a dtype the result casts to under
 * "same_kind"), and a failed call writes nothing and returns no array. Axes as in
 * resident/reduce.h: negative ones count from the end, a repeated or out-of-range axis is
 * RS_ERR_AXIS.
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_STATS_H
#define RESIDENT_STATS_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/ops.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variance and standard deviation over `axes` (naxes of them; axes == NULL: every axis),
 * with `correction` degrees of freedom taken off the count N of reduced elements (the
 * array API's correction, NumPy's ddof: 0 the population variance, 1 the sample one),
 * keepdims as the reductions. Result dtype as NumPy's: float64 for bool and integers,
 * the real dtype of complex input (|x - mean|^2), the input's float dtype otherwise.
 * No cancellation as in the one-pass E[x^2] - E[x]^2, accumulated in float64 for
 * float16 / float32 input: the result is within a few units in the last place of NumPy's
 * two-pass var, tested against it at rtol 1e-5 (float32) and 1e-12 (float64; data like
 * 1e8 + uniform(0, 1) included). float32 / float64 over CONSECUTIVE axes of a
 * C-contiguous array (axes NULL included) is one backend op writing only the result: on
 * the GPU ONE read of the input - each thread sums its values less one of its own, and
 * their squares, in double, turns them into Welford's (count, mean, M2) once, and the
 * states are merged with Chan's parallel formula in a fixed order (CUB's block reduction
 * or shared memory, then the chunks of a row or column in order: deterministic, no
 * atomics); for the last axes a warp or a few per row where many rows of moderate
 * length fill the GPU, else a block per row (long rows cut over many blocks), a block
 * tile of 32 column groups x 8 rows for leading or middle ones (16-byte loads of adjacent
 * columns where aligned). On the host two passes (the mean, then the squared
 * deviations). Both subtract the first element of each output's values first (the
 * variance is shift invariant), so a large mean costs no digits. Other cases (other
 * dtypes, views, axes with gaps) are composed of rs_mean, one fused elementwise pass
 * writing the squared deviations, and rs_sum (about three times the memory traffic).
 * Errors: correction < 0 or NaN is RS_ERR_INVALID_ARGUMENT; N - correction <= 0 (NumPy
 * warns "degrees of freedom <= 0" and returns inf or NaN; an empty reduction included)
 * is RS_ERR_INVALID_ARGUMENT too, nothing written. */
RS_API rs_status rs_var(rs_array **out, const rs_array *a, int naxes, const int *axes, double correction,
                        int keepdims, rs_stream *stream);
RS_API rs_status rs_var_into(rs_array *dst, const rs_array *a, int naxes, const int *axes, double correction,
                             int keepdims, rs_stream *stream);
RS_API rs_status rs_std(rs_array **out, const rs_array *a, int naxes, const int *axes, double correction,
                        int keepdims, rs_stream *stream);
RS_API rs_status rs_std_into(rs_array *dst, const rs_array *a, int naxes, const int *axes, double correction,
                             int keepdims, rs_stream *stream);

/* Inclusive cumulative sum / product along `axis` (RS_ALL_AXES only for a 1-d array; a
 * 0-d array is RS_ERR_AXIS). include_initial: the result is one longer along the axis
 * and starts with the identity (0 or 1). Result dtype (the array API's and NumPy's):
 * int64 for bool and signed integers, uint64 for unsigned ones (wrapping), the input's
 * dtype for floats and complex. float16 is accumulated in float32 (more precise than
 * NumPy's float16 steps). The axis is scanned where it lies (no transpose; a view
 * input is first gathered into a contiguous copy). On the host and the simulator each
 * column is accumulated in order in the result's precision, as NumPy does (equal bit for
 * bit); on the GPU the last axis goes through CUB's DeviceScan (one row: one scan; a
 * batch of rows: one scan by key over the whole array; many long rows: a block per row)
 * and another axis is scanned in one read where the array is wide enough - for 8-byte
 * values and float32 (inner length even: two columns a lane) by tiles of 128 rows of a
 * strip of 32 lanes, each finding its carry by looking back up the strip and adding the
 * totals above left to right; for the others by a block per strip of 32 columns walking
 * down it - else by a chunked column scan (chunk totals, their scan, each chunk
 * rescanned from its offset). GPU float sums
 * associate differently: within a few units in the last place times log2(n); those of
 * CUB's DeviceScan (one row, scan by key) may vary from run to run in the last bits (its
 * look-back), the block-per-row and column scans are deterministic. */
RS_API rs_status rs_cumulative_sum(rs_array **out, const rs_array *a, int axis, int include_initial,
                                   rs_stream *stream);
RS_API rs_status rs_cumulative_sum_into(rs_array *dst, const rs_array *a, int axis, int include_initial,
                                        rs_stream *stream);
RS_API rs_status rs_cumulative_prod(rs_array **out, const rs_array *a, int axis, int include_initial,
                                    rs_stream *stream);
RS_API rs_status rs_cumulative_prod_into(rs_array *dst, const rs_array *a, int axis, int include_initial,
                                         rs_stream *stream);

/* clip: minimum(maximum(a, lo), hi) elementwise, as NumPy 2's np.clip - lo and hi
 * broadcast against a, either may be NULL (no bound; both NULL copies a), NaN in any
 * operand gives NaN, lo > hi gives hi. The result dtype is NumPy's promotion of the
 * operands (array bounds promote; rs_clip_scalar's bounds are weak scalars, NEP 50, so
 * an int8 array clipped by integers stays int8, and an integer bound outside the array's
 * integer range is clamped to it, as NumPy 2's clip does). Complex is RS_ERR_DTYPE (not
 * ordered). Mismatched shapes are RS_ERR_BROADCAST. */
RS_API rs_status rs_clip(rs_array **out, const rs_array *a, const rs_array *lo, const rs_array *hi,
                         rs_stream *stream);
RS_API rs_status rs_clip_into(rs_array *dst, const rs_array *a, const rs_array *lo, const rs_array *hi,
                              rs_stream *stream);
RS_API rs_status rs_clip_scalar(rs_array **out, const rs_array *a, const rs_scalar *lo, const rs_scalar *hi,
                                rs_stream *stream);
RS_API rs_status rs_clip_scalar_into(rs_array *dst, const rs_array *a, const rs_scalar *lo, const rs_scalar *hi,
                                     rs_stream *stream);

/* diff: the n-th discrete difference along `axis`, out[i] = a[i+1] - a[i] applied n
 * times (n >= 0; n = 0 gives a copy), as np.diff: `prepend` and `append` (either may
 * be NULL) are joined to a along the axis first - each with a's shape except along the
 * axis (RS_ERR_SHAPE otherwise) - and their dtype joins the promotion. bool uses
 * not_equal (NumPy's), other dtypes subtract (integers wrap). The result is shorter by n
 * along the axis (0 when n exceeds its length). A 0-d array is RS_ERR_AXIS; n < 0 is
 * RS_ERR_INVALID_ARGUMENT. */
RS_API rs_status rs_diff(rs_array **out, const rs_array *a, int n, int axis, const rs_array *prepend,
                         const rs_array *append, rs_stream *stream);
RS_API rs_status rs_diff_into(rs_array *dst, const rs_array *a, int n, int axis, const rs_array *prepend,
                              const rs_array *append, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
