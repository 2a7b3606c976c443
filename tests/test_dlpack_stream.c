/* Issue 13, the DLPack stream handshake (the Python array API's __dlpack__(stream=...)):
 * the consumer names its stream, the producer makes it wait for the array's pending work
 * through an event. A slow kernel holds the producer's stream; the consumer's copy, queued
 * on another non-blocking stream right after the export, must still see what the producer
 * wrote - while the host never waited and the producer's stream is still busy. */
#include "harness.h"
#include "resident/dlpack.h"
#include "resident/ops.h"

static const int64_t n1[1] = {4096};

/* A zeroed array, then on the producer's stream: a long sleep, then a = 2*a + 7. */
static void produce(rs_context *ctx, rs_array **a, rs_stream *prod) {
  *a = NULL;
  if (rs_zeros(a, ctx, RS_MEM_DEVICE, 1, n1, RS_FLOAT32, NULL) != RS_OK) return;
  (void)rs_context_synchronize(ctx);
  (void)rs_t_sleep(ctx, 300, prod);
  (void)rs_t_axpb(*a, 2.0, 7.0, prod);
}

/* src's last element as seen by a copy queued on cons, after synchronizing cons only. */
static double last_on(rs_array *src, rs_stream *cons) {
  rs_array *h = NULL;
  double v = -1;
  if (rs_copy_to_host(&h, src, cons) != RS_OK) return -2;
  if (rs_stream_synchronize(cons) != RS_OK) v = -3;
  const int64_t i[1] = {n1[0] - 1};
  if (v == -1) v = ((const float *)rs_array_host_data(h))[i[0]];
  rs_array_release(h);
  return v;
}

static void test_export_orders_the_consumer_stream(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  rs_stream *prod = NULL, *cons = NULL;
  rs_array *a = NULL, *b = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_stream_create(&prod, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&cons, ctx, RS_STREAM_NON_BLOCKING));
  /* warm the copy path once, so nothing below compiles or allocates for long */
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n1, RS_FLOAT32, NULL));
  CHECK_OK(rs_context_synchronize(ctx)); /* cons is non-blocking: it does not wait for the fill */
  CHECK_NEAR(last_on(a, cons), 0.0, 0);
  CHECK_OK(rs_array_release(a));

  produce(ctx, &a, prod);
  CHECK(a != NULL);
  intptr_t cv = 0;
  CHECK_OK(rs_stream_dlpack_value(cons, &cv));
  CHECK(cv != RS_DLPACK_STREAM_NONE && cv != 0);
  CHECK_OK(rs_array_to_dlpack_on(&t, a, prod, cv));
  CHECK_OK(rs_array_from_dlpack(&b, ctx, t));
  int done = 1;
  CHECK_OK(rs_stream_query(prod, &done));
  CHECK_MSG(!done, "the export waited on the host for the producer's stream");
  CHECK_NEAR(last_on(b, cons), 7.0, 0); /* ordered after the producer's kernel */
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_stream_destroy(prod));
  CHECK_OK(rs_stream_destroy(cons));
}

/* The import side: the producer hands over the tensor and the stream that wrote it. */
static void test_import_waits_for_the_producer_stream(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  rs_stream *prod = NULL, *cons = NULL;
  rs_array *a = NULL, *b = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_stream_create(&prod, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_stream_create(&cons, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n1, RS_FLOAT32, NULL));
  CHECK_OK(rs_context_synchronize(ctx)); /* cons is non-blocking: it does not wait for the fill */
  CHECK_NEAR(last_on(a, cons), 0.0, 0);
  CHECK_OK(rs_array_release(a));

  produce(ctx, &a, prod);
  CHECK(a != NULL);
  CHECK_OK(rs_array_to_dlpack_on(&t, a, prod, RS_DLPACK_STREAM_NONE)); /* no wait */
  CHECK_OK(rs_array_from_dlpack(&b, ctx, t));
  intptr_t pv = 0;
  CHECK_OK(rs_stream_dlpack_value(prod, &pv));
  CHECK_OK(rs_stream_wait_dlpack(cons, pv));
  int done = 1;
  CHECK_OK(rs_stream_query(prod, &done));
  CHECK_MSG(!done, "the wait blocked the host");
  CHECK_NEAR(last_on(b, cons), 7.0, 0);
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_stream_destroy(prod));
  CHECK_OK(rs_stream_destroy(cons));
}

/* The conventional values: 1 and 2 are the default streams, -1 asks for nothing, and the
 * value of a stream names it back. Bad values are refused with nothing exported. */
static void test_stream_values(rs_context *ctx) {
  intptr_t v = 0;
  CHECK_OK(rs_stream_dlpack_value(NULL, &v));
  CHECK_EQ_I64(v, RS_DLPACK_STREAM_LEGACY);
  CHECK_OK(rs_stream_dlpack_value(rs_stream_legacy(ctx), &v));
  CHECK_EQ_I64(v, RS_DLPACK_STREAM_LEGACY);
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_stream_dlpack_value(s, &v));
  CHECK(v == (intptr_t)rs_stream_native(s));
  rs_array *a = NULL;
  rs_dl_managed_tensor_versioned *t = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, n1, RS_FLOAT32, NULL));
  const intptr_t good[] = {RS_DLPACK_STREAM_NONE, RS_DLPACK_STREAM_LEGACY, RS_DLPACK_STREAM_PER_THREAD, v};
  for (int i = 0; i < 4; i++) {
    CHECK_OK(rs_array_to_dlpack_on(&t, a, s, good[i]));
    t->deleter(t);
    CHECK_OK(rs_stream_wait_dlpack(s, good[i]));
  }
  CHECK_FAILS(rs_array_to_dlpack_on(&t, a, s, 0));
  CHECK(t == NULL);
  if (rs_context_backend(ctx) == RS_BACKEND_SIM) {
    /* the simulator knows its streams: a made-up handle is refused */
    CHECK_FAILS(rs_array_to_dlpack_on(&t, a, s, (intptr_t)0x1000));
    CHECK(t == NULL);
    CHECK_FAILS(rs_stream_wait_dlpack(s, (intptr_t)0x1000));
  }
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_stream_synchronize(s));
  CHECK_OK(rs_stream_destroy(s));
}

static const rs_test_case tests[] = {
    RS_TEST(test_export_orders_the_consumer_stream),
    RS_TEST(test_import_waits_for_the_producer_stream),
    RS_TEST(test_stream_values),
};
RS_TEST_MAIN(tests)
