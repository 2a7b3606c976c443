/* resident/stream.h - streams, events and host callbacks.
 *
 * A stream is an in-order queue of device work. Work on different streams may overlap.
 * A NULL rs_stream * means the default stream in every call: in a call that also names a
 * context, an array, a kernel or an event (copies, ops, launches, rs_event_record,
 * rs_stream_wait_event) it is that context's legacy default stream - it waits for all
 * blocking streams and they wait for it; in a call that takes only a stream
 * (rs_stream_synchronize, rs_stream_query, rs_stream_add_callback,
 * rs_stream_auto_synchronize_*) it is the legacy default stream of every live context of
 * the process, as stream 0 covers the whole device in CUDA: synchronize waits for all of
 * them, query is done when all are, a callback runs once all have reached it.
 *
 * Handles of destroyed streams and events stay recognisable until their context is
 * destroyed: using one returns RS_ERR_DESTROYED instead of crashing.
 *
 * Thread safety: all calls are thread-safe; work enqueued on one stream from several
 * threads is ordered by the order the calls happen.
 */
#ifndef RESIDENT_STREAM_H
#define RESIDENT_STREAM_H

#include "resident/export.h"

#include "resident/array.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_event rs_event;

/* Flags for rs_stream_create. */
#define RS_STREAM_NON_BLOCKING 0x1u /* does not synchronize with the legacy default stream */

/* A new stream, owned by the caller (rs_stream_destroy). */
RS_API rs_status rs_stream_create(rs_stream **out, rs_context *ctx, unsigned flags);

/* The context's built-in streams. They belong to the context: never destroy them
 * (rs_stream_destroy on them is RS_ERR_INVALID_ARGUMENT). rs_stream_legacy(ctx) is what
 * NULL means in calls that name ctx. */
RS_API rs_stream *rs_stream_legacy(rs_context *ctx);      /* legacy default stream (what NULL means) */
RS_API rs_stream *rs_stream_per_thread(rs_context *ctx);  /* the calling thread's default stream */

/* Wrap an external stream handle (a cudaStream_t on the CUDA backend; on the simulator,
 * a handle from rs_stream_native, checked to be live: anything else is
 * RS_ERR_INVALID_ARGUMENT). CUDA offers no way to tell a stray pointer from a live
 * cudaStream_t, so there the caller vouches for it. The external owner keeps ownership of
 * the handle; rs_stream_destroy frees only the wrapper. */
RS_API rs_status rs_stream_wrap(rs_stream **out, rs_context *ctx, void *native_handle);

/* The backend's handle (cudaStream_t on CUDA). NULL means the legacy default stream. */
RS_API void *rs_stream_native(rs_stream *s);

/* Destroy a stream: work already queued still completes (the simulator waits for it here;
 * CUDA returns at once and finishes it in the background). NULL is RS_OK; a destroyed
 * stream is RS_ERR_DESTROYED. */
RS_API rs_status rs_stream_destroy(rs_stream *s);

/* Block the host until all work queued on s has finished. */
RS_API rs_status rs_stream_synchronize(rs_stream *s);

/* Non-blocking: *done = 1 if all work queued on s has finished, else 0. */
RS_API rs_status rs_stream_query(rs_stream *s, int *done);

/* Run fn(user_data) on a host thread once all work queued before it on s has finished.
 * The callback must not call into resident (as with cudaLaunchHostFunc). */
typedef void (*rs_host_fn)(void *user_data);
RS_API rs_status rs_stream_add_callback(rs_stream *s, rs_host_fn fn, void *user_data);

/* Make later work on s wait until ev has completed (the host does not wait). */
RS_API rs_status rs_stream_wait_event(rs_stream *s, rs_event *ev);

/* Scoped auto-synchronize (Numba's `with stream.auto_synchronize()`): end synchronizes s
 * and returns its status. Scopes nest per stream; end without begin is RS_ERR_STATE. */
RS_API rs_status rs_stream_auto_synchronize_begin(rs_stream *s);
RS_API rs_status rs_stream_auto_synchronize_end(rs_stream *s);

/* Flags for rs_event_create. */
#define RS_EVENT_DISABLE_TIMING 0x1u
/* Shareable with another process (rs_ipc_event_export, resident/ipc.h); needs
 * RS_EVENT_DISABLE_TIMING too, as CUDA's interprocess events do. */
#define RS_EVENT_INTERPROCESS 0x2u

/* A new event, owned by the caller (rs_event_destroy). Timing is on by default. */
RS_API rs_status rs_event_create(rs_event **out, rs_context *ctx, unsigned flags);
/* NULL is RS_OK; a destroyed event is RS_ERR_DESTROYED. */
RS_API rs_status rs_event_destroy(rs_event *ev);

/* Capture the work queued on s so far; the event completes when that work has. */
RS_API rs_status rs_event_record(rs_event *ev, rs_stream *s);

/* Block the host until the last record of ev has completed (immediately if never recorded). */
RS_API rs_status rs_event_synchronize(rs_event *ev);

/* Non-blocking: *done = 1 if the last record has completed (or it was never recorded). */
RS_API rs_status rs_event_query(rs_event *ev, int *done);

/* Milliseconds between two completed events (device clock). RS_ERR_NOT_READY if either
 * has not completed, RS_ERR_STATE if either was never recorded or has timing disabled. */
RS_API rs_status rs_event_elapsed_ms(rs_event *start, rs_event *end, float *ms);

#ifdef __cplusplus
}
#endif
#endif
