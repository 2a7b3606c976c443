/* Backends, devices, properties, synchronization and the live-object counters. */
#include "harness.h"

static void test_backend_names(rs_context *ctx) {
  (void)ctx;
  CHECK_STREQ(rs_backend_name(RS_BACKEND_AUTO), "auto");
  CHECK_STREQ(rs_backend_name(RS_BACKEND_CUDA), "cuda");
  CHECK_STREQ(rs_backend_name(RS_BACKEND_SIM), "sim");
  const rs_backend_kind kinds[] = {RS_BACKEND_AUTO, RS_BACKEND_CUDA, RS_BACKEND_SIM};
  for (int i = 0; i < 3; i++) {
    rs_backend_kind k = (rs_backend_kind)99;
    CHECK_OK(rs_backend_from_name(rs_backend_name(kinds[i]), &k));
    CHECK_EQ_I64(k, kinds[i]);
  }
  rs_backend_kind k = RS_BACKEND_SIM;
  CHECK_STATUS(rs_backend_from_name("gpu", &k), RS_ERR_PARSE);
  CHECK_ERRMSG("gpu");
  CHECK_EQ_I64(k, RS_BACKEND_SIM);
  CHECK_STATUS(rs_backend_from_name("", &k), RS_ERR_PARSE);
}

static void test_context_backend(rs_context *ctx) {
  rs_backend_kind b = rs_context_backend(ctx);
  CHECK(b == RS_BACKEND_CUDA || b == RS_BACKEND_SIM);
  const char *env = getenv("RESIDENT_BACKEND");
  if (env && strcmp(env, "sim") == 0) CHECK_EQ_I64(b, RS_BACKEND_SIM);
  if (env && strcmp(env, "cuda") == 0) CHECK_EQ_I64(b, RS_BACKEND_CUDA);
  CHECK_EQ_I64(rs_context_device(ctx), 0);

  int n = -1;
  CHECK_OK(rs_device_count(b, &n));
  CHECK_MSG(n >= 1, "rs_device_count(%s) = %d", rs_backend_name(b), n);
  n = -1;
  CHECK_OK(rs_device_count(RS_BACKEND_SIM, &n));
  CHECK_MSG(n >= 1, "the simulator reports %d devices", n);
  n = -1;
  CHECK_OK(rs_device_count(RS_BACKEND_CUDA, &n)); /* 0 without a GPU, still RS_OK */
  CHECK(n >= 0);
  if (b == RS_BACKEND_CUDA) CHECK(n >= 1);
}

static void check_props(const rs_device_props *p, rs_backend_kind b) {
  CHECK(memchr(p->name, '\0', sizeof p->name) != NULL);
  CHECK_MSG(p->name[0] != '\0', "empty device name");
  CHECK_MSG(p->total_memory > 0, "total_memory = %zu", p->total_memory);
  CHECK_MSG(p->free_memory > 0, "free_memory = %zu", p->free_memory);
  CHECK_MSG(p->total_memory >= p->free_memory, "total %zu < free %zu", p->total_memory,
            p->free_memory);
  CHECK_MSG(p->multiprocessors > 0, "multiprocessors = %d", p->multiprocessors);
  CHECK_MSG(p->max_threads_per_block > 0, "max_threads_per_block = %d", p->max_threads_per_block);
  CHECK_MSG(p->warp_size > 0, "warp_size = %d", p->warp_size);
  CHECK_MSG(p->shared_memory_per_block > 0, "shared_memory_per_block = %zu",
            p->shared_memory_per_block);
  CHECK(p->pcie_generation >= 0 && p->pcie_width >= 0 && p->pcie_gbytes_per_s >= 0.0);
  if (b == RS_BACKEND_SIM) {
    CHECK_EQ_I64(p->compute_major, 0);
    CHECK_EQ_I64(p->compute_minor, 0);
    const char *mem = getenv("RESIDENT_SIM_DEVICE_MEMORY");
    if (mem && strcmp(mem, "1GiB") == 0)
      CHECK_MSG(p->total_memory == ((size_t)1 << 30),
                "RESIDENT_SIM_DEVICE_MEMORY=1GiB but total_memory = %zu", p->total_memory);
  } else {
    CHECK_MSG(p->compute_major >= 3, "compute capability %d.%d", p->compute_major,
              p->compute_minor);
    CHECK_EQ_I64(p->warp_size, 32);
    CHECK(p->max_threads_per_block >= 512);
  }
}

static void test_props(rs_context *ctx) {
  rs_backend_kind b = rs_context_backend(ctx);
  rs_device_props p, q;
  memset(&p, 0, sizeof p);
  memset(&q, 0, sizeof q);
  CHECK_OK(rs_context_get_props(ctx, &p));
  check_props(&p, b);
  CHECK_PASSING();
  CHECK_OK(rs_device_get_props(b, 0, &q));
  CHECK_STREQ(q.name, p.name);
  CHECK_MSG(q.total_memory == p.total_memory, "device props total %zu, context props %zu",
            q.total_memory, p.total_memory);
  CHECK_EQ_I64(q.multiprocessors, p.multiprocessors);
  CHECK_EQ_I64(q.compute_major, p.compute_major);

  int n = 0;
  CHECK_OK(rs_device_count(b, &n));
  CHECK_STATUS(rs_device_get_props(b, n, &q), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_device_get_props(b, -1, &q), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_context_get_props(ctx, NULL), RS_ERR_NULL_POINTER);
}

static void test_synchronize(rs_context *ctx) {
  CHECK_OK(rs_context_synchronize(ctx));
  /* queue asynchronous work on a created stream, then wait with the context-wide call */
  const int64_t n = 1 << 18;
  int64_t shape[1] = {n};
  rs_array *src = NULL, *dst = NULL, *dev = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_pinned_array(&src, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_pinned_array(&dst, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&dev, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  float *ps = (float *)rs_array_host_data(src), *pd = (float *)rs_array_host_data(dst);
  CHECK(ps && pd);
  for (int64_t i = 0; i < n; i++) {
    ps[i] = (float)i * 0.5f;
    pd[i] = -1.0f;
  }
  CHECK_OK(rs_to_device_into(dev, src, s));
  CHECK_OK(rs_copy_to_host_into(dst, dev, s));
  CHECK_OK(rs_context_synchronize(ctx));
  int done = 0;
  CHECK_OK(rs_stream_query(s, &done));
  CHECK_EQ_I64(done, 1);
  for (int64_t i = 0; i < n; i++)
    CHECK_MSG(pd[i] == (float)i * 0.5f, "element %lld: %g", (long long)i, pd[i]);
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_array_release(src));
  CHECK_OK(rs_array_release(dst));
  CHECK_OK(rs_array_release(dev));
}

static void expect_live(rs_context *ctx, int64_t arrays, int64_t buffers, int64_t min_dev,
                        int64_t min_host, int64_t streams, int64_t events, int line) {
  rs_live_stats s;
  CHECK_OK(rs_context_get_live_stats(ctx, &s));
  CHECK_MSG(s.arrays == arrays && s.buffers == buffers && s.streams == streams &&
                s.events == events && s.device_bytes >= min_dev && s.host_bytes >= min_host &&
                (min_dev != 0 || s.device_bytes == 0) && (min_host != 0 || s.host_bytes == 0),
            "line %d: live arrays=%lld buffers=%lld device_bytes=%lld host_bytes=%lld "
            "streams=%lld events=%lld; expected %lld %lld >=%lld >=%lld %lld %lld",
            line, (long long)s.arrays, (long long)s.buffers, (long long)s.device_bytes,
            (long long)s.host_bytes, (long long)s.streams, (long long)s.events,
            (long long)arrays, (long long)buffers, (long long)min_dev, (long long)min_host,
            (long long)streams, (long long)events);
}

static void test_live_counters(rs_context *ctx) {
  int64_t shape[2] = {100, 10};
  rs_array *d = NULL, *v = NULL, *h = NULL;
  rs_stream *s = NULL;
  rs_event *e = NULL;
  expect_live(ctx, 0, 0, 0, 0, 0, 0, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_device_array(&d, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  expect_live(ctx, 1, 1, 4000, 0, 0, 0, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_array_transpose(&v, d)); /* a view: one more handle, same buffer */
  expect_live(ctx, 2, 1, 4000, 0, 0, 0, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_host_array(&h, ctx, 2, shape, RS_FLOAT64, NULL, RS_ORDER_C));
  expect_live(ctx, 3, 2, 4000, 8000, 0, 0, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_event_create(&e, ctx, 0));
  expect_live(ctx, 3, 2, 4000, 8000, 1, 1, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_array_release(d)); /* the view keeps the buffer */
  expect_live(ctx, 2, 2, 4000, 8000, 1, 1, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_array_release(v));
  expect_live(ctx, 1, 1, 0, 8000, 1, 1, __LINE__);
  CHECK_PASSING();
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_event_destroy(e));
  expect_live(ctx, 0, 0, 0, 0, 0, 0, __LINE__);
}

static void test_second_context(rs_context *ctx) {
  /* An explicit simulator context works whatever the first one is, and destroying a
   * context frees what still belongs to it. */
  rs_context *c2 = NULL;
  CHECK_OK(rs_context_create(&c2, RS_BACKEND_SIM, 0));
  CHECK(c2 != NULL && c2 != ctx);
  CHECK_EQ_I64(rs_context_backend(c2), RS_BACKEND_SIM);
  int64_t shape[1] = {1000};
  rs_array *a = NULL, *h = NULL;
  rs_stream *s = NULL;
  rs_event *e = NULL;
  CHECK_OK(rs_context_destroy(NULL)); /* ignored */
  if (rs_device_array(&a, c2, 1, shape, RS_INT32, NULL, RS_ORDER_C) != RS_OK ||
      rs_host_array(&h, c2, 1, shape, RS_INT32, NULL, RS_ORDER_C) != RS_OK ||
      rs_stream_create(&s, c2, 0) != RS_OK || rs_event_create(&e, c2, 0) != RS_OK) {
    rs_context_destroy(c2);
    FAIL("allocation in a second context failed: %s", rs_last_error());
  }
  rs_live_stats st;
  rs_status r = rs_context_get_live_stats(c2, &st);
  if (r != RS_OK || st.arrays != 2 || st.streams != 1 || st.events != 1) {
    rs_context_destroy(c2);
    FAIL("second context live: %s arrays=%lld streams=%lld events=%lld", rs_status_name(r),
         (long long)st.arrays, (long long)st.streams, (long long)st.events);
  }
  /* objects of the second context do not show in the first */
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 0);
  CHECK_EQ_I64(st.streams, 0);
  rs_context_destroy(c2); /* frees a, h, s and e */

  /* a cuda context where no device answers is RS_ERR_NO_DEVICE */
  int ncuda = 0;
  CHECK_OK(rs_device_count(RS_BACKEND_CUDA, &ncuda));
  if (ncuda == 0) {
    rs_context *c3 = NULL;
    CHECK_STATUS(rs_context_create(&c3, RS_BACKEND_CUDA, 0), RS_ERR_NO_DEVICE);
    CHECK(c3 == NULL);
  }
  /* a device index that does not exist */
  int nb = 0;
  rs_backend_kind b = rs_context_backend(ctx);
  CHECK_OK(rs_device_count(b, &nb));
  rs_context *c4 = NULL;
  CHECK_FAILS(rs_context_create(&c4, b, nb));
  CHECK(c4 == NULL);
  CHECK_FAILS(rs_context_create(&c4, b, -1));
  CHECK(c4 == NULL);
  CHECK_FAILS(rs_context_create(&c4, (rs_backend_kind)7, 0));
  CHECK(c4 == NULL);
}

static const rs_test_case tests[] = {
    RS_TEST(test_backend_names), RS_TEST(test_context_backend), RS_TEST(test_props),
    RS_TEST(test_synchronize),   RS_TEST(test_live_counters),   RS_TEST(test_second_context),
};
RS_TEST_MAIN(tests)
