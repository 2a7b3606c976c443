/* Stress: random allocations and frees from 4 threads, sizes from 1 byte to 64 MiB
 * (log-uniform, so every size class is hit), through arrays and raw memory, with frees
 * handed between threads and a thread that releases the cache now and then. All memory
 * must be back at the end. Run under ThreadSanitizer (-DRESIDENT_TSAN=ON) this is the
 * race check of the pool.
 *
 * RESIDENT_STRESS_OPS sets the total number of allocations and frees (default 1,000,000;
 * 100,000 in sanitizer builds, which run 5-20 times slower; set it to 1000000 there to run
 * the full count). */
#include <pthread.h>
#include <stdatomic.h>
#include "harness.h"
#include "resident/allocator.h"

#define S1(a) ((const int64_t[]){a})
#define THREADS 4
#define SLOTS 8     /* live allocations per thread at most */
#define EXCHANGE 16 /* arrays handed from one thread to another */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_OPS 100000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DEFAULT_OPS 100000
#endif
#endif
#ifndef DEFAULT_OPS
#define DEFAULT_OPS 1000000
#endif

typedef struct shared {
  rs_context *ctx;
  int64_t ops_per_thread;
  pthread_mutex_t xlock;
  rs_array *exchange[EXCHANGE];
  atomic_llong oom, errors, allocations, bytes;
  char first_error[512];
} shared;

typedef struct worker {
  shared *sh;
  int id;
  uint64_t rng;
} worker;

static uint64_t next_rand(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* 1 byte .. 64 MiB, log-uniform */
static int64_t random_size(uint64_t *x) {
  int shift = (int)(next_rand(x) % 27); /* 2^0 .. 2^26 */
  int64_t base = (int64_t)1 << shift;
  int64_t n = base + (int64_t)(next_rand(x) % (uint64_t)base);
  return n < ((int64_t)64 << 20) ? n : ((int64_t)64 << 20);
}

static void note_error(shared *sh, rs_status st, const char *what) {
  if (st == RS_ERR_OUT_OF_MEMORY) {
    atomic_fetch_add(&sh->oom, 1);
    return;
  }
  if (atomic_fetch_add(&sh->errors, 1) == 0)
    snprintf(sh->first_error, sizeof sh->first_error, "%s: %s: %s", what, rs_status_name(st),
             rs_last_error());
}

static void *work(void *arg) {
  worker *w = arg;
  shared *sh = w->sh;
  rs_array *arrays[SLOTS] = {0};
  void *raw[SLOTS] = {0};
  /* Only allocations and frees count towards the total; the rest is traffic around them. */
  for (int64_t done = 0; done < sh->ops_per_thread;) {
    uint64_t r = next_rand(&w->rng);
    int slot = (int)(r % SLOTS);
    int kind = (int)((r >> 8) % 16);
    rs_status st = RS_OK;
    if (kind < 14) done++;
    if (kind < 10) { /* arrays */
      if (arrays[slot]) {
        st = rs_array_release(arrays[slot]);
        arrays[slot] = NULL;
        if (st != RS_OK) note_error(sh, st, "release");
      } else {
        int64_t n = random_size(&w->rng);
        st = rs_device_array(&arrays[slot], sh->ctx, 1, S1(n), RS_UINT8, NULL, RS_ORDER_C);
        if (st != RS_OK) {
          note_error(sh, st, "rs_device_array");
        } else {
          atomic_fetch_add(&sh->allocations, 1);
          atomic_fetch_add(&sh->bytes, n);
        }
      }
    } else if (kind < 14) { /* raw memory */
      if (raw[slot]) {
        st = rs_memory_free(sh->ctx, raw[slot], NULL);
        raw[slot] = NULL;
        if (st != RS_OK) note_error(sh, st, "rs_memory_free");
      } else {
        int64_t n = random_size(&w->rng);
        st = rs_memory_alloc(&raw[slot], sh->ctx, (size_t)n, NULL);
        if (st != RS_OK)
          note_error(sh, st, "rs_memory_alloc");
        else
          atomic_fetch_add(&sh->allocations, 1);
      }
    } else if (kind < 15) { /* hand an array to whichever thread takes the slot next */
      int x = (int)((r >> 16) % EXCHANGE);
      pthread_mutex_lock(&sh->xlock);
      rs_array *theirs = sh->exchange[x];
      sh->exchange[x] = arrays[slot];
      pthread_mutex_unlock(&sh->xlock);
      arrays[slot] = theirs;
    } else if (w->id == 0 && (r >> 20) % 64 == 0) { /* give the cache back meanwhile */
      st = rs_memory_release(sh->ctx, RS_SPACE_DEVICE);
      if (st != RS_OK) note_error(sh, st, "rs_memory_release");
    } else {
      rs_memory_stats ms;
      st = rs_memory_get_stats(sh->ctx, RS_SPACE_DEVICE, &ms);
      if (st != RS_OK)
        note_error(sh, st, "rs_memory_get_stats");
      else if (ms.in_use_bytes < 0 || ms.cached_bytes < 0)
        note_error(sh, RS_ERR_INTERNAL, "negative stats");
    }
  }
  for (int i = 0; i < SLOTS; i++) {
    if (arrays[i]) rs_array_release(arrays[i]);
    if (raw[i]) rs_memory_free(sh->ctx, raw[i], NULL);
  }
  return NULL;
}

static int64_t total_ops(void) {
  const char *v = getenv("RESIDENT_STRESS_OPS");
  if (v && *v) {
    long long n = atoll(v);
    if (n > 0) return n;
  }
  return DEFAULT_OPS;
}

static void test_stress_four_threads(rs_context *ctx) {
  static shared sh;
  memset(&sh, 0, sizeof sh);
  CHECK_OK(rs_context_create(&sh.ctx, rs_context_backend(ctx), 0));
  pthread_mutex_init(&sh.xlock, NULL);
  int64_t ops = total_ops();
  sh.ops_per_thread = ops / THREADS;
  worker w[THREADS];
  pthread_t t[THREADS];
  double t0 = rs_t_now_ms_();
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){&sh, i, 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1)};
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  double ms = rs_t_now_ms_() - t0;
  for (int i = 0; i < EXCHANGE; i++)
    if (sh.exchange[i]) CHECK_OK(rs_array_release(sh.exchange[i]));
  printf(
      "\n    %lld allocations and frees in %.0f ms (%.2f us each); %lld allocations, "
      "%lld out of memory\n",
      (long long)ops, ms, ms * 1000.0 / (double)ops, (long long)atomic_load(&sh.allocations),
      (long long)atomic_load(&sh.oom));
  CHECK_MSG(atomic_load(&sh.errors) == 0, "%lld errors, first: %s",
            (long long)atomic_load(&sh.errors), sh.first_error);
  /* out of memory is allowed (64 MiB blocks, 1 GiB device) but must stay rare */
  CHECK_MSG(atomic_load(&sh.oom) * 100 < atomic_load(&sh.allocations) + 100, "%lld out of memory",
            (long long)atomic_load(&sh.oom));
  rs_memory_stats st;
  CHECK_OK(rs_memory_get_stats(sh.ctx, RS_SPACE_DEVICE, &st));
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.requested_bytes, 0);
  CHECK_EQ_I64(st.allocations, st.frees);
  CHECK_OK(rs_memory_release(sh.ctx, RS_SPACE_DEVICE));
  CHECK_OK(rs_memory_get_stats(sh.ctx, RS_SPACE_DEVICE, &st));
  CHECK_EQ_I64(st.reserved_bytes, 0);
  CHECK_EQ_I64(st.segments, 0);
  if (rs_context_backend(sh.ctx) == RS_BACKEND_SIM)
    CHECK_EQ_I64(st.device_free_bytes, st.device_total_bytes); /* all memory is back */
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(sh.ctx, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
  CHECK_EQ_I64(live.device_bytes, 0);
  pthread_mutex_destroy(&sh.xlock);
  rs_context_destroy(sh.ctx);
}

static void test_stress_direct_allocator(rs_context *ctx) {
  /* the queue under contention: fewer operations, every one a device call */
  static shared sh;
  memset(&sh, 0, sizeof sh);
  CHECK_OK(rs_context_create(&sh.ctx, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(sh.ctx, RS_ALLOCATOR_DIRECT, NULL));
  pthread_mutex_init(&sh.xlock, NULL);
  sh.ops_per_thread = total_ops() / THREADS / 50;
  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){&sh, i, 0xD1B54A32D192ED03ull * (uint64_t)(i + 1)};
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < EXCHANGE; i++)
    if (sh.exchange[i]) CHECK_OK(rs_array_release(sh.exchange[i]));
  CHECK_MSG(atomic_load(&sh.errors) == 0, "%lld errors, first: %s",
            (long long)atomic_load(&sh.errors), sh.first_error);
  CHECK_OK(rs_memory_flush(sh.ctx));
  rs_memory_stats st;
  CHECK_OK(rs_memory_get_stats(sh.ctx, RS_SPACE_DEVICE, &st));
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.pending_frees, 0);
  if (rs_context_backend(sh.ctx) == RS_BACKEND_SIM)
    CHECK_EQ_I64(st.device_free_bytes, st.device_total_bytes);
  pthread_mutex_destroy(&sh.xlock);
  rs_context_destroy(sh.ctx);
}

static void test_stress_under_a_limit(rs_context *ctx) {
  /* a cap the threads keep running into: the out-of-memory path (trim, retry, report)
   * under contention */
  static shared sh;
  memset(&sh, 0, sizeof sh);
  CHECK_OK(rs_context_create(&sh.ctx, rs_context_backend(ctx), 0));
  CHECK_OK(rs_memory_set_limit(sh.ctx, RS_SPACE_DEVICE, (size_t)192 << 20));
  pthread_mutex_init(&sh.xlock, NULL);
  sh.ops_per_thread = total_ops() / THREADS / 10;
  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){&sh, i, 0xA0761D6478BD642Full * (uint64_t)(i + 1)};
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < EXCHANGE; i++)
    if (sh.exchange[i]) CHECK_OK(rs_array_release(sh.exchange[i]));
  printf("\n    %lld allocations, %lld out of memory\n", (long long)atomic_load(&sh.allocations),
         (long long)atomic_load(&sh.oom));
  CHECK_MSG(atomic_load(&sh.errors) == 0, "%lld errors, first: %s",
            (long long)atomic_load(&sh.errors), sh.first_error);
  CHECK(atomic_load(&sh.oom) > 0); /* the cap was reached */
  rs_memory_stats st;
  CHECK_OK(rs_memory_get_stats(sh.ctx, RS_SPACE_DEVICE, &st));
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK(st.peak_reserved_bytes <= (int64_t)192 << 20);
  CHECK_EQ_I64(st.oom_failures, atomic_load(&sh.oom));
  CHECK_OK(rs_memory_release(sh.ctx, RS_SPACE_DEVICE));
  CHECK_OK(rs_memory_get_stats(sh.ctx, RS_SPACE_DEVICE, &st));
  CHECK_EQ_I64(st.reserved_bytes, 0);
  if (rs_context_backend(sh.ctx) == RS_BACKEND_SIM)
    CHECK_EQ_I64(st.device_free_bytes, st.device_total_bytes);
  pthread_mutex_destroy(&sh.xlock);
  rs_context_destroy(sh.ctx);
}

static const rs_test_case tests[] = {
    RS_TEST(test_stress_four_threads),
    RS_TEST(test_stress_direct_allocator),
    RS_TEST(test_stress_under_a_limit),
};
RS_TEST_MAIN(tests)
