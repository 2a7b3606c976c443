/* Streams, events and host callbacks.
 *
 * Ordering is tested deterministically with a "gate": a host callback that blocks its
 * stream until the test opens it (or 10 s pass, which is then reported as a failure). */
#include <pthread.h>
#include <stdatomic.h>
#include "harness.h"
#include "gate.h"

#define S1(a) ((const int64_t[]){a})

/* ---- gates, logs, checkers (callbacks never call into resident) ---------------------- */

typedef struct {
  atomic_int n;
  int order[32];
} run_log;

typedef struct {
  run_log *log;
  int id;
} log_arg;

static void log_fn(void *u) {
  log_arg *a = (log_arg *)u;
  int k = atomic_fetch_add(&a->log->n, 1);
  if (k < 32) a->log->order[k] = a->id;
}

typedef struct {
  const void *expect;
  const void *actual;
  size_t n;
  atomic_int ran;
  atomic_int same;
} compare_arg;

static void compare_fn(void *u) {
  compare_arg *c = (compare_arg *)u;
  atomic_store(&c->same, memcmp(c->expect, c->actual, c->n) == 0);
  atomic_store(&c->ran, 1);
}

/* pinned source and destination of n floats and a device array */
typedef struct {
  rs_array *src, *dst, *dev;
  size_t bytes;
} trio;

static rs_status trio_make(trio *t, rs_context *ctx, int64_t n, uint64_t seed) {
  memset(t, 0, sizeof *t);
  t->bytes = (size_t)n * 4;
  H_OK(rs_pinned_array(&t->src, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  H_OK(rs_pinned_array(&t->dst, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  H_OK(rs_device_array(&t->dev, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(t->src), t->bytes, seed);
  memset(rs_array_host_data(t->dst), 0, t->bytes);
  return RS_OK;
}

static void trio_free(trio *t) {
  rs_array_release(t->src);
  rs_array_release(t->dst);
  rs_array_release(t->dev);
  memset(t, 0, sizeof *t);
}

/* ---- tests --------------------------------------------------------------------------- */

static void do_stream_round_trip(rs_context *ctx, unsigned flags) {
  rs_stream *s = NULL;
  trio t;
  CHECK_OK(rs_stream_create(&s, ctx, flags));
  CHECK(s != NULL);
  CHECK(rs_stream_native(s) != NULL);
  CHECK_OK(trio_make(&t, ctx, 1 << 18, 11 + flags));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_synchronize(s));
  int done = 0;
  CHECK_OK(rs_stream_query(s, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  trio_free(&t);
  CHECK_OK(rs_stream_destroy(s));
}
static void test_blocking_stream(rs_context *ctx) { do_stream_round_trip(ctx, 0); }
static void test_non_blocking_stream(rs_context *ctx) {
  do_stream_round_trip(ctx, RS_STREAM_NON_BLOCKING);
}

typedef struct {
  rs_context *ctx;
  rs_status st;
  int same;
  rs_stream *ps;
  char msg[512];
} pt_arg;

static void *per_thread_worker(void *u) {
  pt_arg *a = (pt_arg *)u;
  trio t;
  a->ps = rs_stream_per_thread(a->ctx);
  a->st = trio_make(&t, a->ctx, 1 << 16, 99);
  if (a->st == RS_OK) a->st = rs_to_device_into(t.dev, t.src, a->ps);
  if (a->st == RS_OK) a->st = rs_copy_to_host_into(t.dst, t.dev, a->ps);
  if (a->st == RS_OK) a->st = rs_stream_synchronize(a->ps);
  if (a->st == RS_OK) a->same = memcmp(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes) == 0;
  if (a->st != RS_OK) snprintf(a->msg, sizeof a->msg, "%s", rs_last_error());
  trio_free(&t);
  return NULL;
}

static void test_legacy_and_per_thread(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  /* rs_stream_legacy(ctx) is the handle of the stream a NULL rs_stream * means in calls
   * that know their context (copies, event records). Its native handle is NULL. */
  rs_stream *leg = rs_stream_legacy(ctx);
  CHECK(rs_stream_native(leg) == NULL);
  CHECK(rs_stream_legacy(ctx) == leg);
  trio t;
  CHECK_OK(trio_make(&t, ctx, 1 << 16, 5));
  CHECK_OK(rs_to_device_into(t.dev, t.src, leg));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, leg));
  CHECK_OK(rs_stream_synchronize(leg));
  int done = 0;
  CHECK_OK(rs_stream_query(leg, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);

  /* NULL and the legacy handle are the same queue: a copy on NULL waits behind a closed
   * gate on leg, and an event recorded on NULL completes after it */
  static gate g;
  gate_init(&g);
  rs_event *ev = NULL;
  CHECK_OK(rs_event_create(&ev, ctx, RS_EVENT_DISABLE_TIMING));
  memset(rs_array_host_data(t.dst), 0, t.bytes);
  rs_t_pattern_(rs_array_host_data(t.src), t.bytes, 55);
  CHECK_OK(rs_stream_add_callback(leg, gate_fn, &g));
  int entered = gate_wait_entered(&g);
  rs_status c1 = rs_to_device_into(t.dev, t.src, NULL);
  rs_status c2 = rs_copy_to_host_into(t.dst, t.dev, NULL);
  rs_status c3 = rs_event_record(ev, NULL);
  rs_t_sleep_ms_(20);
  int edone = -1;
  rs_status q = rs_event_query(ev, &edone);
  unsigned char first = ((unsigned char *)rs_array_host_data(t.dst))[0];
  int untouched = 1;
  for (size_t i = 0; i < 1024; i++)
    if (((unsigned char *)rs_array_host_data(t.dst))[i] != 0) untouched = 0;
  atomic_store(&g.open, 1);
  CHECK_OK(rs_stream_synchronize(leg));
  CHECK(entered);
  CHECK_OK(c1);
  CHECK_OK(c2);
  CHECK_OK(c3);
  CHECK_OK(q);
  CHECK_MSG(edone == 0, "an event recorded on NULL completed while the legacy stream was blocked");
  CHECK_MSG(untouched, "a copy on the NULL stream ran ahead of the legacy stream (byte %u)", first);
  CHECK_OK(rs_event_synchronize(ev));
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  CHECK_OK(rs_event_destroy(ev));

  rs_stream *pt = rs_stream_per_thread(ctx);
  CHECK(pt != NULL);
  memset(rs_array_host_data(t.dst), 0, t.bytes);
  rs_t_pattern_(rs_array_host_data(t.src), t.bytes, 6);
  CHECK_OK(rs_to_device_into(t.dev, t.src, pt));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, pt));
  CHECK_OK(rs_stream_synchronize(pt));
  CHECK_OK(rs_stream_query(pt, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  trio_free(&t);

  /* the built-in streams belong to the context */
  CHECK_STATUS(rs_stream_destroy(leg), RS_ERR_INVALID_ARGUMENT);
  CHECK_OK(rs_stream_destroy(NULL)); /* NULL: nothing to destroy */
  CHECK_STATUS(rs_stream_destroy(pt), RS_ERR_INVALID_ARGUMENT);
  /* still usable after the refused destroy */
  CHECK_OK(rs_stream_synchronize(pt));
  CHECK_OK(rs_stream_synchronize(leg));

  /* another thread's per-thread stream works too */
  pt_arg a;
  memset(&a, 0, sizeof a);
  a.ctx = ctx;
  pthread_t th;
  CHECK(pthread_create(&th, NULL, per_thread_worker, &a) == 0);
  pthread_join(th, NULL);
  CHECK_MSG(a.st == RS_OK, "per-thread stream in a second thread: %s \"%s\"",
            rs_status_name(a.st), a.msg);
  CHECK(a.ps != NULL);
  CHECK(a.same);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_MSG(st.streams == 0, "built-in streams counted as created: streams=%lld",
            (long long)st.streams);
}

static void test_wrap_native(rs_context *ctx) {
  rs_stream *s1 = NULL, *w = NULL;
  CHECK_OK(rs_stream_create(&s1, ctx, RS_STREAM_NON_BLOCKING));
  void *native = rs_stream_native(s1);
  CHECK(native != NULL);
  CHECK_OK(rs_stream_wrap(&w, ctx, native));
  CHECK(w != NULL);
  CHECK(rs_stream_native(w) == native);
  /* the wrapper is the same queue: a gate on w holds back work on s1 */
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  static run_log log;
  memset(&log, 0, sizeof log);
  static log_arg a1;
  a1 = (log_arg){&log, 1};
  CHECK_OK(rs_stream_add_callback(w, gate_fn, &g));
  CHECK_OK(rs_stream_add_callback(s1, log_fn, &a1));
  int ok_entered = gate_wait_entered(&g);
  rs_t_sleep_ms_(20);
  int done = -1;
  rs_status st = rs_stream_query(s1, &done);
  int ran_early = atomic_load(&log.n);
  atomic_store(&g.open, 1);
  CHECK_OK(rs_stream_synchronize(w));
  CHECK_OK(rs_stream_synchronize(s1));
  CHECK(ok_entered);
  CHECK_OK(st);
  CHECK_MSG(done == 0, "work behind a closed gate on the wrapped stream counts as done");
  CHECK_EQ_I64(ran_early, 0);
  CHECK_EQ_I64(atomic_load(&log.n), 1);
  CHECK_EQ_I64(atomic_load(&g.timed_out), 0);
  /* destroying the wrapper leaves the stream usable */
  CHECK_OK(rs_stream_destroy(w));
  trio t;
  CHECK_OK(trio_make(&t, ctx, 4096, 8));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s1));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s1));
  CHECK_OK(rs_stream_synchronize(s1));
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  trio_free(&t);
  CHECK_OK(rs_stream_destroy(s1));
}

static void do_callbacks(rs_context *ctx, rs_stream *s) {
  trio t;
  CHECK_OK(trio_make(&t, ctx, 1 << 18, 21));
  static run_log log;
  memset(&log, 0, sizeof log);
  static log_arg args[6];
  static compare_arg cmp;
  memset(&cmp, 0, sizeof cmp);
  cmp.expect = rs_array_host_data(t.src);
  cmp.actual = rs_array_host_data(t.dst);
  cmp.n = t.bytes;
  for (int i = 0; i < 6; i++) args[i] = (log_arg){&log, i};
  CHECK_OK(rs_stream_add_callback(s, log_fn, &args[0]));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_add_callback(s, compare_fn, &cmp)); /* sees the copies' result */
  for (int i = 1; i < 6; i++) CHECK_OK(rs_stream_add_callback(s, log_fn, &args[i]));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_EQ_I64(atomic_load(&cmp.ran), 1);
  CHECK_MSG(atomic_load(&cmp.same) == 1,
            "a callback queued after a D2H copy did not see the copied data");
  CHECK_EQ_I64(atomic_load(&log.n), 6);
  for (int i = 0; i < 6; i++)
    CHECK_MSG(log.order[i] == i, "callback %d ran in position %d", log.order[i], i);
  trio_free(&t);
}

static void test_callbacks(rs_context *ctx) {
  rs_stream *s = NULL, *nb = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  do_callbacks(ctx, s);
  CHECK_PASSING();
  CHECK_OK(rs_stream_create(&nb, ctx, RS_STREAM_NON_BLOCKING));
  do_callbacks(ctx, nb);
  CHECK_PASSING();
  do_callbacks(ctx, rs_stream_legacy(ctx)); /* legacy stream */
  CHECK_PASSING();
  CHECK_OK(rs_stream_destroy(nb));
  CHECK_OK(rs_stream_destroy(s));
}

static void test_query_not_done(rs_context *ctx) {
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  CHECK_OK(rs_stream_add_callback(s, gate_fn, &g));
  int entered = gate_wait_entered(&g);
  int done = -1;
  rs_status st = rs_stream_query(s, &done);
  atomic_store(&g.open, 1);
  CHECK_OK(rs_stream_synchronize(s));
  CHECK(entered);
  CHECK_OK(st);
  CHECK_MSG(done == 0, "rs_stream_query says done while a callback blocks the stream");
  CHECK_OK(rs_stream_query(s, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_EQ_I64(atomic_load(&g.timed_out), 0);
  CHECK_OK(rs_stream_destroy(s));
}

static void test_events(rs_context *ctx) {
  rs_stream *s = NULL;
  rs_event *e1 = NULL, *e2 = NULL, *e3 = NULL, *nt = NULL;
  rs_array *p = NULL, *d = NULL;
  float ms = -1.0f;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_event_create(&e1, ctx, 0));
  CHECK_OK(rs_event_create(&e2, ctx, 0));
  CHECK_OK(rs_event_create(&e3, ctx, 0));
  CHECK_OK(rs_event_create(&nt, ctx, RS_EVENT_DISABLE_TIMING));
  /* never recorded: query says done, synchronize returns, elapsed is a state error */
  int done = 0;
  CHECK_OK(rs_event_query(e1, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_OK(rs_event_synchronize(e1));
  CHECK_STATUS(rs_event_elapsed_ms(e1, e2, &ms), RS_ERR_STATE);

  /* around a 32 MiB copy */
  const int64_t n = 8 << 20;
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  memset(rs_array_host_data(p), 1, (size_t)n * 4);
  CHECK_OK(rs_event_record(e1, s));
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_event_record(e2, s));
  CHECK_OK(rs_event_record(nt, s));
  CHECK_OK(rs_event_synchronize(e2));
  CHECK_STATUS(rs_event_elapsed_ms(e1, e3, &ms), RS_ERR_STATE); /* e3 never recorded */
  CHECK_OK(rs_event_query(e2, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_OK(rs_event_query(e1, &done));
  CHECK_EQ_I64(done, 1);
  ms = -1.0f;
  CHECK_OK(rs_event_elapsed_ms(e1, e2, &ms));
  CHECK_MSG(ms >= 0.0f && ms < 60000.0f, "elapsed %g ms around a 32 MiB copy", ms);
  CHECK_MSG(ms > 0.0f, "a 32 MiB copy took 0 ms between its events");
  CHECK_OK(rs_event_synchronize(nt));
  CHECK_STATUS(rs_event_elapsed_ms(e1, nt, &ms), RS_ERR_STATE); /* timing disabled */
  CHECK_STATUS(rs_event_elapsed_ms(nt, e2, &ms), RS_ERR_STATE);

  /* not yet completed: NOT_READY, query 0; and elapsed covers the blocked time */
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  CHECK_OK(rs_event_record(e1, s));
  CHECK_OK(rs_stream_add_callback(s, gate_fn, &g));
  CHECK_OK(rs_event_record(e3, s));
  int entered = gate_wait_entered(&g);
  int qdone = -1;
  rs_status qst = rs_event_query(e3, &qdone);
  rs_status est = rs_event_elapsed_ms(e1, e3, &ms);
  rs_t_sleep_ms_(100);
  atomic_store(&g.open, 1);
  CHECK(entered);
  CHECK_OK(qst);
  CHECK_MSG(qdone == 0, "event recorded behind a closed gate reports done");
  CHECK_MSG(est == RS_ERR_NOT_READY, "elapsed with an incomplete event gave %s",
            rs_status_name(est));
  CHECK_OK(rs_event_synchronize(e3));
  CHECK_OK(rs_event_elapsed_ms(e1, e3, &ms));
  CHECK_MSG(ms >= 50.0f && ms < 20000.0f,
            "the stream was blocked ~100 ms between the events but elapsed is %g ms", ms);
  CHECK_EQ_I64(atomic_load(&g.timed_out), 0);

  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_event_destroy(nt));
  CHECK_OK(rs_event_destroy(e3));
  CHECK_OK(rs_event_destroy(e2));
  CHECK_OK(rs_event_destroy(e1));
  CHECK_OK(rs_stream_destroy(s));
}

static void test_wait_event(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  /* s1: gate, H2D A -> dev, record ev.  s2: wait ev, D2H dev -> B.
   * s2 cannot finish while the gate is closed, and B must equal A afterwards. */
  rs_stream *s1 = NULL, *s2 = NULL;
  rs_event *ev = NULL;
  trio t;
  CHECK_OK(rs_stream_create(&s1, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&s2, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_event_create(&ev, ctx, RS_EVENT_DISABLE_TIMING));
  CHECK_OK(trio_make(&t, ctx, 1 << 18, 31));
  void *zeros = calloc(1, t.bytes);
  CHECK(zeros != NULL);
  rs_status zst = rs_t_write_(t.dev, zeros); /* dev starts as zeros */
  free(zeros);
  CHECK_OK(zst);
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  CHECK_OK(rs_stream_add_callback(s1, gate_fn, &g));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s1));
  CHECK_OK(rs_event_record(ev, s1));
  CHECK_OK(rs_stream_wait_event(s2, ev));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s2));
  int entered = gate_wait_entered(&g);
  rs_t_sleep_ms_(30);
  int done = -1;
  rs_status qst = rs_stream_query(s2, &done);
  unsigned char first = ((unsigned char *)rs_array_host_data(t.dst))[0];
  int dst_untouched = 1;
  for (size_t i = 0; i < 4096; i++)
    if (((unsigned char *)rs_array_host_data(t.dst))[i] != 0) dst_untouched = 0;
  atomic_store(&g.open, 1);
  CHECK_OK(rs_stream_synchronize(s2));
  CHECK(entered);
  CHECK_OK(qst);
  CHECK_MSG(done == 0, "s2 finished although it waits for an event behind a closed gate");
  CHECK_MSG(dst_untouched, "s2's copy ran before the event it waits for (first byte %u)",
            first);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  CHECK_EQ_I64(atomic_load(&g.timed_out), 0);
  CHECK_OK(rs_stream_synchronize(s1));
  trio_free(&t);
  CHECK_OK(rs_event_destroy(ev));
  CHECK_OK(rs_stream_destroy(s2));
  CHECK_OK(rs_stream_destroy(s1));
}

static void test_blocking_vs_legacy(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  /* A closed gate on the legacy stream holds back a blocking stream but not a
   * non-blocking one. */
  rs_stream *blk = NULL, *nb = NULL;
  trio t1, t2;
  CHECK_OK(rs_stream_create(&blk, ctx, 0));
  CHECK_OK(rs_stream_create(&nb, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(trio_make(&t1, ctx, 1 << 16, 41));
  CHECK_OK(trio_make(&t2, ctx, 1 << 16, 42));
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  CHECK_OK(rs_stream_add_callback(rs_stream_legacy(ctx), gate_fn, &g));
  int entered = gate_wait_entered(&g);
  CHECK_OK(rs_to_device_into(t1.dev, t1.src, blk));
  CHECK_OK(rs_copy_to_host_into(t1.dst, t1.dev, blk));
  CHECK_OK(rs_to_device_into(t2.dev, t2.src, nb));
  CHECK_OK(rs_copy_to_host_into(t2.dst, t2.dev, nb));
  rs_status nst = rs_stream_synchronize(nb); /* must not wait for the legacy gate */
  int gate_still_closed = !atomic_load(&g.open) && !atomic_load(&g.timed_out);
  rs_t_sleep_ms_(20);
  int done = -1;
  rs_status qst = rs_stream_query(blk, &done);
  atomic_store(&g.open, 1);
  CHECK_OK(rs_stream_synchronize(blk));
  CHECK_OK(rs_stream_synchronize(rs_stream_legacy(ctx)));
  CHECK(entered);
  CHECK_OK(nst);
  CHECK_MSG(gate_still_closed, "synchronizing a non-blocking stream waited for the legacy stream");
  CHECK_BYTES_EQ(rs_array_host_data(t2.dst), rs_array_host_data(t2.src), t2.bytes);
  CHECK_OK(qst);
  CHECK_MSG(done == 0, "a blocking stream ran ahead of work queued earlier on the legacy stream");
  CHECK_BYTES_EQ(rs_array_host_data(t1.dst), rs_array_host_data(t1.src), t1.bytes);

  /* and the legacy stream waits for a blocking stream */
  static gate g2;
  gate_init(&g2);
  static run_log log;
  memset(&log, 0, sizeof log);
  static log_arg a;
  a = (log_arg){&log, 1};
  CHECK_OK(rs_stream_add_callback(blk, gate_fn, &g2));
  entered = gate_wait_entered(&g2);
  CHECK_OK(rs_stream_add_callback(rs_stream_legacy(ctx), log_fn, &a));
  rs_t_sleep_ms_(20);
  int early = atomic_load(&log.n);
  atomic_store(&g2.open, 1);
  CHECK_OK(rs_stream_synchronize(rs_stream_legacy(ctx)));
  CHECK_OK(rs_stream_synchronize(blk));
  CHECK(entered);
  CHECK_MSG(early == 0, "legacy-stream work ran before earlier work on a blocking stream");
  CHECK_EQ_I64(atomic_load(&log.n), 1);
  trio_free(&t2);
  trio_free(&t1);
  CHECK_OK(rs_stream_destroy(nb));
  CHECK_OK(rs_stream_destroy(blk));
}

static void test_auto_synchronize(rs_context *ctx) {
  rs_stream *s = NULL;
  trio t;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_STATUS(rs_stream_auto_synchronize_end(s), RS_ERR_STATE);
  CHECK_OK(trio_make(&t, ctx, 1 << 20, 51));
  CHECK_OK(rs_stream_auto_synchronize_begin(s));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_auto_synchronize_end(s));
  /* no other synchronization: end must have waited */
  int done = 0;
  CHECK_OK(rs_stream_query(s, &done));
  CHECK_EQ_I64(done, 1);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  /* nested scopes: each end synchronizes */
  rs_t_pattern_(rs_array_host_data(t.src), t.bytes, 52);
  CHECK_OK(rs_stream_auto_synchronize_begin(s));
  CHECK_OK(rs_stream_auto_synchronize_begin(s));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_auto_synchronize_end(s));
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  rs_t_pattern_(rs_array_host_data(t.src), t.bytes, 53);
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_auto_synchronize_end(s));
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  CHECK_STATUS(rs_stream_auto_synchronize_end(s), RS_ERR_STATE);
  /* the legacy stream has scopes too */
  CHECK_OK(rs_stream_auto_synchronize_begin(rs_stream_legacy(ctx)));
  CHECK_OK(rs_stream_auto_synchronize_end(rs_stream_legacy(ctx)));
  CHECK_STATUS(rs_stream_auto_synchronize_end(rs_stream_legacy(ctx)), RS_ERR_STATE);
  trio_free(&t);
  CHECK_OK(rs_stream_destroy(s));
}

static void test_destroyed_handles(rs_context *ctx) {
  rs_stream *s = NULL, *ok = NULL;
  rs_event *e = NULL, *eok = NULL;
  rs_array *a = NULL, *b = NULL;
  int done = 0;
  float ms = 0;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_stream_create(&ok, ctx, 0));
  CHECK_OK(rs_event_create(&e, ctx, 0));
  CHECK_OK(rs_event_create(&eok, ctx, 0));
  CHECK_OK(rs_host_array(&a, ctx, 1, S1(64), RS_INT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&b, ctx, 1, S1(64), RS_INT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_event_destroy(e));
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  atomic_store(&g.open, 1);

  CHECK_STATUS(rs_stream_synchronize(s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_query(s, &done), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_add_callback(s, gate_fn, &g), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_wait_event(s, eok), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_auto_synchronize_begin(s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_record(eok, s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_array_copy(b, a, s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_to_device_into(b, a, s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_destroy(s), RS_ERR_DESTROYED);

  CHECK_STATUS(rs_event_record(e, ok), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_synchronize(e), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_query(e, &done), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_elapsed_ms(e, eok, &ms), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_elapsed_ms(eok, e, &ms), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_wait_event(ok, e), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_destroy(e), RS_ERR_DESTROYED);

  /* the live ones were not disturbed */
  CHECK_OK(rs_event_record(eok, ok));
  CHECK_OK(rs_event_synchronize(eok));
  CHECK_OK(rs_stream_synchronize(ok));
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_event_destroy(eok));
  CHECK_OK(rs_stream_destroy(ok));
}

static void *open_gate_later(void *u) {
  rs_t_sleep_ms_(150);
  atomic_store(&((gate *)u)->open, 1);
  return NULL;
}

static void test_destroy_with_pending_work(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  /* work already queued on a destroyed stream still completes */
  rs_stream *s = NULL;
  trio t;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(trio_make(&t, ctx, 1 << 18, 61));
  static gate g; /* static: a callback may outlive an early return */
  gate_init(&g);
  static run_log log;
  memset(&log, 0, sizeof log);
  static log_arg a;
  a = (log_arg){&log, 7};
  CHECK_OK(rs_stream_add_callback(s, gate_fn, &g));
  CHECK_OK(rs_to_device_into(t.dev, t.src, s));
  CHECK_OK(rs_copy_to_host_into(t.dst, t.dev, s));
  CHECK_OK(rs_stream_add_callback(s, log_fn, &a));
  int entered = gate_wait_entered(&g);
  /* rs_stream_destroy may return at once or wait for the queue: open the gate from
   * another thread so that either works */
  pthread_t opener;
  CHECK(pthread_create(&opener, NULL, open_gate_later, &g) == 0);
  rs_status dst = rs_stream_destroy(s);
  pthread_join(opener, NULL);
  CHECK(entered);
  CHECK_OK(dst);
  CHECK_OK(rs_context_synchronize(ctx));
  /* the context synchronize waited for the destroyed stream's queue */
  CHECK_EQ_I64(atomic_load(&log.n), 1);
  CHECK_EQ_I64(log.order[0], 7);
  CHECK_BYTES_EQ(rs_array_host_data(t.dst), rs_array_host_data(t.src), t.bytes);
  CHECK_EQ_I64(atomic_load(&g.timed_out), 0);
  trio_free(&t);
}

static const rs_test_case tests[] = {
    RS_TEST(test_blocking_stream),       RS_TEST(test_non_blocking_stream),
    RS_TEST(test_legacy_and_per_thread), RS_TEST(test_wrap_native),
    RS_TEST(test_callbacks),             RS_TEST(test_query_not_done),
    RS_TEST(test_events),                RS_TEST(test_wait_event),
    RS_TEST(test_blocking_vs_legacy),    RS_TEST(test_auto_synchronize),
    RS_TEST(test_destroyed_handles),     RS_TEST(test_destroy_with_pending_work),
};
RS_TEST_MAIN(tests)
