/* resident/graph.h - graphs: capture work queued on a stream once, replay it cheaply.
 *
 * Between rs_graph_begin_capture(s) and rs_graph_end_capture(&g, s), the kernel launches,
 * array operations and copies queued on stream s are not run: they are recorded into a
 * graph (CUDA stream capture; on the simulator the queued work items are kept). Each
 * rs_graph_launch(g, stream) then queues the whole sequence again, in order, for the price
 * of about one launch - the per-kernel launch cost of a 10-kernel chain drops to a
 * fraction of launching each kernel.
 *
 *   rs_stream *s;  rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING);
 *   rs_graph_begin_capture(s);
 *   for (int k = 0; k < 10; k++) launch_axpb(dev, s);   // recorded, not run
 *   rs_graph *g;  rs_graph_end_capture(&g, s);
 *   for (int i = 0; i < 100; i++) rs_graph_launch(g, s);  // 100 x 10 kernels
 *   rs_stream_synchronize(s);  rs_graph_destroy(g);
 *
 * What a capture may hold: launches of user kernels on device (or mapped) arrays, array
 * operations on device arrays into existing arrays (the _into forms), and explicit copies
 * between device memory and pinned (or mapped) host memory, contiguous. A replay uses the
 * same memory with the values it holds at the time: arrays a graph uses must stay alive
 * until its last replay has finished. Scalars and launch configurations are those of the
 * capture.
 *
 * Refused during a capture, each with a message that names the call and the stream (CUDA
 * itself would report only that the capture was invalidated):
 *   - an implicit copy (a host array passed to a launch): RS_ERR_TRANSFER_REFUSED;
 *   - a copy that needs the host: a pageable side, or a non-contiguous host side:
 *     RS_ERR_TRANSFER_REFUSED (the transfer guard, whatever its mode);
 *   - a copy on the legacy default stream: RS_ERR_TRANSFER_REFUSED;
 *   - a host wait on the captured stream, the legacy default stream or the whole device
 *     (rs_stream_synchronize, rs_context_synchronize, ...): RS_ERR_STATE;
 *   - rs_event_record and rs_stream_wait_event on the captured stream, and launching a
 *     graph into it: RS_ERR_STATE.
 * The refused call does nothing; the capture goes on and can still be ended.
 *
 * The ledger (resident/ledger.h) records nothing while a capture runs; each replay is
 * one entry (RS_ENTRY_GRAPH) whose copies, bytes and kernels are counted in the totals
 * as if each had been queued alone, so a replayed pipeline counts the same copies as the
 * one it was captured from.
 *
 * Thread safety: capture on a stream from one thread at a time; different streams may be
 * captured at once (up to 8 per context). Launching and destroying graphs is thread-safe.
 */
#ifndef RESIDENT_GRAPH_H
#define RESIDENT_GRAPH_H

#include "resident/export.h"

#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_graph rs_graph;

/* Start recording the work queued on s (a stream from rs_stream_create or rs_stream_wrap;
 * the context's built-in streams cannot be captured: RS_ERR_INVALID_ARGUMENT). The work
 * queued on s before this call still runs as usual. RS_ERR_STATE if s is being captured
 * already, RS_ERR_LIMIT when 8 captures are open in the context. */
RS_API rs_status rs_graph_begin_capture(rs_stream *s);

/* Stop recording on s and make the graph of what was recorded (*out, owned by the caller:
 * rs_graph_destroy). An empty capture makes a graph that does nothing. RS_ERR_STATE if s
 * is not being captured. On a failure the capture is over and nothing is kept. */
RS_API rs_status rs_graph_end_capture(rs_graph **out, rs_stream *s);

/* Queue one replay of g on stream (NULL = the context's default stream); returns without
 * waiting. Recorded by the ledger as one entry with g's contents counted. */
RS_API rs_status rs_graph_launch(rs_graph *g, rs_stream *stream);

/* What one replay of g holds: its kernels, copies and bytes moved (any pointer may be
 * NULL). */
RS_API rs_status rs_graph_get_counts(const rs_graph *g, int64_t *kernels, int64_t *copies, int64_t *bytes);

/* Destroy g. Replays already queued complete first (the simulator waits for them here;
 * CUDA finishes them in the background). NULL is RS_OK; a destroyed graph is
 * RS_ERR_DESTROYED. */
RS_API rs_status rs_graph_destroy(rs_graph *g);

#ifdef __cplusplus
}
#endif
#endif
