/* Events: a record is a task on the stream; the event is complete once the recording
 * stream has finished that task, so completion is read off the stream's own counter
 * and an event can be waited on, or destroyed, independently of the stream's life.
 * The timestamp is taken when the worker reaches the record, as a GPU stamps it when the
 * stream gets there, not when the host asked. */
#include <stdlib.h>
#include <time.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

static rs_status resolve_event(rs_backend *b, void *handle, const char *what, sim_event **out) {
  if (!handle) return rs_fail(RS_ERR_NULL_POINTER, "%s: event is NULL", what);
  sim_event *ev = handle;
  if (ev->magic != SIM_EVENT_MAGIC || ev->b != b)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %p is not an event of this simulator context",
                   what, handle);
  *out = ev;
  return RS_OK;
}

static void event_free_locked(rs_backend *b, sim_event *ev) {
  if (ev->prev)
    ev->prev->next = ev->next;
  else
    b->events = ev->next;
  if (ev->next) ev->next->prev = ev->prev;
  if (ev->sig) sim_signal_unref_locked(ev->sig);
  ev->magic = 0;
  free(ev);
}

static void event_unref_locked(rs_backend *b, sim_event *ev) {
  if (--ev->refs == 0) event_free_locked(b, ev);
}

void sim_event_free_all_locked(rs_backend *b) {
  while (b->events) event_free_locked(b, b->events);
}

rs_status sim_event_create(rs_backend *b, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim event_create: out is NULL");
  if (flags & ~RS_EVENT_DISABLE_TIMING)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim event_create: unknown flags 0x%x",
                   flags & ~RS_EVENT_DISABLE_TIMING);
  sim_event *ev = calloc(1, sizeof *ev);
  if (!ev) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim event_create: out of host memory");
  ev->magic = SIM_EVENT_MAGIC;
  ev->b = b;
  ev->flags = flags;
  ev->refs = 1;
  pthread_mutex_lock(&b->lock);
  ev->next = b->events;
  if (b->events) b->events->prev = ev;
  b->events = ev;
  pthread_mutex_unlock(&b->lock);
  *out = ev;
  return RS_OK;
}

rs_status sim_event_destroy(rs_backend *b, void *handle) {
  sim_event *ev = NULL;
  RS_TRY(resolve_event(b, handle, "sim event_destroy", &ev));
  pthread_mutex_lock(&b->lock);
  if (ev->destroyed) {
    pthread_mutex_unlock(&b->lock);
    return rs_fail(RS_ERR_DESTROYED, "sim event_destroy(%p): destroyed twice", handle);
  }
  /* A pending record holds its own reference, so destroying now is fine (as in CUDA). */
  ev->destroyed = 1;
  event_unref_locked(b, ev);
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}

typedef struct record_task {
  sim_event *ev;
  uint64_t gen;
} record_task;

static void run_record(void *arg) {
  record_task *r = arg;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  rs_backend *b = r->ev->b;
  pthread_mutex_lock(&b->lock);
  /* Records may finish out of order on different streams; only a newer one overwrites. */
  if (r->gen > r->ev->ts_gen) {
    r->ev->ts_gen = r->gen;
    r->ev->ts_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
  }
  event_unref_locked(b, r->ev);
  pthread_mutex_unlock(&b->lock);
}

rs_status sim_event_record(rs_backend *b, void *handle, void *stream) {
  sim_event *ev = NULL;
  sim_stream *s = NULL;
  RS_TRY(resolve_event(b, handle, "sim event_record", &ev));
  RS_TRY(sim_resolve_stream(b, stream, "sim event_record", &s));
  record_task *r = malloc(sizeof *r);
  if (!r) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim event_record: out of host memory");
  pthread_mutex_lock(&b->lock);
  rs_status st;
  if (ev->destroyed) {
    st = rs_fail(RS_ERR_DESTROYED, "sim event_record(%p): event was destroyed", handle);
  } else {
    r->ev = ev;
    r->gen = ev->gen + 1;
    uint64_t seq;
    st = sim_enqueue_locked(b, s, run_record, r, free, NULL, 0, &seq);
    if (st == RS_OK) {
      /* Under the same lock as the enqueue: the worker cannot reach the task before the
       * reference it will drop exists. */
      ev->gen++;
      ev->refs++;
      s->done->refs++;
      if (ev->sig) sim_signal_unref_locked(ev->sig);
      ev->sig = s->done;
      ev->seq = seq;
    }
  }
  pthread_mutex_unlock(&b->lock);
  if (st != RS_OK) free(r);
  return st;
}

static int complete_locked(const sim_event *ev) { return !ev->sig || ev->sig->value >= ev->seq; }

rs_status sim_event_query(rs_backend *b, void *handle, int *done) {
  if (!done) return rs_fail(RS_ERR_NULL_POINTER, "sim event_query: done is NULL");
  sim_event *ev = NULL;
  RS_TRY(resolve_event(b, handle, "sim event_query", &ev));
  pthread_mutex_lock(&b->lock);
  *done = complete_locked(ev);
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}

rs_status sim_event_synchronize(rs_backend *b, void *handle) {
  sim_event *ev = NULL;
  RS_TRY(resolve_event(b, handle, "sim event_synchronize", &ev));
  pthread_mutex_lock(&b->lock);
  sim_signal *sig = ev->sig;
  if (sig) {
    /* Our own reference: the event may be re-recorded or destroyed while we wait. */
    uint64_t target = ev->seq;
    sig->refs++;
    sim_signal_wait_locked(b, sig, target);
    sim_signal_unref_locked(sig);
  }
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}

static void run_nothing(void *arg) { (void)arg; }

rs_status sim_stream_wait_event(rs_backend *b, void *stream, void *handle) {
  sim_stream *s = NULL;
  sim_event *ev = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim stream_wait_event", &s));
  RS_TRY(resolve_event(b, handle, "sim stream_wait_event", &ev));
  rs_status st = RS_OK;
  pthread_mutex_lock(&b->lock);
  /* A never-recorded or completed event imposes nothing, as in CUDA. The wait captures
   * the record that is latest now; later records do not move it. */
  if (!complete_locked(ev)) {
    sim_dep dep = {ev->sig, ev->seq};
    st = sim_enqueue_locked(b, s, run_nothing, NULL, NULL, &dep, 1, NULL);
  }
  pthread_mutex_unlock(&b->lock);
  return st;
}

rs_status sim_event_elapsed_ms(rs_backend *b, float *ms, void *start, void *end) {
  if (!ms) return rs_fail(RS_ERR_NULL_POINTER, "sim event_elapsed_ms: ms is NULL");
  sim_event *e[2] = {NULL, NULL};
  RS_TRY(resolve_event(b, start, "sim event_elapsed_ms (start)", &e[0]));
  RS_TRY(resolve_event(b, end, "sim event_elapsed_ms (end)", &e[1]));
  static const char *const which[2] = {"start", "end"};
  rs_status st = RS_OK;
  pthread_mutex_lock(&b->lock);
  for (int i = 0; i < 2 && st == RS_OK; i++) {
    if (!e[i]->sig)
      st = rs_fail(RS_ERR_STATE, "sim event_elapsed_ms: the %s event was never recorded", which[i]);
    else if (e[i]->flags & RS_EVENT_DISABLE_TIMING)
      st = rs_fail(RS_ERR_STATE, "sim event_elapsed_ms: the %s event was created with timing disabled",
                   which[i]);
  }
  for (int i = 0; i < 2 && st == RS_OK; i++)
    if (!complete_locked(e[i]))
      st = rs_fail(RS_ERR_NOT_READY, "sim event_elapsed_ms: the %s event has not completed yet",
                   which[i]);
  if (st == RS_OK) *ms = (float)((double)(e[1]->ts_ns - e[0]->ts_ns) / 1e6);
  pthread_mutex_unlock(&b->lock);
  return st;
}
