/* Internal: what a NULL stream means in a call that names no context (rs_stream_synchronize
 * (NULL), ...): the legacy default stream of every live context of the process. The
 * context layer registers each context here for its lifetime. */
#ifndef RS_STREAM_DEFAULT_STREAMS_H
#define RS_STREAM_DEFAULT_STREAMS_H

#include "resident/stream.h"

rs_status rs_default_streams_add(rs_context *ctx);
/* 1 if ctx was registered (and is now removed), 0 if it is not a live context. */
int rs_default_streams_remove(rs_context *ctx);

/* visit(legacy stream, arg) for every live context, under the registry's lock (so no
 * context is destroyed meanwhile); the first failure is returned, every context visited. */
rs_status rs_default_streams_each(rs_status (*visit)(rs_stream *legacy, void *arg), void *arg);
/* The depth of rs_stream_auto_synchronize_begin(NULL) scopes; end fails with none open
 * (the caller then synchronizes). */
rs_status rs_default_streams_auto_begin(void);
rs_status rs_default_streams_auto_end(void);

#endif
