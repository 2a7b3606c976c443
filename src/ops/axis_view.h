/* Internal: views along one axis that the axis-wise ops (sort on any axis, scans, diff)
 * build their work from - an axis moved last, a reversed axis, a range of an axis. Each
 * is a new view (one reference) of the same buffer; nothing is copied. */
#ifndef RS_OPS_AXIS_VIEW_H
#define RS_OPS_AXIS_VIEW_H

#include <stdint.h>
#include "resident/array.h"

/* axis (already normalised) moved to the end, the others in their order. */
rs_status rs_ops_axis_last(rs_array **out, const rs_array *a, int axis);
/* axis reversed (a negative stride). */
rs_status rs_ops_axis_flip(rs_array **out, const rs_array *a, int axis);
/* elements start .. stop-1 of axis (0 <= start <= stop <= length). */
rs_status rs_ops_axis_range(rs_array **out, const rs_array *a, int axis, int64_t start, int64_t stop);

#endif
