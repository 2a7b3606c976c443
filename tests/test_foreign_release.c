/* Issue 13 item 2: memory the library does not own goes back to its owner only after
 * every use queued on any stream has finished. A slow kernel keeps a stream busy ahead of
 * a use of a wrapped pointer; releasing the array must not call the owner's release
 * callback until that use is done, and then exactly once - without the host waiting. */
#include <stdatomic.h>
#include "harness.h"
#include "resident/allocator.h"
#include "resident/ops.h"

typedef struct owner {
  _Atomic int calls;
} owner;

static void on_release(void *user_data) { atomic_fetch_add(&((owner *)user_data)->calls, 1); }

static int calls(owner *o) { return atomic_load(&o->calls); }

/* A float32 device array of n elements over raw memory the test owns. */
static rs_status wrap_raw(rs_array **out, void **mem, rs_context *ctx, int64_t n, owner *o) {
  H_OK(rs_memory_alloc(mem, ctx, (size_t)n * 4, NULL));
  const int64_t shape[1] = {n};
  rs_status st = rs_device_array_wrap(out, ctx, *mem, 1, shape, RS_FLOAT32, NULL, NULL, on_release, o);
  /* the tests' kernels read the memory: give it values (initcheck) and let them land */
  if (st == RS_OK) st = rs_zeros_into(*out, NULL);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  if (st != RS_OK && *out) {
    (void)rs_array_release(*out);
    *out = NULL;
  }
  if (st != RS_OK) (void)rs_memory_free(ctx, *mem, NULL);
  return st;
}

/* Queued work on one stream: the callback waits for it. */
static void test_release_waits_for_queued_kernel(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  CHECK_OK(rs_t_kernels_warm(ctx));
  owner o = {0};
  rs_stream *s = NULL;
  rs_array *a = NULL;
  void *mem = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(wrap_raw(&a, &mem, ctx, 4096, &o));
  CHECK_OK(rs_t_sleep(ctx, 300, s));
  CHECK_OK(rs_t_axpb(a, 2.0, 1.0, s)); /* queued behind the sleep */
  CHECK_OK(rs_array_release(a));
  CHECK_MSG(calls(&o) == 0, "release callback ran while a kernel still used the memory");
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_context_synchronize(ctx)); /* the callback runs in stream order, off this thread */
  CHECK_EQ_I64(calls(&o), 1);
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_EQ_I64(calls(&o), 1);
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_memory_free(ctx, mem, NULL));
}

/* The library's own ops are uses too (they launch through the same path). */
static void test_release_waits_for_queued_op(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  CHECK_OK(rs_t_kernels_warm(ctx));
  owner o = {0};
  rs_stream *s = NULL;
  rs_array *a = NULL;
  void *mem = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(wrap_raw(&a, &mem, ctx, 4096, &o));
  /* The op once before timing: its first call may compile it (NVRTC on a cold cache takes
   * longer than the sleep), and the op must be queued while the sleep still runs. */
  CHECK_OK(rs_add_scalar_into(a, a, rs_scalar_float(1.0), s));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_t_sleep(ctx, 300, s));
  CHECK_OK(rs_add_scalar_into(a, a, rs_scalar_float(1.0), s));
  CHECK_OK(rs_array_release(a));
  CHECK_MSG(calls(&o) == 0, "release callback ran while an op still used the memory");
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_EQ_I64(calls(&o), 1);
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_memory_free(ctx, mem, NULL));
}

/* Uses on two streams: the callback waits for the later of the two, whichever it is. */
static void test_release_waits_for_both_streams(rs_context *ctx) {
  if (rs_t_tool_serializes()) return;
  CHECK_OK(rs_t_kernels_warm(ctx));
  owner o = {0};
  rs_stream *s1 = NULL, *s2 = NULL;
  rs_array *a = NULL, *b = NULL;
  void *mem = NULL;
  const int64_t n[1] = {4096};
  CHECK_OK(rs_stream_create(&s1, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&s2, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_device_array(&b, ctx, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(wrap_raw(&a, &mem, ctx, 4096, &o));
  CHECK_OK(rs_t_axpb(a, 0.0, 3.0, s1)); /* quick use on s1 */
  CHECK_OK(rs_t_sleep(ctx, 400, s2));
  CHECK_OK(rs_array_copy(b, a, s2)); /* slow use on s2: a copy from the wrapped memory */
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_stream_synchronize(s1));
  CHECK_MSG(calls(&o) == 0, "release callback ran while the copy on the second stream was queued");
  CHECK_OK(rs_stream_synchronize(s2));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_EQ_I64(calls(&o), 1);
  /* The copy read the memory before it went back: b holds what the kernel wrote. */
  const int64_t i0[1] = {4095};
  double v = 0;
  CHECK_OK(rs_array_item_double(b, i0, &v, NULL));
  CHECK_NEAR(v, 3.0, 0);
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_stream_destroy(s1));
  CHECK_OK(rs_stream_destroy(s2));
  CHECK_EQ_I64(calls(&o), 1);
  CHECK_OK(rs_memory_free(ctx, mem, NULL));
}

/* Nothing queued, or all of it finished: the callback runs within the release call. */
static void test_release_without_pending_work_is_prompt(rs_context *ctx) {
  owner o = {0};
  rs_array *a = NULL, *v = NULL;
  void *mem = NULL;
  CHECK_OK(wrap_raw(&a, &mem, ctx, 256, &o));
  CHECK_OK(rs_array_release(a));
  CHECK_EQ_I64(calls(&o), 1);
  CHECK_OK(rs_memory_free(ctx, mem, NULL));

  owner p = {0};
  rs_stream *s = NULL;
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(wrap_raw(&a, &mem, ctx, 256, &p));
  CHECK_OK(rs_t_axpb(a, 1.0, 1.0, s));
  CHECK_OK(rs_stream_synchronize(s));
  /* A view keeps the memory: only the last release gives it back. */
  const int64_t half[2] = {2, 128};
  CHECK_OK(rs_array_reshape(&v, a, 2, half));
  CHECK_OK(rs_array_release(a));
  CHECK_EQ_I64(calls(&p), 0);
  CHECK_OK(rs_array_release(v));
  CHECK_EQ_I64(calls(&p), 1);
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_memory_free(ctx, mem, NULL));
}

static const rs_test_case tests[] = {
    RS_TEST(test_release_waits_for_queued_kernel),
    RS_TEST(test_release_waits_for_queued_op),
    RS_TEST(test_release_waits_for_both_streams),
    RS_TEST(test_release_without_pending_work_is_prompt),
};
RS_TEST_MAIN(tests)
