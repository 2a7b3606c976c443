/* Out of device memory: an allocation beyond the device's memory fails with
 * RS_ERR_OUT_OF_MEMORY and a message, leaks nothing, and the context keeps working.
 * On the simulator CTest sets RESIDENT_SIM_DEVICE_MEMORY=1GiB; on CUDA the sizes come
 * from rs_context_get_props. */
#include "harness.h"
#include "resident/allocator.h"
#include "resident/random.h"
#include "resident/sort.h"

#define S1(a) ((const int64_t[]){a})

static size_t total_memory(rs_context *ctx) {
  rs_device_props p;
  if (rs_context_get_props(ctx, &p) != RS_OK) return 0;
  return p.total_memory;
}

/* What this process can have now (a profiler such as compute-sanitizer, or tests running
 * beside this one, may hold part of the card). */
static size_t free_memory(rs_context *ctx) {
  rs_device_props p;
  if (rs_context_get_props(ctx, &p) != RS_OK) return 0;
  return p.free_memory;
}

/* the context still allocates, copies and synchronizes */
static void check_still_works(rs_context *ctx) {
  const int64_t n = 1 << 18;
  rs_array *d = NULL, *p = NULL, *q = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_pinned_array(&q, ctx, 1, S1(n), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  rs_t_pattern_(rs_array_host_data(p), (size_t)n * 4, 123);
  memset(rs_array_host_data(q), 0, (size_t)n * 4);
  CHECK_OK(rs_to_device_into(d, p, s));
  CHECK_OK(rs_copy_to_host_into(q, d, s));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_BYTES_EQ(rs_array_host_data(q), rs_array_host_data(p), (size_t)n * 4);
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_array_release(q));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_array_release(d));
}

static void check_nothing_live(rs_context *ctx) {
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_MSG(st.arrays == 0 && st.buffers == 0 && st.device_bytes == 0,
            "after a failed allocation: arrays=%lld buffers=%lld device_bytes=%lld",
            (long long)st.arrays, (long long)st.buffers, (long long)st.device_bytes);
}

static void test_props_total(rs_context *ctx) {
  size_t total = total_memory(ctx);
  CHECK(total > 0);
  if (rs_context_backend(ctx) == RS_BACKEND_SIM) {
    const char *env = getenv("RESIDENT_SIM_DEVICE_MEMORY");
    if (env && strcmp(env, "1GiB") == 0) CHECK_EQ_I64(total, (int64_t)1 << 30);
  }
}

static void test_one_byte_too_many(rs_context *ctx) {
  size_t total = total_memory(ctx);
  CHECK(total > 0);
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, ctx, 1, S1((int64_t)total + 1), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("memory", "bytes", "alloc");
  CHECK(a == NULL);
  check_nothing_live(ctx);
  CHECK_PASSING();
  check_still_works(ctx);
}

static void test_far_too_big(rs_context *ctx) {
  rs_array *a = NULL;
  /* 2^50 bytes: no overflow, just far more than any device has */
  CHECK_STATUS(rs_device_array(&a, ctx, 2, ((const int64_t[]){(int64_t)1 << 25, (int64_t)1 << 22}),
                               RS_FLOAT64, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK(a == NULL);
  /* twice the device memory */
  size_t total = total_memory(ctx);
  CHECK_STATUS(rs_device_array(&a, ctx, 1, S1((int64_t)(total / 4)), RS_COMPLEX64, NULL,
                               RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK(a == NULL);
  check_nothing_live(ctx);
  CHECK_PASSING();
  check_still_works(ctx);
}

static void test_second_allocation_fails(rs_context *ctx) {
  /* 60% of the free memory fits once, not twice; after the first is released it fits again */
  size_t total = free_memory(ctx);
  CHECK(total > 0);
  int64_t n = (int64_t)(total / 10 * 6);
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, S1(n), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_STATUS(rs_device_array(&b, ctx, 1, S1(n), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK(b == NULL);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_EQ_I64(st.buffers, 1);
  /* the first array is intact: a small copy into a slice of it works */
  rs_array *v = NULL;
  CHECK_OK(rs_array_slice(&v, a, 1, (rs_slice[]){{n - 4096, n, 1}}));
  unsigned char in[4096], out[4096];
  rs_t_pattern_(in, sizeof in, 9);
  CHECK_OK(rs_t_write_(v, in));
  CHECK_OK(rs_t_read_(v, out));
  CHECK_BYTES_EQ(out, in, sizeof in);
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_device_array(&b, ctx, 1, S1(n), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(b));
  check_still_works(ctx);
}

static void test_to_device_too_big(rs_context *ctx) {
  /* a copy whose device allocation fails consumes nothing (simulator only: the host
   * array has to be larger than the simulated device) */
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return;
  size_t total = total_memory(ctx); /* beyond all of it, cached memory included */
  CHECK(total > 0 && total <= ((size_t)4 << 30));
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 1, S1((int64_t)total + 4096), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_STATUS(rs_to_device(&d, h, 0, NULL), RS_ERR_OUT_OF_MEMORY);
  CHECK(d == NULL);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_EQ_I64(st.device_bytes, 0);
  CHECK_OK(rs_array_release(h));
  check_still_works(ctx);
}

/* Memory the array operations keep for their scratch space (the CUDA sort's buffers)
 * comes back when an allocation needs it. After a sort, ask for everything the device
 * has free plus the pool's cache plus half of what the scratch pool holds: that fits only
 * if the recovery gives back the pool's cache and most of the scratch. (The simulator
 * keeps no scratch pool: there the request needs half of the pool's cache back.) */
static void test_ops_scratch_recovered(rs_context *ctx) {
  int cuda = rs_context_backend(ctx) == RS_BACKEND_CUDA;
  size_t free0 = free_memory(ctx);
  CHECK(free0 > 0);
  int64_t n = (int64_t)(free0 / 5 / 8);
  if (n > (1 << 27)) n = 1 << 27; /* 1 GiB of float64: big enough, quick to sort */
  rs_rng rng = rs_rng_seed(5);
  rs_array *x = NULL, *y = NULL, *big = NULL;
  CHECK_OK(rs_random_uniform(&x, &rng, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, 0, 1, NULL));
  CHECK_OK(rs_sort(&y, x, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_array_release(x));
  CHECK_OK(rs_array_release(y));
  rs_memory_stats before, after;
  CHECK_OK(rs_memory_get_stats(ctx, RS_SPACE_DEVICE, &before));
  if (cuda) CHECK_MSG(before.ops_scratch_bytes >= n * 8, "scratch held after the sort: %lld", (long long)before.ops_scratch_bytes);
  else CHECK_EQ_I64(before.ops_scratch_bytes, 0);
  int64_t want = before.device_free_bytes + (cuda ? before.cached_bytes + before.ops_scratch_bytes / 2 : before.cached_bytes / 2);
  CHECK_OK(rs_device_array(&big, ctx, 1, S1(want), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_memory_get_stats(ctx, RS_SPACE_DEVICE, &after));
  CHECK_OK(rs_array_release(big));
  printf("    scratch held %lld bytes before, %lld after the recovery\n", (long long)before.ops_scratch_bytes,
         (long long)after.ops_scratch_bytes);
  CHECK_EQ_I64(after.oom_recoveries, before.oom_recoveries + 1);
  if (cuda) CHECK(after.ops_scratch_bytes < before.ops_scratch_bytes / 2);
  CHECK_OK(rs_memory_release(ctx, RS_SPACE_DEVICE));
  check_nothing_live(ctx);
  check_still_works(ctx);
}

static const rs_test_case tests[] = {
    RS_TEST(test_props_total),         RS_TEST(test_one_byte_too_many),
    RS_TEST(test_far_too_big),         RS_TEST(test_second_allocation_fails),
    RS_TEST(test_to_device_too_big),   RS_TEST(test_ops_scratch_recovered),
};
RS_TEST_MAIN(tests)
