/* Events: a record is a task on the stream; the event is complete once the recording
 * stream has finished that task, so completion is read off the stream's own counter
 * and an event can be waited on, or destroyed, independently of the stream's life.
 * The timestamp is taken when the worker reaches the record, as a GPU stamps it when the
 * stream gets there, not when the host asked.
 *
 * Interprocess events keep their state in a page of shared memory (a memfd, opened by the
 * other process as device memory is, sim_ipc.c): a record bumps `recorded` and its task
 * raises `completed`; waits compare the two. A stream that waits on one runs a task that
 * polls until the record it waits for has completed - in whichever process recorded it. */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
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
  if (ev->ipc) sim_shm_unmap(ev->ipc, sizeof *ev->ipc, ev->ipc_fd);
  ev->magic = 0;
  free(ev);
}

static void event_unref_locked(rs_backend *b, sim_event *ev) {
  if (--ev->refs == 0) event_free_locked(b, ev);
}

void sim_event_free_all_locked(rs_backend *b) {
  while (b->events) event_free_locked(b, b->events);
}

/* List a new event; ipc / fd: its shared page, if interprocess. */
static rs_status event_new(rs_backend *b, unsigned flags, sim_ipc_page *ipc, int fd, void **out) {
  sim_event *ev = calloc(1, sizeof *ev);
  if (!ev) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim event_create: out of host memory");
  ev->magic = SIM_EVENT_MAGIC;
  ev->b = b;
  ev->flags = flags;
  ev->refs = 1;
  ev->ipc = ipc;
  ev->ipc_fd = fd;
  pthread_mutex_lock(&b->lock);
  ev->next = b->events;
  if (b->events) b->events->prev = ev;
  b->events = ev;
  pthread_mutex_unlock(&b->lock);
  *out = ev;
  return RS_OK;
}

rs_status sim_event_create(rs_backend *b, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim event_create: out is NULL");
  const unsigned known = RS_EVENT_DISABLE_TIMING | RS_EVENT_INTERPROCESS;
  if (flags & ~known) return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim event_create: unknown flags 0x%x", flags & ~known);
  if (!(flags & RS_EVENT_INTERPROCESS)) return event_new(b, flags, NULL, -1, out);
  if (!(flags & RS_EVENT_DISABLE_TIMING))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim event_create: an interprocess event needs timing disabled");
  int fd = -1;
  sim_ipc_page *page = sim_shm_map(sizeof *page, &fd);
  if (!page) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim event_create: no shared memory for an interprocess event");
  rs_status st = event_new(b, flags, page, fd, out);
  if (st != RS_OK) sim_shm_unmap(page, sizeof *page, fd);
  return st;
}

rs_status sim_ipc_event_export(rs_backend *b, void *handle, unsigned char *h) {
  sim_event *ev = NULL;
  RS_TRY(resolve_event(b, handle, "sim ipc_event_export", &ev));
  if (!ev->ipc || ev->ipc_fd < 0)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim ipc_event_export: the event was not created with "
                   "RS_EVENT_INTERPROCESS (or was itself opened from a handle)");
  return sim_shm_handle(ev->ipc_fd, h, "sim ipc_event_export");
}

rs_status sim_ipc_event_open(rs_backend *b, const unsigned char *h, void **out) {
  void *page = NULL;
  RS_TRY(sim_shm_open(h, sizeof(sim_ipc_page), &page, "sim ipc_event_open"));
  rs_status st = event_new(b, RS_EVENT_DISABLE_TIMING | RS_EVENT_INTERPROCESS, page, -1, out);
  if (st != RS_OK) sim_shm_unmap(page, sizeof(sim_ipc_page), -1);
  return st;
}

static int ipc_done(const sim_ipc_page *p, uint64_t target) { return atomic_load(&p->completed) >= target; }

/* Block the calling thread (a stream's worker, or the host) until record target completed. */
static void ipc_poll(const sim_ipc_page *p, uint64_t target) {
  while (!ipc_done(p, target)) usleep(20);
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
  uint64_t ipc_gen; /* interprocess events: this record's number in the shared count */
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
  if (r->ev->ipc) { /* raise completed to this record, never lower it */
    uint64_t c = atomic_load(&r->ev->ipc->completed);
    while (c < r->ipc_gen && !atomic_compare_exchange_weak(&r->ev->ipc->completed, &c, r->ipc_gen)) {
    }
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
    r->ipc_gen = ev->ipc ? atomic_fetch_add(&ev->ipc->recorded, 1) + 1 : 0;
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

static int complete_locked(const sim_event *ev) {
  if (ev->ipc) return ipc_done(ev->ipc, atomic_load(&ev->ipc->recorded));
  return !ev->sig || ev->sig->value >= ev->seq;
}

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
  if (ev->ipc) { /* the caller keeps the event alive while it waits on it */
    ipc_poll(ev->ipc, atomic_load(&ev->ipc->recorded));
    return RS_OK;
  }
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

typedef struct ipc_wait_task {
  sim_event *ev; /* referenced until the wait is over */
  uint64_t target;
} ipc_wait_task;

static void run_ipc_wait(void *arg) {
  ipc_wait_task *w = arg;
  ipc_poll(w->ev->ipc, w->target);
  rs_backend *b = w->ev->b;
  pthread_mutex_lock(&b->lock);
  event_unref_locked(b, w->ev);
  pthread_mutex_unlock(&b->lock);
}

rs_status sim_stream_wait_event(rs_backend *b, void *stream, void *handle) {
  sim_stream *s = NULL;
  sim_event *ev = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim stream_wait_event", &s));
  RS_TRY(resolve_event(b, handle, "sim stream_wait_event", &ev));
  rs_status st = RS_OK;
  pthread_mutex_lock(&b->lock);
  /* A never-recorded or completed event imposes nothing, as in CUDA. The wait captures
   * the record that is latest now; later records do not move it. */
  if (ev->ipc && !complete_locked(ev)) {
    ipc_wait_task *w = malloc(sizeof *w);
    if (!w) {
      pthread_mutex_unlock(&b->lock);
      return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stream_wait_event: out of host memory");
    }
    *w = (ipc_wait_task){ev, atomic_load(&ev->ipc->recorded)};
    st = sim_enqueue_locked(b, s, run_ipc_wait, w, free, NULL, 0, NULL);
    if (st == RS_OK)
      ev->refs++;
    else
      free(w);
  } else if (!complete_locked(ev)) {
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
