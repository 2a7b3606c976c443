/* Graphs on the simulator: while a stream records, each work item queued on it (a copy, a
 * kernel launch, an op, a callback) is kept instead of run; a launch queues the kept items
 * again, in order, on the target stream, where they run exactly as the first time would
 * have. The items' arguments belong to the graph and are freed when it is destroyed. */
#include <stdlib.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* The recording itself (sim_graph, sim_graph_record_locked, sim_graph_discard) lives with
 * the queue it diverts, in sim_stream.c. */

rs_status sim_graph_begin(rs_backend *b, void *stream) {
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim graph_begin", &s));
  if (s == b->legacy) return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim graph_begin: the legacy default stream");
  sim_graph *g = calloc(1, sizeof *g);
  if (!g) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim graph_begin: out of host memory");
  g->magic = SIM_GRAPH_MAGIC;
  g->b = b;
  pthread_mutex_lock(&b->lock);
  rs_status st = RS_OK;
  if (s->recording)
    st = rs_fail(RS_ERR_STATE, "sim graph_begin: stream %p is being captured already", stream);
  else
    s->recording = g;
  pthread_mutex_unlock(&b->lock);
  if (st != RS_OK) free(g);
  return st;
}

rs_status sim_graph_end(rs_backend *b, void *stream, void **graph) {
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim graph_end", &s));
  pthread_mutex_lock(&b->lock);
  sim_graph *g = s->recording;
  s->recording = NULL;
  pthread_mutex_unlock(&b->lock);
  if (!g) return rs_fail(RS_ERR_STATE, "sim graph_end: stream %p is not being captured", stream);
  *graph = g;
  return RS_OK;
}

rs_status sim_graph_launch(rs_backend *b, void *graph, void *stream) {
  sim_graph *g = graph;
  if (!g || g->magic != SIM_GRAPH_MAGIC || g->b != b)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim graph_launch: %p is not a graph of this context", graph);
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim graph_launch", &s));
  pthread_mutex_lock(&b->lock);
  rs_status st = RS_OK;
  if (s->recording) st = rs_fail(RS_ERR_STATE, "sim graph_launch: stream %p is being captured", stream);
  /* The items stay the graph's: queued without their cleanup. */
  for (size_t i = 0; st == RS_OK && i < g->n; i++)
    st = sim_enqueue_locked(b, s, g->items[i].run, g->items[i].arg, NULL, NULL, 0, NULL);
  pthread_mutex_unlock(&b->lock);
  return st;
}

rs_status sim_graph_destroy(rs_backend *b, void *graph) {
  sim_graph *g = graph;
  if (!g || g->magic != SIM_GRAPH_MAGIC || g->b != b)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim graph_destroy: %p is not a graph of this context", graph);
  /* Replays still queued read the items' arguments: let them finish first. */
  RS_TRY(sim_synchronize_all(b));
  sim_graph_discard(g);
  return RS_OK;
}
