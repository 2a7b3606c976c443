/* Internal: stream handles as the layers above see them. */
#ifndef RS_STREAM_STREAM_H
#define RS_STREAM_STREAM_H

#include "core/objects.h"

/* Resolve a stream argument to the backend handle: NULL = legacy default stream.
 * Errors for destroyed streams and streams of another context. */
rs_status rs_stream_resolve(rs_context *ctx, rs_stream *s, void **native, const char *who);

#endif
