/* Internal: stream handles as the layers above see them. */
#ifndef RS_STREAM_STREAM_H
#define RS_STREAM_STREAM_H

#include "core/objects.h"

/* Resolve a stream argument to the backend handle: NULL = legacy default stream.
 * Errors for destroyed streams and streams of another context. */
rs_status rs_stream_resolve(rs_context *ctx, rs_stream *s, void **native, const char *who);

/* A stream of ctx for the library's own use, on a native stream kept from an earlier
 * borrower or a new one; give it back with rs_stream_give_back (not rs_stream_destroy).
 * Work still queued on it when it is given back stays ordered before the next borrower's.
 * Thread-safe. */
rs_status rs_stream_borrow(rs_stream **out, rs_context *ctx);
void rs_stream_give_back(rs_stream *s);
/* Context teardown, after the last buffer: destroy the kept native streams. */
void rs_stream_spares_destroy(rs_context *ctx);

#endif
