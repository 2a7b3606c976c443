/* Internal: what a NULL stream means in a call that names no context (rs_stream_synchronize
 * (NULL), ...): the legacy default stream of every live context of the process. The
 * context layer registers each context here for its lifetime. */
#ifndef RS_STREAM_DEFAULT_STREAMS_H
#define RS_STREAM_DEFAULT_STREAMS_H

#include "resident/stream.h"

rs_status rs_default_streams_add(rs_context *ctx);
/* 1 if ctx was registered (and is now removed), 0 if it is not a live context. */
int rs_default_streams_remove(rs_context *ctx);

rs_status rs_default_streams_synchronize(void);
rs_status rs_default_streams_query(int *done);
rs_status rs_default_streams_callback(rs_host_fn fn, void *user_data);
rs_status rs_default_streams_auto_begin(void);
rs_status rs_default_streams_auto_end(void);

#endif
