/* The direct allocator and Numba's pending-deallocation queue: every flush trigger
 * (count, bytes, out of memory, explicit), defer_cleanup scopes and their nesting, and a
 * free that fails in the middle of a flush (a fault-injecting user allocator): the error
 * is reported and the entries after it are cancelled, not freed. */
#include <pthread.h>
#include "harness.h"
#include "resident/allocator.h"

#define S1(a) ((const int64_t[]){a})
#define MiB ((int64_t)1024 * 1024)

static rs_context *direct_context(rs_context *ctx) {
  rs_context *c = NULL;
  if (rs_context_create(&c, rs_context_backend(ctx), 0) != RS_OK) return NULL;
  if (rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL) != RS_OK) {
    rs_context_destroy(c);
    return NULL;
  }
  return c;
}

static rs_memory_stats stats_of(rs_context *c) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  if (rs_memory_get_stats(c, RS_SPACE_DEVICE, &st) != RS_OK) st.in_use_bytes = -1;
  return st;
}

static void test_direct_basics(rs_context *ctx) {
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  CHECK_EQ_I64(rs_context_allocator(c), RS_ALLOCATOR_DIRECT);
  rs_memory_stats st = stats_of(c);
  CHECK_STREQ(st.name, "direct");
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(1000), RS_UINT8, NULL, RS_ORDER_C));
  st = stats_of(c);
  CHECK_EQ_I64(st.in_use_bytes, 1000); /* exact: no rounding */
  CHECK_EQ_I64(st.misses, 1);
  CHECK_EQ_I64(st.segments, 1);
  CHECK_OK(rs_array_release(a));
  st = stats_of(c);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.pending_frees, 1);
  CHECK_EQ_I64(st.pending_bytes, 1000);
  CHECK_EQ_I64(st.cached_bytes, 1000);
  CHECK_EQ_I64(st.reserved_bytes, 1000);
  CHECK_OK(rs_memory_flush(c));
  st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 0);
  CHECK_EQ_I64(st.flushes, 1);
  /* double and foreign frees */
  void *p = NULL;
  CHECK_OK(rs_memory_alloc(&p, c, 64, NULL));
  CHECK_STATUS(rs_memory_free(c, (char *)p + 256, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_OK(rs_memory_free(c, p, NULL));
  CHECK_STATUS(rs_memory_free(c, p, NULL), RS_ERR_DOUBLE_FREE); /* still queued */
  CHECK_OK(rs_memory_flush(c));
  CHECK_STATUS(rs_memory_free(c, p, NULL), RS_ERR_DOUBLE_FREE); /* freed recently */
  rs_context_destroy(c);
}

static void test_flush_on_count(rs_context *ctx) {
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  CHECK_OK(rs_memory_set_pending_limits(c, 10, 1.0));
  rs_array *a[11];
  for (int i = 0; i < 11; i++)
    CHECK_OK(rs_device_array(&a[i], c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  for (int i = 0; i < 10; i++) CHECK_OK(rs_array_release(a[i]));
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 10); /* "more than 10" flushes: 10 stay */
  CHECK_EQ_I64(st.flushes, 0);
  CHECK_OK(rs_array_release(a[10]));
  st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 0);
  CHECK_EQ_I64(st.flushes, 1);
  CHECK_EQ_I64(st.frees, 11);
  CHECK_EQ_I64(st.reserved_bytes, 0);
  /* the default threshold is 10 as well */
  rs_context *d = direct_context(ctx);
  CHECK(d != NULL);
  if (!getenv("RESIDENT_MAX_PENDING_DEALLOCS_COUNT")) {
    for (int i = 0; i < 11; i++)
      CHECK_OK(rs_device_array(&a[i], d, 1, S1(16), RS_UINT8, NULL, RS_ORDER_C));
    for (int i = 0; i < 11; i++) CHECK_OK(rs_array_release(a[i]));
    CHECK_EQ_I64(stats_of(d).flushes, 1);
  }
  rs_context_destroy(d);
  rs_context_destroy(c);
}

static void test_flush_on_bytes(rs_context *ctx) {
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  rs_memory_stats st = stats_of(c);
  int64_t total = st.device_total_bytes;
  CHECK(total > 0);
  /* 1% of the device: two arrays of 0.4% stay queued, the third crosses it */
  CHECK_OK(rs_memory_set_pending_limits(c, 1000, 0.01));
  int64_t n = total / 250;
  rs_array *a[3];
  for (int i = 0; i < 3; i++)
    CHECK_OK(rs_device_array(&a[i], c, 1, S1(n), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a[0]));
  CHECK_OK(rs_array_release(a[1]));
  st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 2);
  CHECK_EQ_I64(st.pending_bytes, 2 * n);
  CHECK_EQ_I64(st.flushes, 0);
  CHECK_OK(rs_array_release(a[2]));
  st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 0);
  CHECK_EQ_I64(st.flushes, 1);
  rs_context_destroy(c);
}

static void test_flush_on_out_of_memory(rs_context *ctx) {
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  int64_t total = stats_of(c).device_total_bytes;
  CHECK_OK(rs_memory_set_pending_limits(c, 1000, 1.0)); /* only out of memory flushes */
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(total / 10 * 6), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 1);
  CHECK_OK(rs_device_array(&b, c, 1, S1(total / 10 * 6), RS_UINT8, NULL, RS_ORDER_C));
  st = stats_of(c);
  CHECK_EQ_I64(st.flushes, 1);
  CHECK_EQ_I64(st.pending_frees, 0);
  CHECK_EQ_I64(st.oom_recoveries, 1);
  CHECK_OK(rs_array_release(b));
  /* too big even after the flush: a clear failure, nothing leaked, still working */
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(total + 1), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("requested");
  CHECK_EQ_I64(stats_of(c).in_use_bytes, 0);
  CHECK_OK(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  rs_context_destroy(c);
}

static void test_defer_cleanup_nesting(rs_context *ctx) {
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  CHECK_OK(rs_memory_set_pending_limits(c, 2, 1.0));
  rs_array *a[5];
  for (int i = 0; i < 5; i++)
    CHECK_OK(rs_device_array(&a[i], c, 1, S1(1024), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_defer_cleanup_begin(c));
  CHECK_OK(rs_defer_cleanup_begin(c));
  CHECK_EQ_I64(stats_of(c).defer_depth, 2);
  for (int i = 0; i < 5; i++) CHECK_OK(rs_array_release(a[i]));
  CHECK_EQ_I64(stats_of(c).pending_frees, 5); /* over the threshold, but suspended */
  CHECK_OK(rs_defer_cleanup_end(c));
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 5); /* the outer scope still holds them */
  CHECK_EQ_I64(st.defer_depth, 1);
  CHECK_EQ_I64(st.flushes, 0);
  CHECK_OK(rs_defer_cleanup_end(c));
  st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 0); /* the end of the outermost scope flushed */
  CHECK_EQ_I64(st.flushes, 1);
  CHECK_EQ_I64(st.defer_depth, 0);
  CHECK_STATUS(rs_defer_cleanup_end(c), RS_ERR_STATE);
  CHECK_ERRMSG("no defer_cleanup scope");
  CHECK_STATUS(rs_defer_cleanup_begin(NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_defer_cleanup_end(NULL), RS_ERR_NULL_POINTER);
  /* under the threshold, the end of a scope leaves the queue alone */
  CHECK_OK(rs_defer_cleanup_begin(c));
  CHECK_OK(rs_device_array(&a[0], c, 1, S1(1024), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a[0]));
  CHECK_OK(rs_defer_cleanup_end(c));
  CHECK_EQ_I64(stats_of(c).pending_frees, 1);
  /* an explicit flush works inside a scope */
  CHECK_OK(rs_defer_cleanup_begin(c));
  CHECK_OK(rs_memory_flush(c));
  CHECK_EQ_I64(stats_of(c).pending_frees, 0);
  CHECK_OK(rs_defer_cleanup_end(c));
  rs_context_destroy(c);
}

static void test_defer_cleanup_holds_on_out_of_memory(rs_context *ctx) {
  /* as in Numba, an allocation failing inside a scope does not flush the queue; the
   * message says the memory is held back */
  rs_context *c = direct_context(ctx);
  CHECK(c != NULL);
  int64_t total = stats_of(c).device_total_bytes;
  CHECK_OK(rs_memory_set_pending_limits(c, 1000, 1.0));
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(total / 10 * 6), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_defer_cleanup_begin(c));
  CHECK_OK(rs_array_release(a));
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(total / 10 * 6), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("defer_cleanup");
  CHECK_EQ_I64(stats_of(c).pending_frees, 1);
  CHECK_OK(rs_defer_cleanup_end(c));
  CHECK_OK(rs_device_array(&a, c, 1, S1(total / 10 * 6), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  rs_context_destroy(c);
}

static void test_pending_limits_bad_input(rs_context *ctx) {
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, 0, 0.5), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("below 1");
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, -3, 0.5), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, 10, 0.0), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("outside (0, 1]");
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, 10, 1.0001), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, 10, -0.2), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_pending_limits(ctx, 10, NAN), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_pending_limits(NULL, 10, 0.2), RS_ERR_NULL_POINTER);
  CHECK_OK(rs_memory_set_pending_limits(ctx, 10, 1.0)); /* the bounds themselves are fine */
  CHECK_OK(rs_memory_set_pending_limits(ctx, 10, 0.2));
}

/* ---- a fault-injecting user allocator ----------------------------------------------------- */

#define FAULT_MAX 64
typedef struct fault_alloc {
  pthread_mutex_t lock;
  int allocs, frees;
  int fail_free_at; /* the n-th free call fails (0 = never) */
  void *live[FAULT_MAX];
} fault_alloc;

static rs_status fault_allocate(void *ud, size_t bytes, void *stream, void **out) {
  (void)stream;
  fault_alloc *f = ud;
  void *p = NULL;
  if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) return RS_ERR_OUT_OF_MEMORY;
  pthread_mutex_lock(&f->lock);
  f->allocs++;
  for (int i = 0; i < FAULT_MAX; i++)
    if (!f->live[i]) {
      f->live[i] = p;
      break;
    }
  pthread_mutex_unlock(&f->lock);
  *out = p;
  return RS_OK;
}

static rs_status fault_free(void *ud, void *ptr, size_t bytes, void *stream) {
  (void)bytes;
  (void)stream;
  fault_alloc *f = ud;
  pthread_mutex_lock(&f->lock);
  int n = ++f->frees;
  int fail = f->fail_free_at && n == f->fail_free_at;
  if (!fail)
    for (int i = 0; i < FAULT_MAX; i++)
      if (f->live[i] == ptr) f->live[i] = NULL;
  pthread_mutex_unlock(&f->lock);
  if (fail) return RS_ERR_DEVICE;
  free(ptr);
  return RS_OK;
}

static int fault_live(fault_alloc *f) {
  int n = 0;
  for (int i = 0; i < FAULT_MAX; i++) n += f->live[i] != NULL;
  return n;
}

static void test_error_during_flush_cancels_the_rest(rs_context *ctx) {
  static fault_alloc f;
  memset(&f, 0, sizeof f);
  pthread_mutex_init(&f.lock, NULL);
  rs_user_allocator ua = {"faulty", &f, fault_allocate, fault_free, NULL};
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, &ua));
  CHECK_STREQ(stats_of(c).name, "direct over faulty");
  CHECK_OK(rs_memory_set_pending_limits(c, 1000, 1.0));
  void *p[5];
  for (int i = 0; i < 5; i++) CHECK_OK(rs_memory_alloc(&p[i], c, 1000 + (size_t)i, NULL));
  CHECK_EQ_I64(f.allocs, 5);
  for (int i = 0; i < 5; i++) CHECK_OK(rs_memory_free(c, p[i], NULL));
  CHECK_EQ_I64(f.frees, 0); /* all queued */
  f.fail_free_at = 2;
  CHECK_STATUS(rs_memory_flush(c), RS_ERR_DEVICE);
  CHECK_ERRMSG("entry 2");
  CHECK_ERRMSG("3 entries after it");
  CHECK_ERRMSG("cancelled");
  CHECK_ERRMSG("faulty");
  CHECK_EQ_I64(f.frees, 2); /* the entries after the failing one were not freed */
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.pending_frees, 0);
  CHECK_EQ_I64(st.cancelled_frees, 3);
  CHECK_EQ_I64(st.flush_errors, 1);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  /* p[0] was freed, p[1] failed, p[2..4] cancelled: four blocks are still the
   * allocator's, which the application owns and frees itself */
  CHECK_EQ_I64(fault_live(&f), 4);
  /* the context goes on working, and the next flush is clean */
  f.fail_free_at = 0;
  void *q = NULL;
  CHECK_OK(rs_memory_alloc(&q, c, 64, NULL));
  CHECK_OK(rs_memory_free(c, q, NULL));
  CHECK_OK(rs_memory_flush(c));
  /* a failure in a flush set off by a release is reported by the release */
  CHECK_OK(rs_memory_set_pending_limits(c, 1, 1.0));
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(100), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&b, c, 1, S1(100), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  f.fail_free_at = f.frees + 1;
  CHECK_STATUS(rs_array_release(b), RS_ERR_DEVICE); /* b itself is released regardless */
  CHECK_EQ_I64(stats_of(c).cancelled_frees, 4);
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
  f.fail_free_at = 0;
  rs_context_destroy(c);
  /* what the flushes left: the application frees it */
  for (int i = 0; i < FAULT_MAX; i++) free(f.live[i]);
  pthread_mutex_destroy(&f.lock);
}

static const rs_test_case tests[] = {
    RS_TEST(test_direct_basics),
    RS_TEST(test_flush_on_count),
    RS_TEST(test_flush_on_bytes),
    RS_TEST(test_flush_on_out_of_memory),
    RS_TEST(test_defer_cleanup_nesting),
    RS_TEST(test_defer_cleanup_holds_on_out_of_memory),
    RS_TEST(test_pending_limits_bad_input),
    RS_TEST(test_error_during_flush_cancels_the_rest),
};
RS_TEST_MAIN(tests)
