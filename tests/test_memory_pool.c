/* The caching pool (the default allocator): exact statistics, size classes, best fit,
 * splitting and merging, reuse, limits, release, bad frees, the block map, and
 * out-of-memory recovery. The pinned pool too.
 *
 * Tests that need exact figures run on a context of their own, so the counters start at
 * zero whatever earlier tests left in the shared one. */
#include <stdlib.h>
#include "harness.h"
#include "resident/allocator.h"

#define S1(a) ((const int64_t[]){a})
#define KiB ((int64_t)1024)
#define MiB ((int64_t)1024 * 1024)

static rs_context *own_context(rs_context *ctx) {
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(ctx), 0);
  if (st != RS_OK) {
    printf("    own context: %s \"%s\"\n", rs_status_name(st), rs_t_msg_());
    return NULL;
  }
  return c;
}

static rs_memory_stats stats_of(rs_context *c, rs_mem_space space) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  if (rs_memory_get_stats(c, space, &st) != RS_OK) st.in_use_bytes = -1;
  return st;
}

#define CHECK_STATS(c, field, want) CHECK_EQ_I64(stats_of((c), RS_SPACE_DEVICE).field, (want))

static void test_default_is_pool(rs_context *ctx) {
  if (getenv("RESIDENT_ALLOCATOR")) return; /* the environment chose another */
  CHECK_EQ_I64(rs_context_allocator(ctx), RS_ALLOCATOR_POOL);
  rs_memory_stats st = stats_of(ctx, RS_SPACE_DEVICE);
  CHECK_STREQ(st.name, "pool");
  CHECK(st.device_total_bytes > 0);
  CHECK_STREQ(rs_allocator_name(RS_ALLOCATOR_DIRECT), "direct");
  rs_allocator_kind k;
  CHECK_OK(rs_allocator_from_name("async", &k));
  CHECK_EQ_I64(k, RS_ALLOCATOR_ASYNC);
  CHECK_STATUS(rs_allocator_from_name("user", &k), RS_ERR_PARSE);
  CHECK_STATUS(rs_allocator_from_name("Pool", &k), RS_ERR_PARSE);
}

static void test_small_blocks_exact_stats(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  void *a = NULL, *b = NULL, *a2 = NULL;
  CHECK_OK(rs_memory_alloc(&a, c, 1000, NULL));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 1024); /* rounded to 512 bytes */
  CHECK_EQ_I64(st.requested_bytes, 1000);
  CHECK_EQ_I64(st.reserved_bytes, 2 * MiB); /* one small segment */
  CHECK_EQ_I64(st.cached_bytes, 2 * MiB - 1024);
  CHECK_EQ_I64(st.segments, 1);
  CHECK_EQ_I64(st.allocations, 1);
  CHECK_EQ_I64(st.hits, 0);
  CHECK_EQ_I64(st.misses, 1);
  CHECK_EQ_I64(st.largest_free_block, 2 * MiB - 1024);

  CHECK_OK(rs_memory_alloc(&b, c, 3000, NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 1024 + 3072);
  CHECK_EQ_I64(st.requested_bytes, 4000);
  CHECK_EQ_I64(st.hits, 1);
  CHECK_EQ_I64(st.misses, 1);
  CHECK_EQ_I64(st.segments, 1);
  /* cut from the same segment, right after a */
  CHECK((uintptr_t)b == (uintptr_t)a + 1024);

  CHECK_OK(rs_memory_free(c, a, NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 3072);
  CHECK_EQ_I64(st.frees, 1);
  /* a's block cannot merge: b sits between it and the rest */
  CHECK_EQ_I64(st.largest_free_block, 2 * MiB - 4096);

  /* best fit: a 600-byte request takes a's 1 KiB hole, not the big block */
  CHECK_OK(rs_memory_alloc(&a2, c, 600, NULL));
  CHECK(a2 == a);
  CHECK_OK(rs_memory_free(c, a2, NULL));
  CHECK_OK(rs_memory_free(c, b, NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.requested_bytes, 0);
  CHECK_EQ_I64(st.cached_bytes, 2 * MiB);
  CHECK_EQ_I64(st.largest_free_block, 2 * MiB); /* merged back into one block */
  CHECK_EQ_I64(st.peak_in_use_bytes, 4096);
  CHECK_EQ_I64(st.allocations, 3);
  CHECK_EQ_I64(st.frees, 3);

  CHECK_OK(rs_memory_release(c, RS_SPACE_DEVICE));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.reserved_bytes, 0);
  CHECK_EQ_I64(st.segments, 0);
  CHECK_EQ_I64(st.peak_reserved_bytes, 2 * MiB);
  rs_context_destroy(c);
}

static void test_large_blocks_exact_stats(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  void *a = NULL, *b = NULL, *big = NULL;
  /* 5 MiB: a shared 20 MiB segment */
  CHECK_OK(rs_memory_alloc(&a, c, (size_t)(5 * MiB), NULL));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.reserved_bytes, 20 * MiB);
  CHECK_EQ_I64(st.largest_free_block, 15 * MiB);
  /* 12 MiB: its own segment would be 12 MiB; the 15 MiB rest fits, so it is a hit */
  CHECK_OK(rs_memory_alloc(&b, c, (size_t)(12 * MiB), NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.hits, 1);
  CHECK_EQ_I64(st.reserved_bytes, 20 * MiB);
  CHECK_EQ_I64(st.in_use_bytes, 17 * MiB);
  CHECK_EQ_I64(st.largest_free_block, 3 * MiB); /* more than 1 MiB left: split */
  CHECK((uintptr_t)b == (uintptr_t)a + (uintptr_t)(5 * MiB));
  /* above 10 MiB with no room: a segment of its own, rounded up to 2 MiB */
  CHECK_OK(rs_memory_alloc(&big, c, (size_t)(30 * MiB + 1), NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.misses, 2);
  CHECK_EQ_I64(st.segments, 2);
  CHECK_EQ_I64(st.reserved_bytes, 20 * MiB + 32 * MiB);
  CHECK_EQ_I64(st.in_use_bytes, 17 * MiB + 30 * MiB + 512);
  CHECK_EQ_I64(st.requested_bytes, 17 * MiB + 30 * MiB + 1);
  CHECK_OK(rs_memory_free(c, a, NULL));
  CHECK_OK(rs_memory_free(c, b, NULL));
  CHECK_OK(rs_memory_free(c, big, NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.largest_free_block, 32 * MiB);
  CHECK_EQ_I64(st.cached_bytes, 52 * MiB);
  CHECK_EQ_I64(st.peak_in_use_bytes, 47 * MiB + 512);
  CHECK_EQ_I64(st.peak_reserved_bytes, 52 * MiB);
  /* small and large blocks never share a segment */
  void *s = NULL;
  CHECK_OK(rs_memory_alloc(&s, c, 100, NULL));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.segments, 3);
  CHECK_EQ_I64(st.misses, 3);
  CHECK_OK(rs_memory_free(c, s, NULL));
  CHECK_OK(rs_memory_reset_stats(c, RS_SPACE_DEVICE));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.allocations, 0);
  CHECK_EQ_I64(st.hits, 0);
  CHECK_EQ_I64(st.peak_in_use_bytes, 0);
  CHECK_EQ_I64(st.peak_reserved_bytes, 54 * MiB);
  rs_context_destroy(c);
}

static void test_array_reuse(rs_context *ctx) {
  /* the pool behind arrays: a released array's memory comes back for the next one */
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  rs_array *x = NULL, *y = NULL;
  CHECK_OK(rs_device_array(&x, c, 1, S1(1 << 20), RS_FLOAT32, NULL, RS_ORDER_C));
  void *px = rs_array_device_data(x);
  float host[256];
  for (int i = 0; i < 256; i++) host[i] = (float)i;
  rs_array *h = NULL, *hv = NULL;
  CHECK_OK(rs_host_array_wrap(&h, c, host, 1, S1(256), RS_FLOAT32, NULL));
  CHECK_OK(rs_array_slice(&hv, x, 1, (rs_slice[]){{0, 256, 1}}));
  CHECK_OK(rs_array_copy(hv, h, NULL));
  CHECK_OK(rs_array_release(hv));
  CHECK_OK(rs_array_release(x));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_EQ_I64(st.cached_bytes, 20 * MiB);
  CHECK_OK(rs_device_array(&y, c, 1, S1(1 << 20), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK(rs_array_device_data(y) == px);
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.hits, 1);
  CHECK_EQ_I64(st.misses, 1);
  /* the live counters see arrays, not the cache */
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.device_bytes, 4 << 20);
  CHECK_OK(rs_array_release(y));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.device_bytes, 0);
  rs_context_destroy(c);
}

static void test_bad_frees(rs_context *ctx) {
  rs_context *c = own_context(ctx), *other = own_context(ctx);
  CHECK(c != NULL && other != NULL);
  void *p = NULL, *q = NULL, *theirs = NULL;
  CHECK_OK(rs_memory_alloc(&p, c, 4096, NULL));
  CHECK_OK(rs_memory_alloc(&q, c, 4096, NULL));
  CHECK_OK(rs_memory_alloc(&theirs, other, 4096, NULL));
  rs_memory_stats before = stats_of(c, RS_SPACE_DEVICE);
  /* an interior pointer of a live block */
  CHECK_STATUS(rs_memory_free(c, (char *)p + 512, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_ERRMSG("into a block");
  /* another context's memory */
  CHECK_STATUS(rs_memory_free(c, theirs, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_ERRMSG("not allocated by this context");
  /* nothing changed */
  rs_memory_stats after = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(after.in_use_bytes, before.in_use_bytes);
  CHECK_EQ_I64(after.frees, before.frees);
  CHECK_OK(rs_memory_free(c, p, NULL));
  /* twice: the block is free (not merged: q follows it) */
  CHECK_STATUS(rs_memory_free(c, p, NULL), RS_ERR_DOUBLE_FREE);
  CHECK_OK(rs_memory_free(c, q, NULL));
  /* twice, after merging into the segment's free space */
  CHECK_STATUS(rs_memory_free(c, q, NULL), RS_ERR_DOUBLE_FREE);
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).frees, before.frees + 2);
  CHECK_OK(rs_memory_free(c, NULL, NULL)); /* NULL is ignored */
  void *z = (void *)1;
  CHECK_OK(rs_memory_alloc(&z, c, 0, NULL)); /* zero bytes: NULL */
  CHECK(z == NULL);
  CHECK_STATUS(rs_memory_alloc(NULL, c, 16, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_memory_alloc(&z, NULL, 16, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_memory_free(NULL, p, NULL), RS_ERR_NULL_POINTER);
  CHECK_OK(rs_memory_free(other, theirs, NULL));
  rs_context_destroy(other);
  rs_context_destroy(c);
}

static void test_limit(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  CHECK_OK(rs_memory_set_limit(c, RS_SPACE_DEVICE, (size_t)(4 * MiB)));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).limit_bytes, 4 * MiB);
  void *a = NULL, *b = NULL;
  /* a 20 MiB segment would cross the limit: a segment of just 3 MiB is taken instead */
  CHECK_OK(rs_memory_alloc(&a, c, (size_t)(3 * MiB), NULL));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).reserved_bytes, 3 * MiB);
  CHECK_STATUS(rs_memory_alloc(&b, c, (size_t)(2 * MiB), NULL), RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("limit");
  CHECK(b == NULL);
  /* a limit below what is in use is refused and changes nothing */
  CHECK_STATUS(rs_memory_set_limit(c, RS_SPACE_DEVICE, (size_t)MiB), RS_ERR_LIMIT);
  CHECK_ERRMSG("in use");
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).limit_bytes, 4 * MiB);
  CHECK_STATUS(rs_memory_set_limit_fraction(c, 0.0), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_limit_fraction(c, 1.5), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_limit_fraction(c, -0.5), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_set_limit(c, (rs_mem_space)7, 0), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).limit_bytes, 4 * MiB);
  /* a fraction of the device */
  CHECK_OK(rs_memory_set_limit_fraction(c, 0.5));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_NEAR(st.limit_bytes, st.device_total_bytes / 2, 1);
  CHECK_OK(rs_memory_alloc(&b, c, (size_t)(2 * MiB), NULL));
  CHECK_OK(rs_memory_free(c, b, NULL));
  /* lowering the limit under the reserved bytes gives the cache back where it can */
  CHECK(stats_of(c, RS_SPACE_DEVICE).reserved_bytes > 3 * MiB);
  CHECK_OK(rs_memory_set_limit(c, RS_SPACE_DEVICE, (size_t)(3 * MiB)));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).reserved_bytes, 3 * MiB);
  CHECK_OK(rs_memory_set_limit(c, RS_SPACE_DEVICE, 0)); /* no limit */
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).limit_bytes, 0);
  CHECK_OK(rs_memory_free(c, a, NULL));
  rs_context_destroy(c);
}

static void test_release_gives_memory_back(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  rs_memory_stats st0 = stats_of(c, RS_SPACE_DEVICE);
  rs_array *arr[8];
  for (int i = 0; i < 8; i++)
    CHECK_OK(
        rs_device_array(&arr[i], c, 1, S1((int64_t)(i + 1) * 3 * MiB), RS_UINT8, NULL, RS_ORDER_C));
  for (int i = 0; i < 8; i++) CHECK_OK(rs_array_release(arr[i]));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK(st.cached_bytes > 0);
  /* The pool holds what was freed. (The driver's free figure would say the same only when
   * nothing else uses the GPU: other tests run beside this one, and compute-sanitizer
   * reserves memory of its own; the simulator's figure is exact and checked below.) */
  CHECK(st.reserved_bytes >= 108 * MiB);
  if (rs_context_backend(c) == RS_BACKEND_SIM) CHECK(st.device_free_bytes < st0.device_free_bytes);
  CHECK_OK(rs_memory_release(c, RS_SPACE_DEVICE));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.cached_bytes, 0);
  CHECK_EQ_I64(st.reserved_bytes, 0);
  if (rs_context_backend(c) == RS_BACKEND_SIM)
    CHECK_EQ_I64(st.device_free_bytes, st.device_total_bytes);
  CHECK_STATUS(rs_memory_release(c, (rs_mem_space)3), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_memory_release(NULL, RS_SPACE_DEVICE), RS_ERR_NULL_POINTER);
  rs_context_destroy(c);
}

static void test_report(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  void *a = NULL, *b = NULL;
  CHECK_OK(rs_memory_alloc(&a, c, 4096, NULL));
  CHECK_OK(rs_memory_alloc(&b, c, (size_t)(40 * MiB), NULL));
  FILE *f = tmpfile();
  CHECK(f != NULL);
  CHECK_OK(rs_memory_report(c, f));
  rewind(f);
  char text[4096];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  CHECK_MSG(strstr(text, "allocator pool") != NULL, "report: %s", text);
  CHECK_MSG(strstr(text, "segment") != NULL, "report: %s", text);
  CHECK_MSG(strstr(text, "U 4.0 KiB") != NULL, "report: %s", text);
  CHECK_MSG(strstr(text, "U 40.0 MiB") != NULL, "report: %s", text);
  CHECK_MSG(strstr(text, "pinned") != NULL, "report: %s", text);
  CHECK_STATUS(rs_memory_report(c, NULL), RS_ERR_NULL_POINTER);
  CHECK_OK(rs_memory_free(c, a, NULL));
  CHECK_OK(rs_memory_free(c, b, NULL));
  rs_context_destroy(c);
}

static size_t device_total(rs_context *c) {
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  return (size_t)st.device_total_bytes;
}

static void test_oom_recovery(rs_context *ctx) {
  /* 60% of the device is cached after its array is released; 70% does not fit beside
   * it, so the pool gives the cache back and retries - and the request succeeds. */
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  size_t total = device_total(c);
  CHECK(total > 0);
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_device_array(&a, c, 1, S1((int64_t)(total / 10 * 6)), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  CHECK(stats_of(c, RS_SPACE_DEVICE).cached_bytes >= (int64_t)(total / 10 * 6));
  CHECK_OK(rs_device_array(&b, c, 1, S1((int64_t)(total / 10 * 7)), RS_UINT8, NULL, RS_ORDER_C));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.oom_recoveries, 1);
  CHECK_EQ_I64(st.oom_failures, 0);
  CHECK_EQ_I64(st.segments, 1);
  CHECK_OK(rs_array_release(b));

  /* more than the device has: fails, says why, leaks nothing, and the context goes on */
  void *small = NULL;
  CHECK_OK(rs_memory_alloc(&small, c, 1000, NULL));
  rs_array *x = NULL;
  CHECK_STATUS(rs_device_array(&x, c, 1, S1((int64_t)total + 1), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK(x == NULL);
  const char *msg = rs_last_error();
  CHECK_MSG(strstr(msg, "requested") && strstr(msg, "free of") && strstr(msg, "cached") &&
                strstr(msg, "in use"),
            "message: %s", msg);
  CHECK_MSG(strstr(msg, "Block map: [2.0 MiB: U 1.0 KiB") != NULL, "message: %s", msg);
  CHECK_MSG(strlen(msg) < 1024, "message length %zu", strlen(msg));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.oom_failures, 1);
  CHECK_EQ_I64(st.in_use_bytes, 1024);
  CHECK_EQ_I64(st.reserved_bytes, 2 * MiB); /* the big cached segment was given back */
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.buffers, 0);
  CHECK_OK(rs_memory_free(c, small, NULL));
  CHECK_OK(rs_device_array(&b, c, 1, S1((int64_t)(total / 2)), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(b));
  rs_context_destroy(c);
}

static void test_oom_shared_context(rs_context *ctx) {
  /* the harness's context: failing and recovering leaves it clean and usable */
  size_t total = device_total(ctx);
  rs_array *x = NULL, *y = NULL;
  CHECK_STATUS(rs_device_array(&x, ctx, 1, S1((int64_t)total * 2), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_OK(rs_device_array(&y, ctx, 1, S1(4096), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(y));
}

static void test_pinned_pool(rs_context *ctx) {
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  rs_array *p = NULL, *q = NULL, *w = NULL;
  CHECK_OK(rs_pinned_array(&p, c, 1, S1(1000), RS_UINT8, NULL, RS_ORDER_C, 0));
  rs_memory_stats st = stats_of(c, RS_SPACE_PINNED);
  CHECK_STREQ(st.name, "pinned pool");
  CHECK_EQ_I64(st.in_use_bytes, 1024);
  CHECK_EQ_I64(st.reserved_bytes, 2 * MiB);
  void *hp = rs_array_host_data(p);
  memset(hp, 7, 1000); /* host memory: writable */
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_pinned_array(&q, c, 1, S1(900), RS_UINT8, NULL, RS_ORDER_C, 0));
  CHECK(rs_array_host_data(q) == hp); /* reused, never used by a stream */
  st = stats_of(c, RS_SPACE_PINNED);
  CHECK_EQ_I64(st.hits, 1);
  /* flagged pinned memory is not pooled */
  CHECK_OK(rs_pinned_array(&w, c, 1, S1(1000), RS_UINT8, NULL, RS_ORDER_C, RS_HOST_PORTABLE));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_PINNED).allocations, 2);
  CHECK_OK(rs_array_release(w));
  CHECK_OK(rs_array_release(q));
  /* the pinned cap */
  CHECK_OK(rs_memory_set_limit(c, RS_SPACE_PINNED, (size_t)(2 * MiB)));
  CHECK_STATUS(rs_pinned_array(&w, c, 1, S1(3 * MiB), RS_UINT8, NULL, RS_ORDER_C, 0),
               RS_ERR_HOST_OUT_OF_MEMORY);
  CHECK_ERRMSG("limit");
  CHECK_OK(rs_memory_set_limit(c, RS_SPACE_PINNED, 0));
  CHECK_OK(rs_memory_release(c, RS_SPACE_PINNED));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_PINNED).reserved_bytes, 0);
  rs_context_destroy(c);
}

static void test_pinned_staging_for_strided_copies(rs_context *ctx) {
  /* a strided host view copied to the device is gathered into a pinned block first */
  rs_context *c = own_context(ctx);
  CHECK(c != NULL);
  float data[64];
  for (int i = 0; i < 64; i++) data[i] = (float)i;
  rs_array *h = NULL, *hv = NULL, *d = NULL;
  CHECK_OK(rs_host_array_wrap(&h, c, data, 1, S1(64), RS_FLOAT32, NULL));
  CHECK_OK(rs_array_slice(&hv, h, 1, (rs_slice[]){{0, 64, 2}}));
  CHECK_OK(rs_to_device(&d, hv, 0, NULL));
  float back[32];
  CHECK_OK(rs_t_read_(d, back));
  for (int i = 0; i < 32; i++) CHECK_NEAR(back[i], 2.0 * i, 0);
  rs_memory_stats st = stats_of(c, RS_SPACE_PINNED);
  CHECK(st.allocations >= 1);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(hv));
  CHECK_OK(rs_array_release(h));
  rs_context_destroy(c);
}

static const rs_test_case tests[] = {
    RS_TEST(test_default_is_pool),
    RS_TEST(test_small_blocks_exact_stats),
    RS_TEST(test_large_blocks_exact_stats),
    RS_TEST(test_array_reuse),
    RS_TEST(test_bad_frees),
    RS_TEST(test_limit),
    RS_TEST(test_release_gives_memory_back),
    RS_TEST(test_report),
    RS_TEST(test_oom_recovery),
    RS_TEST(test_oom_shared_context),
    RS_TEST(test_pinned_pool),
    RS_TEST(test_pinned_staging_for_strided_copies),
};
RS_TEST_MAIN(tests)
