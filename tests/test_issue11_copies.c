/* Issue 11, items 12 and 13: the implicit copies of host arrays at a launch or a device op.
 * One host buffer gets one device temporary per launch (the same array passed twice,
 * overlapping views of one buffer: the device sees the aliasing the host has, and the
 * ledger shows one copy in and one back); a host out that a device op only writes is not
 * copied in, and a strided host out keeps the bytes between its elements. */
#include "harness.h"
#include "kernel_test_util.h"
#include "resident/ops.h"
#include "resident/reduce.h"

/* The ledger's totals now (one place to change if the getter is renamed). */
static rs_status ledger_now(rs_context *ctx, rs_ledger_stats *s) {
  memset(s, 0, sizeof *s);
  return rs_ledger_get_stats(ctx, s);
}

/* One thread, in order: every a[i] += 1, then every b[i] *= 10. When a and b overlap,
 * the second loop sees the first one's writes - as it would on the host. */
static const char *two_writers_src =
    "extern \"C\" __global__ void two_writers(float *a, float *b, int n) {\n"
    "  for (int i = 0; i < n; i++) a[i] += 1.0f;\n"
    "  for (int i = 0; i < n; i++) b[i] *= 10.0f;\n"
    "}\n";

static void test_kernel_same_host_array_twice(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, two_writers_src, "two_writers");
  enum { N = 100 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)i;
  int64_t n = N;
  rs_array *h = NULL;
  rs_status st = rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .flags = RS_LAUNCH_SYNC};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(h), rs_arg_array(h), rs_arg_i32(N)));
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  rs_array_release(h);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) CHECK_MSG(x[i] == (float)(i + 1) * 10.0f, "x[%d] = %g, want %g", i, x[i], (i + 1) * 10.0);
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][1], N * 4);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 4);
}

static void test_kernel_overlapping_views(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, two_writers_src, "two_writers");
  float x[12];
  for (int i = 0; i < 12; i++) x[i] = (float)i;
  int64_t n = 12;
  rs_array *h = NULL, *a = NULL, *b = NULL;
  rs_slice first = {0, 8, 1}, second = {2, 10, 1};
  rs_status st = rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_array_slice(&a, h, 1, &first);
  if (st == RS_OK) st = rs_array_slice(&b, h, 1, &second);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .flags = RS_LAUNCH_SYNC};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(8)));
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  rs_array_release(a);
  rs_array_release(b);
  rs_array_release(h);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  /* x[0..8) got +1, then x[2..10) *10, in that order; x[10..12) was never reached */
  for (int j = 0; j < 12; j++) {
    float want = j < 2 ? (float)(j + 1) : j < 8 ? (float)(j + 1) * 10.0f : j < 10 ? (float)j * 10.0f : (float)j;
    CHECK_MSG(x[j] == want, "x[%d] = %g, want %g", j, x[j], want);
  }
  /* one temporary over the span the views reach: x[0..10), 40 bytes, once each way */
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][1], 40);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], 40);
}

/* Two arrays wrapped over overlapping user memory are two buffers, but one memory: they
 * share a temporary over the memory they cover. */
static void test_kernel_two_wraps_of_one_block(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, two_writers_src, "two_writers");
  enum { N = 100 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)i;
  int64_t n = 60;
  rs_array *a = NULL, *b = NULL;
  rs_status st = rs_host_array_wrap(&a, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&b, ctx, x + 40, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .flags = RS_LAUNCH_SYNC};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(60)));
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  rs_array_release(a);
  rs_array_release(b);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  for (int j = 0; j < N; j++) {
    float want = j < 40 ? (float)(j + 1) : j < 60 ? (float)(j + 1) * 10.0f : (float)j * 10.0f;
    CHECK_MSG(x[j] == want, "x[%d] = %g, want %g", j, x[j], want);
  }
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][1], N * 4);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 4);
}

/* Overlapping memory whose elements cannot all be aligned in one temporary is refused,
 * with a message naming the arguments, and nothing moves. */
static void test_kernel_misaligned_overlap_refused(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, two_writers_src, "two_writers");
  _Alignas(16) unsigned char block[64];
  for (int i = 0; i < 64; i++) block[i] = (unsigned char)i;
  unsigned char before[64];
  memcpy(before, block, sizeof block);
  int64_t n = 4;
  rs_array *a = NULL, *b = NULL;
  /* floats at block+2 and at block+4: four bytes apart would do, two cannot */
  rs_status st = rs_host_array_wrap(&a, ctx, block + 2, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&b, ctx, block + 4, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_launch_config cfg = {.grid = {1}, .block = {1}};
  rs_status refused = st;
  if (st == RS_OK) refused = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(4)));
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  rs_array_release(a);
  rs_array_release(b);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(refused == RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "argument 1 shares host memory with argument 0") != NULL, "%s", msg);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 0);
  CHECK(memcmp(block, before, sizeof block) == 0);
}

static void test_kernel_const_input_is_also_the_output(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void twice(const double *src, double *dst, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) dst[i] = 2.0 * src[i];\n"
      "}\n";
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "twice");
  enum { N = 300 };
  double x[N];
  for (int i = 0; i < N; i++) x[i] = i - 7.5;
  int64_t n = N;
  rs_array *h = NULL;
  rs_status st = rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT64, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_launch_config cfg = {.elements = N};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(h), rs_arg_array(h), rs_arg_i32(N)));
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  rs_array_release(h);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) CHECK(x[i] == 2.0 * (i - 7.5));
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][1], N * 8);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 8);
}

/* A device array 0, 1, ..., n-1 (float32). */
static rs_status device_iota(rs_context *ctx, rs_array **out, int64_t n) {
  *out = NULL;
  H_OK(rs_arange(out, ctx, RS_MEM_DEVICE, 0, (double)n, 1, RS_FLOAT32, NULL));
  return rs_context_synchronize(ctx);
}

static void test_op_into_host_out_copies_only_the_result(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  enum { N = 1000 };
  int64_t n = N;
  rs_array *d = NULL, *h = NULL;
  rs_status st = device_iota(ctx, &d, n);
  if (st == RS_OK) st = rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_add_into(h, d, d, NULL);
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  float got[N];
  if (st == RS_OK) st = rs_t_read_(h, got);
  rs_array_release(d);
  rs_array_release(h);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) CHECK(got[i] == 2.0f * (float)i);
  CHECK_EQ_I64(s.copies[RS_H2D][1], 0); /* out is only written: nothing to send */
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 1);
  CHECK_EQ_I64(rs_ledger_bytes(&s, -1), N * 4);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 4);
}

static void test_sum_into_host_0d_out_is_one_copy(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  rs_array *d = NULL, *h = NULL;
  rs_status st = device_iota(ctx, &d, 100);
  if (st == RS_OK) st = rs_host_array(&h, ctx, 0, NULL, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_sum_into(h, d, 0, NULL, 0, NULL);
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  float got = -1;
  if (st == RS_OK) st = rs_t_read_(h, &got);
  rs_array_release(d);
  rs_array_release(h);
  CHECK_OK(st);
  CHECK(got == 4950.0f);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 1);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], 4);
}

/* out = every other element of a bigger host buffer: only its elements come back, the
 * ones between them keep their values, and nothing is sent. */
static void test_op_into_strided_host_out_keeps_the_rest(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  enum { N = 1000 };
  float buf[2 * N];
  for (int i = 0; i < 2 * N; i++) buf[i] = -1.0f;
  int64_t n2 = 2 * N;
  rs_array *d = NULL, *h = NULL, *view = NULL;
  rs_slice evens = {0, RS_SLICE_DEFAULT, 2};
  rs_status st = device_iota(ctx, &d, N);
  if (st == RS_OK) st = rs_host_array_wrap(&h, ctx, buf, 1, &n2, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_array_slice(&view, h, 1, &evens);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_add_into(view, d, d, NULL);
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  rs_array_release(d);
  rs_array_release(view);
  rs_array_release(h);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) {
    CHECK_MSG(buf[2 * i] == 2.0f * (float)i, "buf[%d] = %g", 2 * i, buf[2 * i]);
    CHECK_MSG(buf[2 * i + 1] == -1.0f, "buf[%d] = %g (not written by the op)", 2 * i + 1, buf[2 * i + 1]);
  }
  CHECK_EQ_I64(s.copies[RS_H2D][1], 0);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 4);
}

/* A reduction over an empty axis writes its identity into every element of a host out
 * that was not sent: what comes back is the identity, not the device's leftovers. */
static void test_empty_reduction_into_host_out(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  int64_t shape[2] = {3, 0}, three = 3;
  float sums[3] = {7, 7, 7}, prods[3] = {7, 7, 7};
  rs_array *d = NULL, *hs = NULL, *hp = NULL;
  int axis = 1;
  rs_status st = rs_device_array(&d, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_host_array_wrap(&hs, ctx, sums, 1, &three, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hp, ctx, prods, 1, &three, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_sum_into(hs, d, 1, &axis, 0, NULL);
  if (st == RS_OK) st = rs_prod_into(hp, d, 1, &axis, 0, NULL);
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  rs_array_release(d);
  rs_array_release(hs);
  rs_array_release(hp);
  CHECK_OK(st);
  for (int i = 0; i < 3; i++) CHECK(sums[i] == 0.0f && prods[i] == 1.0f);
  CHECK_EQ_I64(s.copies[RS_H2D][1], 0);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 2);
}

/* out is also an input: it must be sent, once, and come back, once. */
static void test_op_out_that_is_an_input(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  enum { N = 500 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = 0.5f * (float)i;
  int64_t n = N;
  rs_array *d = NULL, *h = NULL;
  rs_status st = device_iota(ctx, &d, N);
  if (st == RS_OK) st = rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_add_into(h, h, d, NULL);
  rs_ledger_stats s;
  if (st == RS_OK) st = ledger_now(ctx, &s);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  rs_array_release(d);
  rs_array_release(h);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) CHECK(x[i] == 1.5f * (float)i);
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][1], N * 4);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], N * 4);
}

/* A device op reading one host array twice, or two overlapping views of it, sends it
 * once. */
static void test_op_reading_one_host_array_twice(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  enum { N = 256 };
  float x[N];
  for (int i = 0; i < N; i++) x[i] = (float)i;
  int64_t n = N;
  rs_array *h = NULL, *lo = NULL, *hi = NULL, *d = NULL, *dv = NULL, *sum = NULL, *shifted = NULL;
  rs_slice first = {0, N - 8, 1}, last = {8, N, 1};
  rs_status st = rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_array_slice(&lo, h, 1, &first);
  if (st == RS_OK) st = rs_array_slice(&hi, h, 1, &last);
  if (st == RS_OK) st = rs_device_array(&d, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_zeros_into(d, NULL);
  if (st == RS_OK) st = rs_array_slice(&dv, d, 1, &first);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  rs_ledger_stats s1, s2;
  if (st == RS_OK) st = rs_where(&sum, d, h, h, NULL); /* d is all zeros: picks b, h read as two operands */
  if (st == RS_OK) st = ledger_now(ctx, &s1);
  if (st == RS_OK) st = rs_ledger_reset(ctx);
  if (st == RS_OK) st = rs_where(&shifted, dv, lo, hi, NULL); /* the second view, from overlapping ones */
  if (st == RS_OK) st = ledger_now(ctx, &s2);
  float got1[N], got2[N - 8];
  if (st == RS_OK) st = rs_t_read_(sum, got1);
  if (st == RS_OK) st = rs_t_read_(shifted, got2);
  rs_array *all[] = {h, lo, hi, d, dv, sum, shifted};
  for (int i = 0; i < 7; i++) rs_array_release(all[i]);
  CHECK_OK(st);
  for (int i = 0; i < N; i++) CHECK(got1[i] == (float)i);
  for (int i = 0; i < N - 8; i++) CHECK(got2[i] == (float)(i + 8));
  CHECK_EQ_I64(s1.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s1.bytes[RS_H2D][1], N * 4);
  CHECK_EQ_I64(s2.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s2.bytes[RS_H2D][1], N * 4); /* the span both views reach */
  CHECK_EQ_I64(s1.copies[RS_D2H][1] + s2.copies[RS_D2H][1], 0);
}

/* The guard is asked about the copies that happen: a write-only host out needs no
 * host-to-device copy, so forbidding those does not stop the op. */
static void test_guard_sees_no_copy_in_for_a_written_out(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  int64_t n = 64;
  rs_array *d = NULL, *h = NULL;
  rs_status st = device_iota(ctx, &d, n);
  if (st == RS_OK) st = rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_guard_push(ctx, RS_H2D, RS_GUARD_DISALLOW);
  rs_status added = st == RS_OK ? rs_add_into(h, d, d, NULL) : st;
  rs_status refused = st == RS_OK ? rs_add_into(h, h, d, NULL) : st; /* h is read: it must be sent */
  if (st == RS_OK) st = rs_guard_pop(ctx);
  float got[64];
  if (st == RS_OK) st = rs_t_read_(h, got);
  rs_array_release(d);
  rs_array_release(h);
  CHECK_OK(st);
  CHECK_OK(added);
  CHECK(refused != RS_OK);
  for (int i = 0; i < 64; i++) CHECK(got[i] == 2.0f * (float)i);
}

static const rs_test_case tests[] = {
    RS_TEST(test_kernel_same_host_array_twice),
    RS_TEST(test_kernel_overlapping_views),
    RS_TEST(test_kernel_two_wraps_of_one_block),
    RS_TEST(test_kernel_misaligned_overlap_refused),
    RS_TEST(test_kernel_const_input_is_also_the_output),
    RS_TEST(test_op_into_host_out_copies_only_the_result),
    RS_TEST(test_sum_into_host_0d_out_is_one_copy),
    RS_TEST(test_op_into_strided_host_out_keeps_the_rest),
    RS_TEST(test_empty_reduction_into_host_out),
    RS_TEST(test_op_out_that_is_an_input),
    RS_TEST(test_op_reading_one_host_array_twice),
    RS_TEST(test_guard_sees_no_copy_in_for_a_written_out),
};
RS_TEST_MAIN(tests)
