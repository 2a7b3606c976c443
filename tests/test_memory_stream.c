/* Memory and streams: a block used on another stream is not handed out again before that
 * stream's work is done; a reused block's new owner on a non-blocking stream waits for
 * the previous owner's work - and for nothing else; pinned blocks wait for their copies;
 * the async allocator orders its frees on the streams.
 *
 * Delays come from rs_t_sleep (tests/known_kernels.h); each check that depends on a stream still
 * being busy first confirms that it is (rs_stream_query), and every result is also
 * checked on the data, which a race would corrupt. */
#include <stdatomic.h>
#include "harness.h"
#include "resident/ops.h"
#include "gate.h"
#include "resident/allocator.h"
#include "resident/kernel.h"

#define S1(a) ((const int64_t[]){a})
#define N (1 << 18) /* floats: 1 MiB */

static rs_memory_stats stats_of(rs_context *c, rs_mem_space space) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  if (rs_memory_get_stats(c, space, &st) != RS_OK) st.in_use_bytes = -1;
  return st;
}

static int busy(rs_stream *s) {
  int done = 1;
  if (rs_stream_query(s, &done) != RS_OK) return 0;
  return !done;
}

static float *ramp(float start) {
  float *h = malloc(N * sizeof(float));
  if (h)
    for (int i = 0; i < N; i++) h[i] = start + (float)i;
  return h;
}

/* Fill a device array from host floats on a stream (an explicit copy). */
static rs_status fill(rs_array *d, const float *h, rs_stream *s) {
  rs_array *w = NULL;
  H_OK(rs_host_array_wrap(&w, rs_array_context(d), (void *)h, 1, S1(N), RS_FLOAT32, NULL));
  rs_status st = rs_array_copy(d, w, s);
  rs_array_release(w);
  return st;
}

static int equals(const rs_array *d, const float *want) {
  float *got = malloc(N * sizeof(float));
  if (!got) return 0;
  int ok = rs_t_read_(d, got) == RS_OK && memcmp(got, want, N * sizeof(float)) == 0;
  free(got);
  return ok;
}

static void test_cross_stream_block_not_reused_early(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, c, RS_STREAM_NON_BLOCKING));
  float *h = ramp(1.0f), *want = ramp(100.0f);
  CHECK(h && want);
  rs_array *x = NULL, *y = NULL, *z = NULL;
  CHECK_OK(rs_device_array(&x, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(fill(x, h, NULL));
  CHECK_OK(rs_context_synchronize(c));
  void *px = rs_array_device_data(x);
  /* x is used on s behind a delay: the kernel that writes it runs in 300 ms */
  CHECK_OK(rs_t_sleep(c, 300, s));
  CHECK_OK(rs_t_axpb(x, 2.0, 0.0, s));
  CHECK_OK(rs_array_release(x));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.waiting_blocks, 1);
  CHECK_EQ_I64(st.waiting_bytes, 4 * N);
  /* a new array of the same size, for the default stream, while s is still busy */
  CHECK_OK(rs_device_array(&y, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  int still_busy = busy(s);
  if (still_busy) {
    CHECK_MSG(rs_array_device_data(y) != px, "x's block was handed out while s still used it");
    CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).waiting_blocks, 1);
  }
  CHECK_OK(fill(y, want, NULL));
  /* once s is done the block comes back */
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_device_array(&z, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).waiting_blocks, 0);
  if (still_busy) CHECK(rs_array_device_data(z) == px);
  /* y was never overwritten by s's late kernel */
  CHECK_MSG(equals(y, want), "y's data was corrupted by work of another stream");
  CHECK_OK(rs_array_release(z));
  CHECK_OK(rs_array_release(y));
  CHECK_OK(rs_stream_destroy(s));
  free(h);
  free(want);
  rs_context_destroy(c);
}

static void test_new_owner_waits_for_previous_owner_only(rs_context *ctx) {
  /* x is released while a delayed kernel on the default stream still writes it; y gets
   * the same block and is filled on a non-blocking stream. That copy must wait for x's
   * kernel (else the kernel would overwrite y) but not for work queued on the default
   * stream after x was released (a closed gate). */
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  rs_stream *nb = NULL;
  CHECK_OK(rs_stream_create(&nb, c, RS_STREAM_NON_BLOCKING));
  float *want = ramp(7.0f);
  CHECK(want != NULL);
  rs_array *x = NULL, *y = NULL;
  CHECK_OK(rs_device_array(&x, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  void *px = rs_array_device_data(x);
  /* x is read below (x*0 - 1): never-written memory could hold NaN, and initcheck says so */
  CHECK_OK(rs_zeros_into(x, NULL));
  CHECK_OK(rs_t_sleep(c, 300, NULL));
  CHECK_OK(rs_t_axpb(x, 0.0, -1.0, NULL)); /* x = -1 everywhere, late */
  CHECK_OK(rs_array_release(x));
  static gate g;
  gate_init(&g);
  CHECK_OK(rs_stream_add_callback(rs_stream_legacy(c), gate_fn, &g));
  CHECK_OK(rs_device_array(&y, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK(rs_array_device_data(y) == px); /* same stream: reused at once */
  CHECK_OK(fill(y, want, nb));
  CHECK_OK(rs_stream_synchronize(nb)); /* returns although the gate is closed */
  int gate_closed = !atomic_load(&g.open) && !atomic_load(&g.timed_out);
  atomic_store(&g.open, 1);
  CHECK_OK(rs_context_synchronize(c));
  CHECK_MSG(gate_closed, "the non-blocking stream waited for later default-stream work");
  CHECK_MSG(equals(y, want), "the previous owner's kernel ran after the new owner's copy");
  CHECK_OK(rs_array_release(y));
  CHECK_OK(rs_stream_destroy(nb));
  free(want);
  rs_context_destroy(c);
}

static void test_pinned_block_waits_for_its_copy(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, c, 0));
  float *want = ramp(3.0f);
  CHECK(want != NULL);
  rs_array *p = NULL, *d = NULL, *q = NULL;
  CHECK_OK(rs_pinned_array(&p, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_device_array(&d, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(fill(d, want, NULL));
  CHECK_OK(rs_context_synchronize(c));
  void *pp = rs_array_host_data(p);
  /* an asynchronous D2H copy into p, behind a delay */
  CHECK_OK(rs_t_sleep(c, 300, s));
  CHECK_OK(rs_copy_to_host_into(p, d, s));
  CHECK_OK(rs_array_release(p));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_PINNED).waiting_blocks, 1);
  CHECK_OK(rs_pinned_array(&q, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  if (busy(s))
    CHECK_MSG(rs_array_host_data(q) != pp, "a pinned block was reused under a pending copy");
  /* the host writes q at once: the late copy must not land in it */
  float *hq = rs_array_host_data(q);
  for (int i = 0; i < N; i++) hq[i] = -5.0f;
  CHECK_OK(rs_stream_synchronize(s));
  for (int i = 0; i < N; i++)
    if (hq[i] != -5.0f) FAIL("pinned q[%d] = %g: a copy of another owner landed in it", i, hq[i]);
  CHECK_OK(rs_array_release(q));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_stream_destroy(s));
  free(want);
  rs_context_destroy(c);
}

static void test_raw_memory_across_streams(rs_context *ctx) {
  /* rs_memory_free with the stream the memory was last used on */
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, c, RS_STREAM_NON_BLOCKING));
  void *p = NULL, *q = NULL;
  CHECK_OK(rs_memory_alloc(&p, c, 1 << 20, NULL));
  CHECK_OK(rs_t_sleep(c, 300, s));
  CHECK_OK(rs_memory_free(c, p, s));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).waiting_blocks, 1);
  CHECK_OK(rs_memory_alloc(&q, c, 1 << 20, NULL));
  if (busy(s)) CHECK(q != p);
  CHECK_OK(rs_memory_free(c, q, NULL));
  CHECK_OK(rs_stream_synchronize(s));
  /* per-stream blocks: memory allocated for s is s's */
  void *a = NULL, *b = NULL;
  CHECK_OK(rs_memory_alloc(&a, c, 4096, s));
  CHECK_OK(rs_memory_free(c, a, s));
  CHECK_OK(rs_memory_alloc(&b, c, 4096, s));
  CHECK(a == b);
  CHECK_OK(rs_memory_free(c, b, s));
  CHECK_OK(rs_memory_release(c, RS_SPACE_DEVICE));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).reserved_bytes, 0);
  CHECK_OK(rs_stream_destroy(s));
  rs_context_destroy(c);
}

static void test_async_allocator(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_ASYNC, NULL));
  rs_memory_stats st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_STREQ(st.name, "async");
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, c, RS_STREAM_NON_BLOCKING));
  float *h = ramp(1.0f), *want = ramp(50.0f);
  CHECK(h && want);
  rs_array *x = NULL, *y = NULL;
  CHECK_OK(rs_device_array(&x, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 4 * N);
  CHECK_EQ_I64(st.allocations, 1);
  CHECK_OK(fill(x, h, NULL));
  /* used on s behind a delay, then released: the free is queued after s's work */
  CHECK_OK(rs_t_sleep(c, 300, s));
  CHECK_OK(rs_t_axpb(x, 2.0, 0.0, s));
  CHECK_OK(rs_array_release(x));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).in_use_bytes, 0);
  CHECK_OK(rs_device_array(&y, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(fill(y, want, s));
  CHECK_OK(rs_context_synchronize(c));
  CHECK_MSG(equals(y, want), "y was corrupted by x's late kernel");
  /* bad frees are caught before they reach cudaFreeAsync */
  void *p = NULL;
  CHECK_OK(rs_memory_alloc(&p, c, 256, NULL));
  CHECK_OK(rs_memory_free(c, p, NULL));
  CHECK_STATUS(rs_memory_free(c, p, NULL), RS_ERR_DOUBLE_FREE);
  int local;
  CHECK_STATUS(rs_memory_free(c, &local, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_OK(rs_array_release(y));
  /* out of memory: too big, reported, and the context goes on */
  rs_array *big = NULL;
  CHECK_STATUS(
      rs_device_array(&big, c, 1, S1(st.device_total_bytes + 1), RS_UINT8, NULL, RS_ORDER_C),
      RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("requested");
  CHECK_OK(rs_memory_release(c, RS_SPACE_DEVICE));
  st = stats_of(c, RS_SPACE_DEVICE);
  CHECK_EQ_I64(st.in_use_bytes, 0);
  if (rs_context_backend(c) == RS_BACKEND_SIM)
    CHECK_EQ_I64(st.device_free_bytes, st.device_total_bytes);
  CHECK_OK(rs_stream_destroy(s));
  free(h);
  free(want);
  rs_context_destroy(c);
}

static void test_many_streams_fall_back_safely(rs_context *ctx) {
  /* more streams than a buffer tracks events for: the free waits for everything */
  rs_context *c = NULL;
  CHECK_OK(rs_context_create(&c, rs_context_backend(ctx), 0));
  enum { NS = 10 };
  rs_stream *s[NS];
  rs_array *y[NS];
  for (int i = 0; i < NS; i++) CHECK_OK(rs_stream_create(&s[i], c, RS_STREAM_NON_BLOCKING));
  rs_array *x = NULL;
  CHECK_OK(rs_device_array(&x, c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_zeros_into(x, NULL)); /* copied below: data, not never-written memory (initcheck) */
  CHECK_OK(rs_context_synchronize(c));
  for (int i = 0; i < NS; i++) {
    CHECK_OK(rs_device_array(&y[i], c, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_array_copy(y[i], x, s[i])); /* x is read on ten streams */
  }
  CHECK_OK(rs_array_release(x));
  CHECK_EQ_I64(stats_of(c, RS_SPACE_DEVICE).waiting_blocks, 0); /* waited at the free */
  for (int i = 0; i < NS; i++) CHECK_OK(rs_array_release(y[i]));
  for (int i = 0; i < NS; i++) CHECK_OK(rs_stream_destroy(s[i]));
  rs_context_destroy(c);
}

static const rs_test_case tests[] = {
    RS_TEST(test_cross_stream_block_not_reused_early),
    RS_TEST(test_new_owner_waits_for_previous_owner_only),
    RS_TEST(test_pinned_block_waits_for_its_copy),
    RS_TEST(test_raw_memory_across_streams),
    RS_TEST(test_async_allocator),
    RS_TEST(test_many_streams_fall_back_safely),
};
RS_TEST_MAIN(tests)
