/* The NULL stream of the stream-only calls: every live context's legacy default stream,
 * as cudaStreamSynchronize(0) covers the whole device. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/objects.h"
#include "stream/default_streams.h"

/* Live contexts. The lock is held while their streams are used, so a context cannot be
 * destroyed under a NULL-stream call (callbacks never call into the library). */
static pthread_mutex_t rs_live_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_context **rs_live;
static size_t rs_nlive, rs_live_cap;
static _Atomic int rs_null_auto_depth;

rs_status rs_default_streams_add(rs_context *ctx) {
  pthread_mutex_lock(&rs_live_lock);
  if (rs_nlive == rs_live_cap) {
    size_t cap = rs_live_cap ? 2 * rs_live_cap : 8;
    rs_context **grown = realloc(rs_live, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&rs_live_lock);
      return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_context_create: out of host memory");
    }
    rs_live = grown;
    rs_live_cap = cap;
  }
  rs_live[rs_nlive++] = ctx;
  pthread_mutex_unlock(&rs_live_lock);
  return RS_OK;
}

int rs_default_streams_remove(rs_context *ctx) {
  int found = 0;
  pthread_mutex_lock(&rs_live_lock);
  for (size_t i = 0; i < rs_nlive && !found; i++)
    if (rs_live[i] == ctx) {
      rs_live[i] = rs_live[--rs_nlive];
      found = 1;
    }
  if (rs_nlive == 0) {
    free(rs_live);
    rs_live = NULL;
    rs_live_cap = 0;
  }
  pthread_mutex_unlock(&rs_live_lock);
  return found;
}

rs_status rs_default_streams_each(rs_status (*visit)(rs_stream *legacy, void *arg), void *arg) {
  rs_status first = RS_OK;
  pthread_mutex_lock(&rs_live_lock);
  for (size_t i = 0; i < rs_nlive; i++) {
    rs_status st = visit(&rs_live[i]->legacy, arg);
    if (first == RS_OK) first = st;
  }
  pthread_mutex_unlock(&rs_live_lock);
  return first;
}

rs_status rs_default_streams_auto_begin(void) {
  atomic_fetch_add(&rs_null_auto_depth, 1);
  return RS_OK;
}

rs_status rs_default_streams_auto_end(void) {
  int depth = atomic_load(&rs_null_auto_depth);
  do {
    if (depth <= 0)
      return rs_fail(RS_ERR_STATE, "rs_stream_auto_synchronize_end: no scope was begun on the NULL stream");
  } while (!atomic_compare_exchange_weak(&rs_null_auto_depth, &depth, depth - 1));
  return RS_OK;
}
