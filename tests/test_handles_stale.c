/* Issue 11 item 11: handles that are gone stay detectably gone. Two threads releasing
 * (destroying) one handle: exactly one succeeds. A handle whose slot was reused by a new
 * object is stale, not the new object. A handle used after its context was destroyed is
 * refused, not a use after free. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define RACE_ROUNDS 20000
#define RACE_SECONDS 10.0 /* at most, so slow builds (TSan) stay well inside the alarm */

static double race_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The racers spin on a flag rather than sleep in a barrier: they start within
 * nanoseconds of each other, inside the window a check-then-act leaves open. */
typedef struct race_start {
  _Atomic int ready, go;
} race_start;

typedef struct racer {
  race_start *start;
  void *handle;
  rs_status (*end)(void *handle);
  rs_status result;
} racer;

static rs_status end_array(void *h) { return rs_array_release(h); }
static rs_status end_stream(void *h) { return rs_stream_destroy(h); }
static rs_status end_event(void *h) { return rs_event_destroy(h); }

static void *race_main(void *arg) {
  racer *r = arg;
  atomic_fetch_add(&r->start->ready, 1);
  while (!atomic_load(&r->start->go)) sched_yield();
  r->result = r->end(r->handle);
  return NULL;
}

/* Run `threads` concurrent ends of one handle; *ok = how many returned RS_OK, *gone =
 * how many the dead status. */
static void race_once(void *handle, rs_status (*end)(void *), int threads, int *ok, int *gone,
                      rs_status dead) {
  race_start start = {0, 0};
  pthread_t t[4];
  racer r[4];
  for (int i = 0; i < threads; i++) {
    r[i] = (racer){&start, handle, end, RS_ERR_INTERNAL};
    pthread_create(&t[i], NULL, race_main, &r[i]);
  }
  while (atomic_load(&start.ready) < threads) sched_yield();
  atomic_store(&start.go, 1);
  *ok = *gone = 0;
  for (int i = 0; i < threads; i++) {
    pthread_join(t[i], NULL);
    *ok += r[i].result == RS_OK;
    *gone += r[i].result == dead;
  }
}

static void test_release_race(rs_context *ctx) {
  const int64_t shape[1] = {4};
  double end = race_now() + RACE_SECONDS;
  for (int round = 0; round < RACE_ROUNDS && race_now() < end; round++) {
    rs_array *a = NULL;
    CHECK_OK(rs_host_array(&a, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C));
    int threads = 2 + round % 2, ok = 0, gone = 0;
    race_once(a, end_array, threads, &ok, &gone, RS_ERR_RELEASED);
    CHECK_MSG(ok == 1 && gone == threads - 1,
              "round %d: %d threads released one reference: %d RS_OK, %d RS_ERR_RELEASED", round,
              threads, ok, gone);
  }
}

static void test_destroy_race(rs_context *ctx) {
  double end = race_now() + RACE_SECONDS / 4;
  for (int round = 0; round < RACE_ROUNDS / 10 && race_now() < end; round++) {
    rs_stream *s = NULL;
    rs_event *e = NULL;
    CHECK_OK(rs_stream_create(&s, ctx, 0));
    CHECK_OK(rs_event_create(&e, ctx, 0));
    int ok = 0, gone = 0;
    race_once(s, end_stream, 2, &ok, &gone, RS_ERR_DESTROYED);
    CHECK_MSG(ok == 1 && gone == 1, "round %d: stream destroyed %d times, %d refused", round, ok, gone);
    race_once(e, end_event, 2, &ok, &gone, RS_ERR_DESTROYED);
    CHECK_MSG(ok == 1 && gone == 1, "round %d: event destroyed %d times, %d refused", round, ok, gone);
  }
}

/* Release an array, then make new arrays until one takes its slot's memory: the old
 * handle still reads as released and never reaches the new array. */
static void test_stale_handle_after_reuse(rs_context *ctx) {
  const int64_t shape[1] = {4};
  rs_array *old = NULL;
  CHECK_OK(rs_host_array(&old, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(old));
  enum { N = 8 };
  rs_array *fresh[N] = {0};
  int same_address = 0;
  for (int i = 0; i < N; i++) {
    CHECK_OK(rs_host_array(&fresh[i], ctx, 2, (const int64_t[]){3, 5}, RS_INT16, NULL, RS_ORDER_C));
    same_address += fresh[i] == old;
  }
  /* The stale handle: released, and it does not see the new arrays' layout. */
  CHECK(rs_array_ndim(old) == 0 && rs_array_shape(old) == NULL);
  CHECK_STATUS(rs_array_retain(old), RS_ERR_RELEASED);
  CHECK_STATUS(rs_array_release(old), RS_ERR_RELEASED);
  rs_array *v = NULL;
  CHECK_STATUS(rs_array_transpose(&v, old), RS_ERR_RELEASED);
  /* ...and the new arrays were not touched by it. */
  for (int i = 0; i < N; i++) {
    CHECK(rs_array_ndim(fresh[i]) == 2);
    CHECK_OK(rs_array_release(fresh[i]));
  }
  CHECK_MSG(same_address == 0, "a new array was handed out at a released handle's address");
}

/* The same for streams and events, and a stale handle in a destroy race. */
static void test_stale_stream_and_event(rs_context *ctx) {
  rs_stream *s = NULL, *s2 = NULL;
  rs_event *e = NULL, *e2 = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_event_create(&e, ctx, 0));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_event_destroy(e));
  CHECK_OK(rs_stream_create(&s2, ctx, 0));
  CHECK_OK(rs_event_create(&e2, ctx, 0));
  CHECK(s2 != s && e2 != e);
  CHECK_STATUS(rs_stream_synchronize(s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_record(e, s2), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_stream_destroy(s), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_event_destroy(e), RS_ERR_DESTROYED);
  CHECK_OK(rs_event_record(e2, s2)); /* the new ones are untouched */
  CHECK_OK(rs_stream_synchronize(s2));
  CHECK_OK(rs_event_destroy(e2));
  CHECK_OK(rs_stream_destroy(s2));
}

/* Handles of a destroyed context: refused with a message, also once a new context has
 * taken the memory of their slots. */
static void test_handles_after_context_destroy(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), rs_context_device(ctx)));
  const int64_t shape[1] = {16};
  rs_array *a = NULL, *h = NULL;
  rs_stream *s = NULL;
  rs_event *e = NULL;
  rs_status st = rs_device_array(&a, c, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_host_array(&h, c, 1, shape, RS_FLOAT64, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_stream_create(&s, c, 0);
  if (st == RS_OK) st = rs_event_create(&e, c, 0);
  CHECK_OK(rs_context_destroy(c)); /* with everything still alive: freed by the destroy */
  CHECK_OK(st);
  for (int round = 0; round < 2; round++) {
    CHECK_STATUS(rs_array_release(a), RS_ERR_RELEASED);
    CHECK_ERRMSG("context", "released");
    CHECK(rs_array_ndim(h) == 0 && rs_array_context(h) == NULL);
    rs_array *v = NULL;
    CHECK_STATUS(rs_array_transpose(&v, h), RS_ERR_RELEASED);
    CHECK_STATUS(rs_stream_synchronize(s), RS_ERR_DESTROYED);
    CHECK_STATUS(rs_stream_destroy(s), RS_ERR_DESTROYED);
    CHECK_STATUS(rs_event_destroy(e), RS_ERR_DESTROYED);
    CHECK_ERRMSG("context", "destroyed");
    /* A new context (it may take over the slots' memory) changes nothing for them. */
    if (round == 0) {
      CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), rs_context_device(ctx)));
      rs_array *b[4] = {0};
      for (int i = 0; i < 4; i++) CHECK_OK(rs_device_array(&b[i], c, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C));
      rs_stream *other = NULL;
      CHECK_OK(rs_stream_create(&other, c, 0));
      CHECK_OK(rs_stream_destroy(other));
      CHECK_STATUS(rs_array_release(a), RS_ERR_RELEASED);
      for (int i = 0; i < 4; i++) CHECK_OK(rs_array_release(b[i]));
      CHECK_OK(rs_context_destroy(c));
    }
  }
}

/* A forked child has its own handles: what it releases stays alive in the parent (the
 * handle memory is mapped shared between its views, not between processes). */
static void test_fork_keeps_handles_apart(rs_context *ctx) {
  const int64_t shape[1] = {4};
  rs_array *p = NULL;
  CHECK_OK(rs_host_array(&p, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(rs_array_release(p) == RS_OK ? 0 : 3);
  int status = -1;
  if (pid > 0) waitpid(pid, &status, 0);
  int alive = rs_array_ndim(p) == 1;
  rs_status st = rs_array_release(p);
  CHECK(pid > 0);
  CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child's release failed (status %d)", status);
  CHECK_MSG(alive, "the child's release of its copy released the parent's array");
  CHECK_OK(st);
}

static const rs_test_case tests[] = {
    RS_TEST(test_release_race),
    RS_TEST(test_destroy_race),
    RS_TEST(test_stale_handle_after_reuse),
    RS_TEST(test_stale_stream_and_event),
    RS_TEST(test_handles_after_context_destroy),
    RS_TEST(test_fork_keeps_handles_apart),
};
RS_TEST_MAIN(tests)
