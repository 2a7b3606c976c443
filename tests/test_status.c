/* Status codes: names, descriptions, and the thread-local last-error message. */
#include <pthread.h>
#include <sched.h>
#include "harness.h"

typedef struct {
  rs_status code;
  const char *name;
  const char *text;
} status_row;

static const status_row all_codes[] = {
#define ROW_(name, value, text) {name, #name, text},
    RS_STATUS_LIST(ROW_)
#undef ROW_
};
#define NCODES ((int)(sizeof all_codes / sizeof all_codes[0]))

static void test_names_and_descriptions(rs_context *ctx) {
  (void)ctx;
  CHECK(NCODES >= 30);
  for (int i = 0; i < NCODES; i++) {
    const char *n = rs_status_name(all_codes[i].code);
    const char *d = rs_status_str(all_codes[i].code);
    CHECK_MSG(n != NULL && d != NULL, "code %d", (int)all_codes[i].code);
    /* the name is the enumerator's own spelling, the description the list's text */
    CHECK_STREQ(n, all_codes[i].name);
    CHECK_STREQ(d, all_codes[i].text);
    CHECK_MSG(d[0] != '\0', "empty description for %s", n);
    for (int j = 0; j < i; j++) {
      CHECK_MSG(all_codes[i].code != all_codes[j].code, "%s and %s share a value", n,
                all_codes[j].name);
      CHECK_MSG(strcmp(n, rs_status_name(all_codes[j].code)) != 0, "duplicate name %s", n);
      CHECK_MSG(strcmp(d, rs_status_str(all_codes[j].code)) != 0,
                "%s and %s share the description \"%s\"", n, all_codes[j].name, d);
    }
  }
  /* fixed values that the header promises never change */
  CHECK_EQ_I64(RS_OK, 0);
  CHECK_EQ_I64(RS_ERR_SHAPE, -10);
  CHECK_EQ_I64(RS_ERR_OUT_OF_MEMORY, -20);
  CHECK_EQ_I64(RS_ERR_NO_DEVICE, -30);
  CHECK_EQ_I64(RS_ERR_DESTROYED, -60);
  CHECK_EQ_I64(RS_ERR_INTERNAL, -99);
  CHECK_STREQ(rs_status_name(RS_ERR_SHAPE), "RS_ERR_SHAPE");
  CHECK_STREQ(rs_status_name(RS_OK), "RS_OK");
}

static void test_unknown_code(rs_context *ctx) {
  (void)ctx;
  const int unknown[] = {1, -4, -9, -18, -100, 12345, -12345};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    CHECK_STREQ(rs_status_name((rs_status)unknown[i]), "RS_UNKNOWN_STATUS");
    const char *d = rs_status_str((rs_status)unknown[i]);
    CHECK(d != NULL && d[0] != '\0');
  }
}

static void test_last_error_set_and_cleared(rs_context *ctx) {
  (void)ctx;
  rs_dtype dt = RS_INT16;
  rs_clear_error();
  CHECK_STREQ(rs_last_error(), "");
  CHECK_STATUS(rs_dtype_from_name("not_a_dtype_xyz", &dt), RS_ERR_DTYPE);
  CHECK(rs_last_error()[0] != '\0');
  CHECK_ERRMSG("not_a_dtype_xyz");
  CHECK_EQ_I64(dt, RS_INT16); /* a failed call changes nothing */
  rs_clear_error();
  CHECK_STREQ(rs_last_error(), "");
  /* a failure from a different layer sets a different message */
  rs_backend_kind k = RS_BACKEND_SIM;
  CHECK_STATUS(rs_backend_from_name("quantum", &k), RS_ERR_PARSE);
  CHECK_ERRMSG("quantum");
  CHECK_EQ_I64(k, RS_BACKEND_SIM);
  /* a failing call on a context (not only the pure helpers) sets it too */
  rs_array *a = NULL;
  int64_t shape[2] = {2, 3};
  rs_clear_error();
  CHECK_FAILS(rs_device_array(&a, ctx, 2, shape, (rs_dtype)77, NULL, RS_ORDER_C));
  CHECK(a == NULL);
}

/* ---- thread-locality --------------------------------------------------------------- */

typedef struct {
  char initial[64];   /* what the new thread saw before failing (must be "") */
  char after[1100];   /* its message after its own failure */
  rs_status st;
} thread_seen;

static void *second_thread(void *arg) {
  thread_seen *t = (thread_seen *)arg;
  snprintf(t->initial, sizeof t->initial, "%s", rs_last_error());
  rs_backend_kind k;
  t->st = rs_backend_from_name("thread_two_backend", &k);
  snprintf(t->after, sizeof t->after, "%s", rs_last_error());
  return NULL;
}

static void test_last_error_thread_local(rs_context *ctx) {
  (void)ctx;
  rs_dtype dt;
  CHECK_STATUS(rs_dtype_from_name("main_thread_dtype", &dt), RS_ERR_DTYPE);
  char mine[1100];
  snprintf(mine, sizeof mine, "%s", rs_last_error());
  CHECK(mine[0] != '\0');

  thread_seen t;
  memset(&t, 0, sizeof t);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, second_thread, &t) == 0);
  CHECK(pthread_join(th, NULL) == 0);

  CHECK_MSG(t.initial[0] == '\0', "a new thread sees \"%s\" instead of \"\"", t.initial);
  CHECK_EQ_I64(t.st, RS_ERR_PARSE);
  CHECK_MSG(t.after[0] != '\0', "the second thread's failure left no message");
  CHECK_MSG(rs_t_contains_(t.after, "thread_two_backend"), "second thread saw \"%s\"",
            t.after);
  /* the main thread still has its own message */
  CHECK_STREQ(rs_last_error(), mine);
  CHECK_MSG(!rs_t_contains_(rs_last_error(), "thread_two_backend"),
            "the other thread's message leaked into this one: \"%s\"", rs_last_error());
}

#define NTHREADS 6
#define NITER 2000

typedef struct {
  int id;
  int bad; /* iterations where the message was not this thread's */
  char last_bad[256];
  pthread_barrier_t *barrier;
} hammer_arg;

static void *hammer(void *p) {
  hammer_arg *a = (hammer_arg *)p;
  char word[64];
  pthread_barrier_wait(a->barrier);
  for (int i = 0; i < NITER; i++) {
    snprintf(word, sizeof word, "thr%d_iter%d_word", a->id, i);
    rs_dtype dt;
    rs_status st = rs_dtype_from_name(word, &dt);
    sched_yield();
    if (st != RS_ERR_DTYPE || !rs_t_contains_(rs_last_error(), word)) {
      if (!a->bad) snprintf(a->last_bad, sizeof a->last_bad, "%s", rs_last_error());
      a->bad++;
    }
  }
  return NULL;
}

static void test_last_error_many_threads(rs_context *ctx) {
  (void)ctx;
  pthread_t th[NTHREADS];
  hammer_arg args[NTHREADS];
  pthread_barrier_t barrier;
  CHECK(pthread_barrier_init(&barrier, NULL, NTHREADS) == 0);
  for (int i = 0; i < NTHREADS; i++) {
    memset(&args[i], 0, sizeof args[i]);
    args[i].id = i;
    args[i].barrier = &barrier;
    if (pthread_create(&th[i], NULL, hammer, &args[i]) != 0) {
      /* cannot start the rest: the barrier would never open; give up loudly */
      fprintf(stderr, "pthread_create failed\n");
      exit(1);
    }
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&barrier);
  for (int i = 0; i < NTHREADS; i++)
    CHECK_MSG(args[i].bad == 0, "thread %d saw a foreign message %d times, e.g. \"%s\"", i,
              args[i].bad, args[i].last_bad);
}

static const rs_test_case tests[] = {
    RS_TEST(test_names_and_descriptions),
    RS_TEST(test_unknown_code),
    RS_TEST(test_last_error_set_and_cleared),
    RS_TEST(test_last_error_thread_local),
    RS_TEST(test_last_error_many_threads),
};
RS_TEST_MAIN(tests)
