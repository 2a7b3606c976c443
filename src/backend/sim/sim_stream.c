/* Streams: in-order queues, each drained by its own worker thread, so work really runs
 * asynchronously and a missing synchronize shows up as it would on a GPU.
 *
 * Cross-stream ordering (the legacy default stream, stream_wait_event) is expressed as
 * dependencies captured at enqueue time under b->lock: "before running, wait until
 * stream X has completed its first N tasks". A dependency always names work enqueued
 * earlier in the one global order, so the earliest unfinished task can always run and
 * the waits never deadlock.
 */
#include <stdlib.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* The stream whose worker this thread is, to refuse calls that would wait for themselves. */
static _Thread_local const sim_stream *tls_worker;

int sim_on_worker_of(const rs_backend *b) { return tls_worker != NULL && tls_worker->b == b; }

/* ---- signals ---------------------------------------------------------------------------- */

static sim_signal *signal_new(void) {
  sim_signal *sig = calloc(1, sizeof *sig);
  if (!sig) return NULL;
  if (pthread_cond_init(&sig->cv, NULL) != 0) {
    free(sig);
    return NULL;
  }
  sig->refs = 1;
  return sig;
}

void sim_signal_unref_locked(sim_signal *sig) {
  if (--sig->refs > 0) return;
  pthread_cond_destroy(&sig->cv);
  free(sig);
}

void sim_signal_wait_locked(rs_backend *b, sim_signal *sig, uint64_t target) {
  while (sig->value < target) pthread_cond_wait(&sig->cv, &b->lock);
}

/* ---- the worker ----------------------------------------------------------------------- */

static void *worker_main(void *arg) {
  sim_stream *s = arg;
  rs_backend *b = s->b;
  tls_worker = s;
  pthread_mutex_lock(&b->lock);
  for (;;) {
    while (!s->head && !s->stopping) pthread_cond_wait(&s->work_cv, &b->lock);
    sim_task *t = s->head;
    if (!t) break; /* stopping, and everything queued has run */
    for (int i = 0; i < t->ndeps; i++) {
      sim_signal_wait_locked(b, t->deps[i].sig, t->deps[i].target);
      sim_signal_unref_locked(t->deps[i].sig);
    }
    t->ndeps = 0;
    pthread_mutex_unlock(&b->lock);
    t->run(t->arg);
    if (t->cleanup) t->cleanup(t->arg);
    pthread_mutex_lock(&b->lock);
    /* The task stays at the head while it runs: synchronize_all reads its ticket. */
    s->head = t->next;
    if (!s->head) s->tail = NULL;
    s->done->value++;
    pthread_cond_broadcast(&s->done->cv);
    free(t);
  }
  pthread_mutex_unlock(&b->lock);
  return NULL;
}

/* ---- creation and destruction ----------------------------------------------------------- */

rs_status sim_stream_new(rs_backend *b, unsigned flags, int builtin, sim_stream **out) {
  sim_stream *s = calloc(1, sizeof *s);
  if (!s) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stream_create: out of host memory");
  s->magic = SIM_STREAM_MAGIC;
  s->b = b;
  s->flags = flags;
  s->blocking = !(flags & RS_STREAM_NON_BLOCKING);
  s->builtin = builtin;
  s->done = signal_new();
  if (!s->done) {
    free(s);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stream_create: out of host memory");
  }
  if (pthread_cond_init(&s->work_cv, NULL) != 0) {
    sim_signal_unref_locked(s->done); /* not shared yet: no lock needed */
    free(s);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stream_create: cannot create a condition variable");
  }
  int err = pthread_create(&s->thread, NULL, worker_main, s);
  if (err != 0) {
    char buf[128];
    pthread_cond_destroy(&s->work_cv);
    sim_signal_unref_locked(s->done);
    free(s);
    return rs_fail(RS_ERR_DEVICE, "sim stream_create: cannot start the stream's worker thread: %s",
                   sim_errno_text(err, buf, sizeof buf));
  }
  pthread_mutex_lock(&b->lock);
  s->next = b->streams;
  if (b->streams) b->streams->prev = s;
  b->streams = s;
  pthread_mutex_unlock(&b->lock);
  *out = s;
  return RS_OK;
}

rs_status sim_stream_shutdown(sim_stream *s) {
  rs_backend *b = s->b;
  pthread_mutex_lock(&b->lock);
  if (s->stopping) {
    pthread_mutex_unlock(&b->lock);
    return rs_fail(RS_ERR_DESTROYED, "sim stream_destroy(%p): already being destroyed", (void *)s);
  }
  s->stopping = 1;
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&b->lock);

  pthread_join(s->thread, NULL);
  sim_graph_discard(s->recording);

  /* Listed until joined, so synchronize_all and the frees still wait for its last work. */
  pthread_mutex_lock(&b->lock);
  if (s->prev)
    s->prev->next = s->next;
  else
    b->streams = s->next;
  if (s->next) s->next->prev = s->prev;
  sim_signal_unref_locked(s->done);
  pthread_mutex_unlock(&b->lock);
  pthread_cond_destroy(&s->work_cv);
  s->magic = 0;
  free(s);
  return RS_OK;
}

rs_status sim_resolve_stream(rs_backend *b, void *handle, const char *what, sim_stream **out) {
  if (!handle) {
    *out = b->legacy;
    return RS_OK;
  }
  /* Looked up among this context's live streams by address, never read through: a
   * wrapped handle may be any pointer at all (rs_stream_wrap), or a stream destroyed
   * since. */
  sim_stream *s = NULL;
  pthread_mutex_lock(&b->lock);
  for (sim_stream *x = b->streams; x && !s; x = x->next)
    if ((void *)x == handle) s = x;
  pthread_mutex_unlock(&b->lock);
  if (!s)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: %p is not a live stream of this simulator context", what, handle);
  *out = s;
  return RS_OK;
}

rs_status sim_stream_check(rs_backend *b, void *handle) {
  sim_stream *s = NULL;
  return sim_resolve_stream(b, handle, "sim stream_check", &s);
}

rs_status sim_stream_create(rs_backend *b, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim stream_create: out is NULL");
  if (flags & ~RS_STREAM_NON_BLOCKING)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim stream_create: unknown flags 0x%x",
                   flags & ~RS_STREAM_NON_BLOCKING);
  sim_stream *s = NULL;
  RS_TRY(sim_stream_new(b, flags, 0, &s));
  *out = s;
  return RS_OK;
}

rs_status sim_stream_destroy(rs_backend *b, void *handle) {
  if (!handle)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "sim stream_destroy: the legacy default stream belongs to the context");
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, handle, "sim stream_destroy", &s));
  if (s->builtin)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "sim stream_destroy(%p): a per-thread default stream belongs to the context",
                   handle);
  if (tls_worker == s)
    return rs_fail(RS_ERR_STATE, "sim stream_destroy(%p): called from the stream's own work",
                   handle);
  return sim_stream_shutdown(s);
}

/* Threads are never told apart after they exit, so an id reused by a new thread inherits
 * the old stream: harmless, it is an ordinary blocking stream with nothing pending. */
void *sim_stream_per_thread(rs_backend *b) {
  pthread_t me = pthread_self();
  pthread_mutex_lock(&b->lock);
  for (sim_thread_stream *e = b->per_thread; e; e = e->next) {
    if (pthread_equal(e->tid, me)) {
      sim_stream *s = e->s;
      pthread_mutex_unlock(&b->lock);
      return s;
    }
  }
  pthread_mutex_unlock(&b->lock);
  /* Only this thread creates its own entry, so nobody can add it between the locks.
   * On failure the legacy stream (NULL) stands in: it orders strictly more. */
  sim_thread_stream *e = malloc(sizeof *e);
  if (!e) return NULL;
  sim_stream *s = NULL;
  if (sim_stream_new(b, 0, 1, &s) != RS_OK) {
    free(e);
    return NULL;
  }
  e->tid = me;
  e->s = s;
  pthread_mutex_lock(&b->lock);
  e->next = b->per_thread;
  b->per_thread = e;
  pthread_mutex_unlock(&b->lock);
  return s;
}

/* ---- recording into a graph (sim_graph.c begins, ends and replays) ------------------------ */

rs_status sim_graph_record_locked(sim_graph *g, void (*run)(void *), void *arg, void (*cleanup)(void *)) {
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 16;
    sim_graph_item *grown = realloc(g->items, cap * sizeof *grown);
    if (!grown) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim: out of host memory recording a graph");
    g->items = grown;
    g->cap = cap;
  }
  g->items[g->n++] = (sim_graph_item){run, arg, cleanup};
  return RS_OK;
}

void sim_graph_discard(sim_graph *g) {
  if (!g) return;
  for (size_t i = 0; i < g->n; i++)
    if (g->items[i].cleanup) g->items[i].cleanup(g->items[i].arg);
  free(g->items);
  g->magic = 0;
  free(g);
}

/* ---- enqueueing ------------------------------------------------------------------------- */

static int has_pending(const sim_stream *s) { return s->done->value < s->enqueued; }

rs_status sim_enqueue_locked(rs_backend *b, sim_stream *s, void (*run)(void *), void *arg,
                             void (*cleanup)(void *), const sim_dep *extra, int nextra,
                             uint64_t *seq_out) {
  if (s->stopping)
    return rs_fail(RS_ERR_DESTROYED, "sim: stream %p is being destroyed", (void *)s);
  if (s->recording) {
    /* Captured, not run: the dependencies are taken when the graph is launched. */
    if (nextra > 0)
      return rs_fail(RS_ERR_STATE, "sim: stream %p is being captured into a graph; a wait for an event "
                                   "recorded outside the capture cannot be replayed", (void *)s);
    if (seq_out) *seq_out = s->enqueued;
    return sim_graph_record_locked(s->recording, run, arg, cleanup);
  }
  int n = 0;
  if (s == b->legacy) {
    for (sim_stream *x = b->streams; x; x = x->next)
      if (x->blocking && has_pending(x)) n++;
  } else if (s->blocking && has_pending(b->legacy)) {
    n++;
  }
  for (int i = 0; i < nextra; i++)
    if (extra[i].sig->value < extra[i].target) n++;

  sim_task *t = malloc(sizeof *t + (size_t)n * sizeof(sim_dep));
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim: out of host memory queueing stream work");
  int k = 0;
  if (s == b->legacy) {
    for (sim_stream *x = b->streams; x; x = x->next)
      if (x->blocking && has_pending(x)) t->deps[k++] = (sim_dep){x->done, x->enqueued};
  } else if (s->blocking && has_pending(b->legacy)) {
    t->deps[k++] = (sim_dep){b->legacy->done, b->legacy->enqueued};
  }
  for (int i = 0; i < nextra; i++)
    if (extra[i].sig->value < extra[i].target) t->deps[k++] = extra[i];
  for (int i = 0; i < k; i++) t->deps[i].sig->refs++;
  t->ndeps = k;
  t->next = NULL;
  t->run = run;
  t->arg = arg;
  t->cleanup = cleanup;
  t->ticket = b->ticket++;

  if (s->tail)
    s->tail->next = t;
  else
    s->head = t;
  s->tail = t;
  s->enqueued++;
  if (seq_out) *seq_out = s->enqueued;
  pthread_cond_signal(&s->work_cv);
  return RS_OK;
}

rs_status rs_sim_enqueue(rs_backend *b, void *stream, void (*run)(void *arg), void *arg,
                         void (*cleanup)(void *arg)) {
  if (!b || !run) return rs_fail(RS_ERR_NULL_POINTER, "rs_sim_enqueue: NULL backend or function");
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "rs_sim_enqueue", &s));
  pthread_mutex_lock(&b->lock);
  rs_status st = sim_enqueue_locked(b, s, run, arg, cleanup, NULL, 0, NULL);
  pthread_mutex_unlock(&b->lock);
  return st;
}

rs_status sim_submit(rs_backend *b, void *stream, const char *what, void (*run)(void *),
                     void *arg, void (*cleanup)(void *), int wait_done) {
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, what, &s));
  uint64_t seq;
  pthread_mutex_lock(&b->lock);
  rs_status st = sim_enqueue_locked(b, s, run, arg, cleanup, NULL, 0, &seq);
  if (st == RS_OK && wait_done && !sim_on_worker_of(b)) {
    sim_signal *sig = s->done;
    sig->refs++;
    sim_signal_wait_locked(b, sig, seq);
    sim_signal_unref_locked(sig);
  }
  pthread_mutex_unlock(&b->lock);
  return st;
}

typedef struct callback_task {
  rs_host_fn fn;
  void *user_data;
} callback_task;

static void run_callback(void *arg) {
  callback_task *c = arg;
  c->fn(c->user_data);
}

rs_status sim_stream_callback(rs_backend *b, void *stream, rs_host_fn fn, void *user_data) {
  if (!fn) return rs_fail(RS_ERR_NULL_POINTER, "sim stream_callback: fn is NULL");
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim stream_callback", &s));
  callback_task *c = malloc(sizeof *c);
  if (!c) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim stream_callback: out of host memory");
  c->fn = fn;
  c->user_data = user_data;
  pthread_mutex_lock(&b->lock);
  rs_status st = sim_enqueue_locked(b, s, run_callback, c, free, NULL, 0, NULL);
  pthread_mutex_unlock(&b->lock);
  if (st != RS_OK) free(c);
  return st;
}

/* ---- waiting ------------------------------------------------------------------------------ */

/* A stream (legacy and blocking ones only, if only_legacy_set) still running a task
 * enqueued before ticket T, or NULL. */
static sim_stream *unfinished_before(rs_backend *b, uint64_t T, int only_legacy_set) {
  for (sim_stream *x = b->streams; x; x = x->next) {
    if (only_legacy_set && !(x == b->legacy || x->blocking)) continue;
    if (x->head && x->head->ticket < T) return x;
  }
  return NULL;
}

/* Wait, with b->lock held, until no stream in the set holds work older than ticket T.
 * Rescans after every completion because streams may vanish while the lock is dropped. */
static void wait_tickets_locked(rs_backend *b, uint64_t T, int only_legacy_set) {
  sim_stream *x;
  while ((x = unfinished_before(b, T, only_legacy_set)) != NULL) {
    sim_signal *sig = x->done;
    uint64_t seen = sig->value;
    sig->refs++;
    while (sig->value == seen) pthread_cond_wait(&sig->cv, &b->lock);
    sim_signal_unref_locked(sig);
  }
}

rs_status sim_synchronize_all(rs_backend *b) {
  if (sim_on_worker_of(b))
    return rs_fail(RS_ERR_STATE, "sim synchronize: called from stream work of this context, "
                                 "which would wait for itself");
  pthread_mutex_lock(&b->lock);
  wait_tickets_locked(b, b->ticket, 0);
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}

rs_status sim_stream_synchronize(rs_backend *b, void *stream) {
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim stream_synchronize", &s));
  if (tls_worker == s || (s == b->legacy && sim_on_worker_of(b)))
    return rs_fail(RS_ERR_STATE, "sim stream_synchronize(%p): called from work it would wait for",
                   stream);
  pthread_mutex_lock(&b->lock);
  if (s == b->legacy) {
    /* Synchronizing the legacy stream is a legacy-stream operation: it also waits for
     * everything queued earlier on blocking streams. */
    wait_tickets_locked(b, b->ticket, 1);
  } else {
    sim_signal *sig = s->done;
    sig->refs++;
    sim_signal_wait_locked(b, sig, s->enqueued);
    sim_signal_unref_locked(sig);
  }
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}

rs_status sim_stream_query(rs_backend *b, void *stream, int *done) {
  if (!done) return rs_fail(RS_ERR_NULL_POINTER, "sim stream_query: done is NULL");
  sim_stream *s = NULL;
  RS_TRY(sim_resolve_stream(b, stream, "sim stream_query", &s));
  pthread_mutex_lock(&b->lock);
  if (s == b->legacy)
    *done = unfinished_before(b, b->ticket, 1) == NULL;
  else
    *done = !has_pending(s);
  pthread_mutex_unlock(&b->lock);
  return RS_OK;
}
