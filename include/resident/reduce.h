/* resident/reduce.h - reductions along axes: sum, prod, mean, min, max, argmin, argmax,
 * all, any.
 *
 * They follow the rules of resident/ops.h: they run where the data is, return a new
 * array through `rs_array **out` or write into `dst` in the _into forms (the result's
 * shape and a dtype the result casts to), and the result of a device reduction stays on the device -
 * a full reduction gives a 0-d device array, and its value reaches the host only through
 * rs_array_item_to_host (recorded by the ledger).
 *
 * Axes: `axes` lists naxes axes (negative ones count from the end; a repeated or out of
 * range axis is RS_ERR_AXIS); axes == NULL reduces every axis. keepdims keeps reduced
 * axes with length 1, so the result broadcasts against the input.
 *
 * Result dtypes (NumPy's): sum and prod of bool and signed integers give int64, of
 * unsigned integers uint64, of floats and complex their own dtype; mean of integers
 * gives float64, of floats and complex their own dtype; min and max keep the dtype;
 * argmin and argmax give int64; all and any give bool. Sums and means of float16 and
 * float32 are accumulated in float64 (more than NumPy's float32, never less), integers
 * in 64 bits with wrap-around. NaN propagates through sum, prod, mean, min and max;
 * argmin/argmax return the first NaN's index; the first of equal extremes wins.
 * min, max, argmin and argmax of an empty reduction are RS_ERR_SHAPE (no identity);
 * sum of nothing is 0, prod 1, mean NaN, all true, any false. Complex numbers have no
 * order here: min/max/argmin/argmax of complex are RS_ERR_DTYPE.
 *
 * On the GPU: a whole contiguous array through CUB's DeviceReduce; reductions whose
 * elements form contiguous runs of 32 or more (the last axes) through a block per output
 * (chunked when long); the others - over a leading axis, over several non-adjacent axes
 * (sum over (0, 2) of a 3-d array), over short inner axes - through a thread per (output,
 * chunk) with consecutive threads on consecutive elements, the inner reduced axes kept
 * as outputs of that pass and merged in a final one; float32/64 sums and means along one
 * middle axis whose kept axes lie innermost and contiguous (sum over axis 0 of a matrix,
 * 32 columns or more) through tiles of 32 column groups x 8 rows with 16-byte loads
 * (95% of the device's copy bandwidth on an H200). Partial results are always combined
 * in a fixed order: results do not depend on timing.
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_REDUCE_H
#define RESIDENT_REDUCE_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_reduce_op {
  RS_REDUCE_SUM = 0,
  RS_REDUCE_PROD,
  RS_REDUCE_MEAN,
  RS_REDUCE_MIN,
  RS_REDUCE_MAX,
  RS_REDUCE_ARGMIN,
  RS_REDUCE_ARGMAX,
  RS_REDUCE_ALL,
  RS_REDUCE_ANY,
  RS_REDUCE_COUNT
} rs_reduce_op;

/* "sum", "prod", ...; "invalid" otherwise. */
RS_API const char *rs_reduce_op_name(rs_reduce_op op);

/* The general form. argmin / argmax take one axis or all (then the index is into the
 * array flattened in C order). */
RS_API rs_status rs_reduce(rs_array **out, rs_reduce_op op, const rs_array *a, int naxes,
                    const int *axes, int keepdims, rs_stream *stream);
RS_API rs_status rs_reduce_into(rs_array *dst, rs_reduce_op op, const rs_array *a, int naxes,
                         const int *axes, int keepdims, rs_stream *stream);

RS_API rs_status rs_sum(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                 rs_stream *stream);
RS_API rs_status rs_sum_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                      int keepdims, rs_stream *stream);
RS_API rs_status rs_prod(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                  rs_stream *stream);
RS_API rs_status rs_prod_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                       int keepdims, rs_stream *stream);
RS_API rs_status rs_mean(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                  rs_stream *stream);
RS_API rs_status rs_mean_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                       int keepdims, rs_stream *stream);
RS_API rs_status rs_min(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                 rs_stream *stream);
RS_API rs_status rs_min_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                      int keepdims, rs_stream *stream);
RS_API rs_status rs_max(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                 rs_stream *stream);
RS_API rs_status rs_max_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                      int keepdims, rs_stream *stream);
RS_API rs_status rs_all(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                 rs_stream *stream);
RS_API rs_status rs_all_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                      int keepdims, rs_stream *stream);
RS_API rs_status rs_any(rs_array **out, const rs_array *a, int naxes, const int *axes, int keepdims,
                 rs_stream *stream);
RS_API rs_status rs_any_into(rs_array *dst, const rs_array *a, int naxes, const int *axes,
                      int keepdims, rs_stream *stream);
/* axis RS_ALL_AXES: over the flattened array. */
RS_API rs_status rs_argmin(rs_array **out, const rs_array *a, int axis, int keepdims, rs_stream *stream);
RS_API rs_status rs_argmin_into(rs_array *dst, const rs_array *a, int axis, int keepdims,
                         rs_stream *stream);
RS_API rs_status rs_argmax(rs_array **out, const rs_array *a, int axis, int keepdims, rs_stream *stream);
RS_API rs_status rs_argmax_into(rs_array *dst, const rs_array *a, int axis, int keepdims,
                         rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
