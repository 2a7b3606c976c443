/* Issue 11 item 11: handles that are gone stay detectably gone. Two threads releasing
 * (destroying) one handle: exactly one succeeds. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "harness.h"

#define RACE_ROUNDS 20000

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
  for (int round = 0; round < RACE_ROUNDS; round++) {
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
  for (int round = 0; round < RACE_ROUNDS / 10; round++) {
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

static const rs_test_case tests[] = {
    RS_TEST(test_release_race),
    RS_TEST(test_destroy_race),
};
RS_TEST_MAIN(tests)
