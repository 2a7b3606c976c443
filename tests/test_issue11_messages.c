/* Issue 11, item 15: messages that named the wrong thing. Each case asserts the text. */
#include "harness.h"
#include "kernel_test_util.h"
#include "resident/bench.h"
#include "resident/ops.h"

/* The current message, kept (later calls overwrite rs_last_error). */
static const char *msg_now(char *buf, size_t len) {
  snprintf(buf, len, "%s", rs_last_error());
  return buf;
}

#define CHECK_HAS(m, text) CHECK_MSG(strstr((m), (text)) != NULL, "message \"%s\" lacks \"%s\"", (m), (text))
#define CHECK_LACKS(m, text) CHECK_MSG(strstr((m), (text)) == NULL, "message \"%s\" says \"%s\"", (m), (text))

static void test_kernel_param_index_out_of_range(rs_context *ctx) {
  static const char *src = "extern \"C\" __global__ void two(float *a, int n) { if (n) a[0] = 1.0f; }\n"
                           "extern \"C\" __global__ void none() {}\n";
  rs_kernel *k = NULL, *k0 = NULL;
  KT_CREATE(k, ctx, src, "two");
  rs_status st = rs_kernel_create(&k0, ctx, src, "none", NULL);
  rs_kernel_param p;
  char m1[1024] = "", m2[1024] = "", m3[1024] = "";
  rs_status s1 = rs_kernel_get_param(k, -1, &p);
  msg_now(m1, sizeof m1);
  rs_status s2 = rs_kernel_get_param(k, 2, &p);
  msg_now(m2, sizeof m2);
  rs_status s3 = st == RS_OK ? rs_kernel_get_param(k0, 0, &p) : st;
  msg_now(m3, sizeof m3);
  rs_kernel_destroy(k);
  rs_kernel_destroy(k0);
  CHECK_OK(st);
  CHECK(s1 == RS_ERR_INDEX && s2 == RS_ERR_INDEX && s3 == RS_ERR_INDEX);
  CHECK_HAS(m1, "index -1 is out of range");
  CHECK_HAS(m1, "kernel 'two' has 2 parameters (0 to 1)");
  CHECK_LACKS(m1, "not 0");
  CHECK_HAS(m2, "index 2 is out of range");
  CHECK_HAS(m3, "kernel 'none' has no parameters; index 0 is out of range");
}

/* An out of another context is reported as out, whatever the operands are. */
static void test_out_of_another_context(rs_context *ctx) {
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  int64_t n = 4;
  rs_array *a = NULL, *o = NULL, *d = NULL, *od = NULL;
  rs_status st = rs_host_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_host_array(&o, other, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_device_array(&d, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_device_array(&od, other, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  char m1[1024] = "", m2[1024] = "", m3[1024] = "";
  rs_array *t = o;
  rs_status s1 = st == RS_OK ? rs_add_into(t, a, a, NULL) : st;
  msg_now(m1, sizeof m1);
  t = od;
  rs_status s2 = st == RS_OK ? rs_multiply_into(t, d, d, NULL) : st;
  msg_now(m2, sizeof m2);
  t = od;
  rs_status s3 = st == RS_OK ? rs_sqrt_into(t, d, NULL) : st;
  msg_now(m3, sizeof m3);
  rs_array_release(a);
  rs_array_release(o);
  rs_array_release(d);
  rs_array_release(od);
  rs_context_destroy(other);
  CHECK_OK(st);
  CHECK(s1 == RS_ERR_INVALID_ARGUMENT && s2 == RS_ERR_INVALID_ARGUMENT && s3 == RS_ERR_INVALID_ARGUMENT);
  CHECK_HAS(m1, "add: out (a host array) belongs to another context than the operands");
  CHECK_LACKS(m1, "operand 0");
  CHECK_HAS(m2, "multiply: out (a device array) belongs to another context than the operands");
  CHECK_HAS(m3, "sqrt: out (a device array) belongs to another context");
}

/* Operands of two contexts: where each lives is said as it is ("(device)" was said of
 * host arrays). */
static void test_operands_of_two_contexts(rs_context *ctx) {
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  int64_t n = 4;
  rs_array *a = NULL, *b = NULL, *d = NULL, *r = NULL;
  rs_status st = rs_host_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_host_array(&b, other, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_device_array(&d, other, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  char m1[1024] = "", m2[1024] = "";
  rs_status s1 = st == RS_OK ? rs_add(&r, a, b, NULL) : st;
  msg_now(m1, sizeof m1);
  rs_array_release(r);
  r = NULL;
  rs_status s2 = st == RS_OK ? rs_subtract(&r, a, d, NULL) : st;
  msg_now(m2, sizeof m2);
  rs_array_release(r);
  rs_array_release(a);
  rs_array_release(b);
  rs_array_release(d);
  rs_context_destroy(other);
  CHECK_OK(st);
  CHECK(s1 == RS_ERR_INVALID_ARGUMENT && s2 == RS_ERR_INVALID_ARGUMENT);
  CHECK_HAS(m1, "add: operand 1 (a host array) belongs to another context than operand 0 (a host array)");
  CHECK_LACKS(m1, "(device)");
  CHECK_HAS(m2, "subtract: operand 1 (a device array) belongs to another context than operand 0 (a host array)");
}

/* An event and a stream of two contexts: the pair does not match; the stream is not
 * singled out (the event may as well be the stranger). */
static void test_event_of_another_context(rs_context *ctx) {
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  rs_stream *s = NULL;
  rs_event *ev = NULL;
  rs_status st = rs_stream_create(&s, ctx, 0);
  if (st == RS_OK) st = rs_event_create(&ev, other, 0);
  char m1[1024] = "", m2[1024] = "";
  rs_status s1 = st == RS_OK ? rs_event_record(ev, s) : st;
  msg_now(m1, sizeof m1);
  rs_status s2 = st == RS_OK ? rs_stream_wait_event(s, ev) : st;
  msg_now(m2, sizeof m2);
  rs_status ok = st == RS_OK ? rs_event_record(ev, NULL) : st; /* its own context's default stream */
  if (ev) rs_event_synchronize(ev);
  rs_event_destroy(ev);
  rs_stream_destroy(s);
  rs_context_destroy(other);
  CHECK_OK(st);
  CHECK_OK(ok);
  CHECK(s1 == RS_ERR_INVALID_ARGUMENT && s2 == RS_ERR_INVALID_ARGUMENT);
  CHECK_HAS(m1, "rs_event_record: the event and the stream belong to different contexts");
  CHECK_HAS(m2, "rs_stream_wait_event: the event and the stream belong to different contexts");
  CHECK_LACKS(m1, "the stream belongs to another context");
}

static int calls;
static rs_status fails_silently(void *ud) {
  (void)ud;
  return ++calls > 2 ? RS_ERR_INVALID_ARGUMENT : RS_OK;
}

/* A benchmarked function that fails without a message: the reason is its status, not
 * an empty string, and not a message left over from an earlier call. */
static void test_benchmark_of_a_failing_function(rs_context *ctx) {
  rs_bench_result r;
  rs_bench_options o = rs_bench_defaults();
  o.n_warmup = 1;
  o.n_repeat = 5;
  int64_t n = 4;
  CHECK(rs_host_array(NULL, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C) != RS_OK); /* leaves a message */
  calls = 0;
  rs_status s1 = rs_benchmark(ctx, "silent", fails_silently, NULL, &o, &r);
  char m1[1024] = "", m2[1024] = "";
  msg_now(m1, sizeof m1);
  o.n_warmup = 5;
  calls = 0;
  rs_status s2 = rs_benchmark(ctx, "silent", fails_silently, NULL, &o, &r);
  msg_now(m2, sizeof m2);
  CHECK(s1 == RS_ERR_INVALID_ARGUMENT && s2 == RS_ERR_INVALID_ARGUMENT);
  CHECK_HAS(m1, "rs_benchmark 'silent': ");
  CHECK_HAS(m1, "RS_ERR_INVALID_ARGUMENT; no message was set");
  CHECK_LACKS(m1, "out is NULL");
  CHECK_HAS(m2, "rs_benchmark 'silent' warm-up 2: ");
  CHECK_HAS(m2, "RS_ERR_INVALID_ARGUMENT; no message was set");
  size_t len = strlen(m1);
  CHECK(len >= 2 && strcmp(m1 + len - 2, ": ") != 0);
}

static const rs_test_case tests[] = {
    RS_TEST(test_kernel_param_index_out_of_range), RS_TEST(test_out_of_another_context),
    RS_TEST(test_operands_of_two_contexts),        RS_TEST(test_event_of_another_context),
    RS_TEST(test_benchmark_of_a_failing_function),
};
RS_TEST_MAIN(tests)
