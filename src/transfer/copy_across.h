/* Internal: the part of the one copy path that joins two contexts (copy_across.c).
 * rs_copy_path calls it when dst and src belong to different contexts. */
#ifndef RS_TRANSFER_COPY_ACROSS_H
#define RS_TRANSFER_COPY_ACROSS_H

#include "transfer/copy.h"

/* Copy src into dst (same shape and dtype, checked by the caller) across contexts, on
 * stream (NULL, or a stream of either context; a peer copy needs the destination's).
 * Returns with the copy finished. */
rs_status rs_copy_across(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause);

#endif
