/* Internal: what the manipulation ops (src/ops/manip_*.c) share - axis lists, the result
 * of a copy op (with a temporary where dst shares memory with an input), and views built
 * from explicit shapes and strides. */
#ifndef RS_OPS_MANIP_INTERNAL_H
#define RS_OPS_MANIP_INTERNAL_H

#include "ops/ops_internal.h"
#include "resident/manip.h"

/* Normalise naxes axes of an ndim-dimensional array into norm (negative ones count from
 * the end): RS_ERR_AXIS when one is out of range or, unless repeats_ok, given twice. */
rs_status rs_manip_axes(int *norm, int naxes, const int *axes, int ndim, int repeats_ok, const char *who);

/* The result of a copy op. target is where the op writes: the caller's dst, a new array,
 * or a C-contiguous temporary when dst shares a buffer with an input (or is not
 * C-contiguous and the op asked for one), copied into dst by rs_manip_end. */
typedef struct rs_manip_out {
  rs_ops_result r;
  rs_array *target;
  rs_array *tmp;
  rs_context *ctx;
  rs_stream *stream;
  const char *who;
} rs_manip_out;

/* Check the n inputs (context, handles), make or check the result of shape/dtype. */
rs_status rs_manip_begin(rs_manip_out *m, rs_array **io, int n, const rs_array *const *in, int ndim,
                         const int64_t *shape, rs_dtype dtype, int need_contiguous, rs_stream *stream,
                         const char *who);
/* After the op ran with status st: copy a temporary back, hand a new result over. */
rs_status rs_manip_end(rs_manip_out *m, rs_status st);

/* A view of a with the given layout (offset in bytes from a's element 0). */
rs_status rs_manip_view(rs_array **out, const rs_array *a, int ndim, const int64_t *shape, const int64_t *strides,
                        int64_t offset);

/* dst[.., start:start+count, ..] along axis (a view). */
rs_status rs_manip_range(rs_array **out, const rs_array *a, int axis, int64_t start, int64_t count);

/* Copy src (broadcast, cast "same_kind") into dst: rs_copy_into, or the copy path's
 * strided copy where it is a plain move between device arrays. */
rs_status rs_manip_copy(rs_array *dst, const rs_array *src, rs_stream *stream);

/* The same (rs_manip_copy) with dst and src released after (either may be
 * NULL when making it failed; st is then returned as it is). */
rs_status rs_manip_copy_release(rs_array *dst, rs_array *src, rs_status st, rs_stream *stream);

#endif
