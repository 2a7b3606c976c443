/* Pluggable allocators: a user allocator that counts its calls, alone and underneath the
 * pool; one that returns NULL or fails; choosing an allocator while memory is held; and
 * the bad arguments of rs_context_set_allocator. The "device" memory of these allocators
 * is host memory the tests never touch through resident, so they run on any backend. */
#include <pthread.h>
#include <stdatomic.h>
#include "harness.h"
#include "resident/allocator.h"

#define S1(a) ((const int64_t[]){a})
#define MiB ((int64_t)1024 * 1024)

typedef struct counting {
  atomic_int allocs, frees, infos;
  atomic_llong live_bytes;
  int return_null;      /* allocate answers RS_OK with NULL */
  rs_status fail_alloc; /* allocate answers this (RS_OK = succeed) */
  rs_status fail_free;  /* free answers this */
  void *last_stream;
} counting;

static rs_status count_allocate(void *ud, size_t bytes, void *stream, void **out) {
  counting *c = ud;
  atomic_fetch_add(&c->allocs, 1);
  c->last_stream = stream;
  if (c->fail_alloc != RS_OK) return c->fail_alloc;
  if (c->return_null) {
    *out = NULL;
    return RS_OK;
  }
  void *p = NULL;
  if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) return RS_ERR_OUT_OF_MEMORY;
  atomic_fetch_add(&c->live_bytes, (long long)bytes);
  *out = p;
  return RS_OK;
}

static rs_status count_free(void *ud, void *ptr, size_t bytes, void *stream) {
  (void)stream;
  counting *c = ud;
  atomic_fetch_add(&c->frees, 1);
  if (c->fail_free != RS_OK) return c->fail_free;
  atomic_fetch_sub(&c->live_bytes, (long long)bytes);
  free(ptr);
  return RS_OK;
}

static rs_status count_info(void *ud, size_t *free_bytes, size_t *total_bytes) {
  counting *c = ud;
  atomic_fetch_add(&c->infos, 1);
  *total_bytes = (size_t)(64 * MiB);
  *free_bytes = (size_t)(64 * MiB - atomic_load(&c->live_bytes));
  return RS_OK;
}

static void counting_init(counting *c) {
  memset(c, 0, sizeof *c);
  c->fail_alloc = RS_OK;
  c->fail_free = RS_OK;
}

static rs_memory_stats stats_of(rs_context *c) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  if (rs_memory_get_stats(c, RS_SPACE_DEVICE, &st) != RS_OK) st.in_use_bytes = -1;
  return st;
}

static void test_user_allocator_counts_calls(rs_context *ctx) {
  static counting k;
  counting_init(&k);
  rs_user_allocator ua = {"counter", &k, count_allocate, count_free, count_info};
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_USER, &ua));
  CHECK_EQ_I64(rs_context_allocator(c), RS_ALLOCATOR_USER);
  rs_array *a[3];
  for (int i = 0; i < 3; i++)
    CHECK_OK(rs_device_array(&a[i], c, 1, S1(1000 * (i + 1)), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_EQ_I64(atomic_load(&k.allocs), 3);
  CHECK(k.last_stream == NULL); /* arrays are allocated for the default stream */
  rs_memory_stats st = stats_of(c);
  CHECK_STREQ(st.name, "counter");
  CHECK_EQ_I64(st.in_use_bytes, 6000);
  CHECK_EQ_I64(st.allocations, 3);
  /* the user's memory_info stands for the device's */
  CHECK_EQ_I64(st.device_total_bytes, 64 * MiB);
  CHECK_EQ_I64(st.device_free_bytes, 64 * MiB - 6000);
  CHECK(atomic_load(&k.infos) >= 1);
  for (int i = 0; i < 3; i++) CHECK_OK(rs_array_release(a[i]));
  CHECK_EQ_I64(atomic_load(&k.frees), 3); /* at once: nothing in between */
  CHECK_EQ_I64(atomic_load(&k.live_bytes), 0);
  CHECK_EQ_I64(stats_of(c).in_use_bytes, 0);
  /* a free of memory it never handed out never reaches it */
  int x;
  CHECK_STATUS(rs_memory_free(c, &x, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_EQ_I64(atomic_load(&k.frees), 3);
  /* back to the built-in pool */
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_POOL, NULL));
  CHECK_STREQ(stats_of(c).name, "pool");
  rs_context_destroy(c);
  CHECK_EQ_I64(atomic_load(&k.allocs), 3);
}

static void test_pool_over_user_allocator(rs_context *ctx) {
  /* the pool takes segments from the user's allocator and caches them */
  static counting k;
  counting_init(&k);
  rs_user_allocator ua = {"arena", &k, count_allocate, count_free, NULL};
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_POOL, &ua));
  CHECK_STREQ(stats_of(c).name, "pool over arena");
  for (int round = 0; round < 10; round++) {
    rs_array *a = NULL, *b = NULL;
    CHECK_OK(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
    CHECK_OK(rs_device_array(&b, c, 1, S1(100000), RS_UINT8, NULL, RS_ORDER_C));
    CHECK_OK(rs_array_release(a));
    CHECK_OK(rs_array_release(b));
  }
  CHECK_EQ_I64(atomic_load(&k.allocs), 1); /* one 2 MiB segment served all 20 */
  CHECK_EQ_I64(atomic_load(&k.frees), 0);
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.hits, 19);
  CHECK_EQ_I64(st.reserved_bytes, 2 * MiB);
  CHECK_OK(rs_memory_release(c, RS_SPACE_DEVICE));
  CHECK_EQ_I64(atomic_load(&k.frees), 1);
  CHECK_EQ_I64(atomic_load(&k.live_bytes), 0);
  /* a direct allocator over it queues the frees */
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, &ua));
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(512), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  CHECK_EQ_I64(atomic_load(&k.frees), 1);
  CHECK_OK(rs_memory_flush(c));
  CHECK_EQ_I64(atomic_load(&k.frees), 2);
  rs_context_destroy(c);
  CHECK_EQ_I64(atomic_load(&k.live_bytes), 0);
}

static void test_user_allocator_returns_null(rs_context *ctx) {
  static counting k;
  counting_init(&k);
  k.return_null = 1;
  rs_user_allocator ua = {"empty", &k, count_allocate, count_free, NULL};
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_USER, &ua));
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("returned NULL");
  CHECK(a == NULL);
  /* tried, then tried once more after the out-of-memory recovery */
  CHECK_EQ_I64(atomic_load(&k.allocs), 2);
  rs_memory_stats st = stats_of(c);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.allocations, 0);
  CHECK_EQ_I64(st.oom_failures, 1);
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
  /* the same underneath the pool */
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_POOL, &ua));
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("returned NULL");
  CHECK_EQ_I64(stats_of(c).segments, 0);
  rs_context_destroy(c);
}

static void test_user_allocator_fails(rs_context *ctx) {
  static counting k;
  counting_init(&k);
  rs_user_allocator ua = {"flaky", &k, count_allocate, count_free, NULL};
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_USER, &ua));
  k.fail_alloc = RS_ERR_DEVICE;
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C), RS_ERR_DEVICE);
  CHECK_ERRMSG("flaky");
  CHECK_EQ_I64(atomic_load(&k.allocs), 1); /* not out of memory: no retry */
  /* a code that is not a resident status becomes RS_ERR_DEVICE */
  k.fail_alloc = (rs_status)12345;
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C), RS_ERR_DEVICE);
  k.fail_alloc = RS_OK;
  /* a failing free: reported, and the memory stays allocated (nothing changed) */
  CHECK_OK(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  void *p = NULL;
  CHECK_OK(rs_memory_alloc(&p, c, 100, NULL));
  k.fail_free = RS_ERR_DEVICE;
  CHECK_STATUS(rs_memory_free(c, p, NULL), RS_ERR_DEVICE);
  CHECK_ERRMSG("flaky");
  CHECK_EQ_I64(stats_of(c).in_use_bytes, 4096 + 100);
  k.fail_free = RS_OK;
  CHECK_OK(rs_memory_free(c, p, NULL)); /* and can be freed once it works */
  CHECK_OK(rs_array_release(a));
  CHECK_EQ_I64(stats_of(c).in_use_bytes, 0);
  CHECK_EQ_I64(atomic_load(&k.live_bytes), 0);
  rs_context_destroy(c);
}

static void test_set_allocator_while_holding_memory(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_STATUS(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL), RS_ERR_STATE);
  CHECK_ERRMSG("release its arrays first");
  CHECK_EQ_I64(rs_context_allocator(c), RS_ALLOCATOR_POOL);
  CHECK_OK(rs_array_release(a));
  /* cached memory alone does not count: it is given back on the switch */
  CHECK(stats_of(c).cached_bytes > 0);
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL));
  CHECK_EQ_I64(rs_context_allocator(c), RS_ALLOCATOR_DIRECT);
  /* queued frees are flushed on the switch too */
  CHECK_OK(rs_device_array(&a, c, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  CHECK_EQ_I64(stats_of(c).pending_frees, 1);
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_ASYNC, NULL));
  CHECK_EQ_I64(rs_context_allocator(c), RS_ALLOCATOR_ASYNC);
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_POOL, NULL));
  rs_context_destroy(c);
}

static void test_set_allocator_bad_input(rs_context *ctx) {
  static counting k;
  counting_init(&k);
  rs_user_allocator ok = {"ok", &k, count_allocate, count_free, NULL};
  rs_user_allocator no_free = {"nofree", &k, count_allocate, NULL, NULL};
  rs_user_allocator no_alloc = {NULL, &k, NULL, count_free, NULL};
  CHECK_STATUS(rs_context_set_allocator(NULL, RS_ALLOCATOR_POOL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_context_set_allocator(ctx, (rs_allocator_kind)9, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_context_set_allocator(ctx, (rs_allocator_kind)-1, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_context_set_allocator(ctx, RS_ALLOCATOR_USER, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_context_set_allocator(ctx, RS_ALLOCATOR_ASYNC, &ok), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_context_set_allocator(ctx, RS_ALLOCATOR_USER, &no_free), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("no free function");
  CHECK_STATUS(rs_context_set_allocator(ctx, RS_ALLOCATOR_POOL, &no_alloc), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("no allocate function");
  /* nothing changed */
  if (!getenv("RESIDENT_ALLOCATOR")) CHECK_EQ_I64(rs_context_allocator(ctx), RS_ALLOCATOR_POOL);
  CHECK_EQ_I64(atomic_load(&k.allocs), 0);
  CHECK_EQ_I64(rs_context_allocator(NULL), RS_ALLOCATOR_POOL);
  rs_memory_stats st;
  CHECK_STATUS(rs_memory_get_stats(ctx, RS_SPACE_DEVICE, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_memory_get_stats(NULL, RS_SPACE_DEVICE, &st), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_memory_get_stats(ctx, (rs_mem_space)5, &st), RS_ERR_INVALID_ARGUMENT);
}

static const rs_test_case tests[] = {
    RS_TEST(test_user_allocator_counts_calls),        RS_TEST(test_pool_over_user_allocator),
    RS_TEST(test_user_allocator_returns_null),        RS_TEST(test_user_allocator_fails),
    RS_TEST(test_set_allocator_while_holding_memory), RS_TEST(test_set_allocator_bad_input),
};
RS_TEST_MAIN(tests)
